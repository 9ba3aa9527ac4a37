// Takes over the file older versions wrote (`operations.ndjson`, one JSON line per record) on
// first use: streamed in chunks (never one string), written into a staging folder beside the
// journal, checkpointed so an interrupted takeover resumes where it stopped, moved into place
// only once complete and synced; the old file is removed only then. A line that cannot be read
// is kept in `damaged.ndjson`: any key may be in it, so money commands refuse until a person
// has looked (`cardctl ops repair`).
import {
  appendFileSync,
  closeSync,
  existsSync,
  fdatasyncSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ensureDir } from './files.js';
import { checksumOkAt, encodeJson, encodeLine, parseRecord, isDamaged, type RawRecord } from './lines.js';
import { idBucketFile, idRecord, idShard, keyBucketFile, keyBucketName, markerFile, segmentFile } from './layout.js';
import { JournalStore } from './store.js';
import { takeoverLock } from './takeover-lock.js';

const CHUNK = 4 << 20;
const FLUSH_BYTES = 96 << 20;
/** Ops remembered for their outcome lines (an outcome follows its op closely; later ones take a second pass). */
const RECENT_OPS = 200_000;

interface Progress {
  offset: number;
  sizes: Record<string, number>;
  /** operations with no known outcome so far: [id, idempotency key] */
  unknown: Array<[string, string]>;
  records: number;
  damaged: number;
}

class Staging {
  readonly buffers = new Map<string, string[]>();
  buffered = 0;
  readonly recent = new Map<string, { key: string; time: string }>();
  private readonly ring: Array<string | undefined> = new Array(RECENT_OPS);
  private ringAt = 0;
  constructor(
    readonly root: string,
    readonly p: Progress,
  ) {}

  add(file: string, line: string): void {
    const list = this.buffers.get(file);
    if (list) list.push(line);
    else this.buffers.set(file, [line]);
    this.buffered += line.length;
  }

  /** Appends what is buffered and records the checkpoint (offset of the next line to read). */
  flush(offset: number): void {
    for (const [file, lines] of this.buffers) {
      const text = lines.join('');
      ensureDir(dirname(file));
      appendFileSync(file, text, { mode: 0o600 });
      const rel = relative(this.root, file);
      this.p.sizes[rel] = (this.p.sizes[rel] ?? 0) + Buffer.byteLength(text);
    }
    this.buffers.clear();
    this.buffered = 0;
    this.p.offset = offset;
    this.p.unknown = [...this.unknownSet];
    const tmp = join(this.root, 'progress.json.tmp');
    writeFileSync(tmp, encodeJson(JSON.stringify(this.p))); // checksummed: a damaged digit of the offset would skip records
    renameSync(tmp, join(this.root, 'progress.json'));
  }

  op(r: RawRecord, text: string): void {
    const key = r.idempotency_key as string;
    const bucket = keyBucketName(key);
    const line = encodeJson(text);
    this.add(keyBucketFile(this.root, bucket), line);
    this.add(segmentFile(this.root, r.time as string), line);
    this.add(idBucketFile(this.root, idShard(r.id)), encodeLine(idRecord(r.id, r.time as string, bucket)));
    // the oldest remembered op makes room (a ring: deleting a Map's first key again and again is quadratic in V8)
    const evicted = this.ring[this.ringAt];
    if (evicted !== undefined) this.recent.delete(evicted);
    this.ring[this.ringAt] = r.id;
    this.ringAt = (this.ringAt + 1) % RECENT_OPS;
    this.recent.set(r.id, { key, time: r.time as string });
    this.unknown(r.id, true, key);
  }

  /** An outcome or resolution: beside its op, or set aside for the second pass. */
  later(r: RawRecord, text: string): void {
    const place = this.recent.get(r.id);
    if (!place) return this.add(join(this.root, 'late.ndjson'), text + '\n');
    const line = encodeJson(text);
    this.add(keyBucketFile(this.root, keyBucketName(place.key)), line);
    this.add(segmentFile(this.root, place.time), line);
    this.unknown(r.id, r.type === 'outcome' && r.outcome === 'unknown', place.key);
  }

  private readonly unknownSet = new Map<string, string>();
  unknown(id: string, on: boolean, key: string): void {
    if (on) this.unknownSet.set(id, key);
    else this.unknownSet.delete(id);
  }
  loadUnknown(): void {
    for (const [id, key] of this.p.unknown) this.unknownSet.set(id, key);
  }

  damaged(offset: number, why: string, text: string): void {
    this.p.damaged++;
    this.add(join(this.root, 'damaged.ndjson'), JSON.stringify({ offset, why, text: text.slice(0, 4000) }) + '\n');
  }
}

/** Every file under a folder, relative to it. */
function walk(root: string, dir = root): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? walk(root, join(dir, d.name)) : [relative(root, join(dir, d.name))],
  );
}

/** A checkpoint whose checksum matches (one damaged byte, such as a digit of the offset, would skip or repeat records), else undefined: start over. */
function readProgress(buf: Buffer): Progress | undefined {
  const end = buf.indexOf(0x0a) < 0 ? buf.length : buf.indexOf(0x0a);
  if (!checksumOkAt(buf, 0, end)) return undefined;
  const p = JSON.parse(buf.toString('utf8', 9, end)) as Progress;
  return Number.isSafeInteger(p?.offset) && typeof p.sizes === 'object' && p.sizes !== null && Array.isArray(p.unknown)
    ? p
    : undefined;
}

/** The staging folder as the last checkpoint left it, or a fresh one; null progress means start over. */
function resume(staging: string): Progress {
  const fresh: Progress = { offset: 0, sizes: {}, unknown: [], records: 0, damaged: 0 };
  let p: Progress | undefined;
  try {
    p = readProgress(readFileSync(join(staging, 'progress.json')));
  } catch {
    p = undefined;
  }
  const files = walk(staging).filter((f) => f !== 'progress.json' && f !== 'progress.json.tmp');
  // a file shorter than its checkpoint (a power cut lost what was not yet synced): start over
  if (
    !p ||
    files.some((f) => statSync(join(staging, f)).size < (p!.sizes[f] ?? 0)) ||
    Object.keys(p.sizes).some((f) => !files.includes(f))
  ) {
    rmSync(staging, { recursive: true, force: true });
    ensureDir(staging);
    return fresh;
  }
  for (const f of files) {
    if (p.sizes[f] === undefined) unlinkSync(join(staging, f));
    else if (statSync(join(staging, f)).size > p.sizes[f]!) truncateSync(join(staging, f), p.sizes[f]);
  }
  return p;
}

function handleLine(st: Staging, text: string, offset: number): void {
  if (text.trim() === '') return;
  const r = parseRecord(text);
  st.p.records++;
  if (isDamaged(r)) return st.damaged(offset, r.why, text);
  if (r.type === 'op') st.op(r, text);
  else if (r.type === 'outcome' || r.type === 'resolution') st.later(r, text);
  else st.damaged(offset, `not a journal record (${r.type})`, text);
}

/** Reads the old file from the checkpoint in chunks, line by line. */
function importLines(legacy: string, st: Staging, progress: (done: number, total: number) => void): void {
  const fd = openSync(legacy, 'r');
  try {
    const total = statSync(legacy).size;
    let pos = st.p.offset;
    let rest = Buffer.alloc(0);
    const buf = Buffer.alloc(CHUNK);
    for (;;) {
      const n = readSync(fd, buf, 0, CHUNK, pos + rest.length);
      const data = rest.length ? Buffer.concat([rest, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (let nl = data.indexOf(0x0a); nl >= 0; nl = data.indexOf(0x0a, start)) {
        handleLine(st, data.toString('utf8', start, nl), pos + start);
        start = nl + 1;
      }
      pos += start;
      rest = Buffer.from(data.subarray(start));
      if (st.buffered > FLUSH_BYTES) st.flush(pos);
      progress(pos, total);
      if (n === 0) break;
    }
    if (rest.length) handleLine(st, rest.toString('utf8'), pos); // a last line without its newline
    st.flush(total);
  } finally {
    closeSync(fd);
  }
}

/** Outcomes whose op was read long before: placed through the staging id index. */
function placeLate(st: Staging): void {
  const file = join(st.root, 'late.ndjson');
  if (!existsSync(file)) return;
  const store = new JournalStore(st.root);
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (!text) continue;
    const r = parseRecord(text) as RawRecord;
    const hit = store.idLookup(r.id).found.find((x) => x.id === r.id);
    if (!hit) {
      st.damaged(-1, 'an outcome of an operation the file does not hold', text);
      continue;
    }
    const line = encodeLine(r);
    st.add(keyBucketFile(st.root, hit.key_bucket), line);
    st.add(segmentFile(st.root, hit.time), line);
    const op = store.bucketByName(hit.key_bucket).records.find((x) => x.type === 'op' && x.id === r.id);
    st.unknown(
      r.id,
      r.type === 'outcome' && r.outcome === 'unknown',
      (op?.idempotency_key as string | undefined) ?? '',
    );
  }
  st.flush(st.p.offset);
  unlinkSync(file);
  delete st.p.sizes['late.ndjson'];
}

/** Unresolved markers for the operations still unknown once their whole history is in. */
function writeMarkers(st: Staging, unknownOf: (root: string, id: string, key: string) => string | undefined): void {
  st.flush(st.p.offset);
  for (const [id, key] of st.p.unknown) {
    const time = unknownOf(st.root, id, key);
    if (time !== undefined) {
      ensureDir(join(st.root, 'unresolved'));
      writeFileSync(markerFile(st.root, id), JSON.stringify({ key, time }) + '\n', { mode: 0o600 });
    }
  }
}

function syncAll(root: string): void {
  for (const f of walk(root)) {
    const fd = openSync(join(root, f), 'r+');
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** Moves the complete staging folder into place (a rename; or appended file by file to a journal already there). */
function install(staging: string, dir: string, stamp: string): void {
  rmSync(join(staging, 'progress.json'), { force: true });
  if (!existsSync(dir)) {
    writeFileSync(join(staging, TAKEN), stamp, { mode: 0o600 });
    return renameSync(staging, dir);
  }
  for (const f of walk(staging)) {
    ensureDir(dirname(join(dir, f)));
    appendFileSync(join(dir, f), readFileSync(join(staging, f)), { mode: 0o600 });
  }
  writeFileSync(join(dir, TAKEN), stamp, { mode: 0o600 }); // only once every record is in
  rmSync(staging, { recursive: true, force: true });
}

/**
 * The journal keeps the identity (device, inode, size, modification time) of the old file it took
 * over: a takeover killed after moving the journal into place, before removing the old file, is
 * then finished by removing it, not made a second time (every record would be there twice).
 */
const TAKEN = 'taken-over';
const identityOf = (file: string): string => {
  const st = statSync(file);
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
};
function alreadyTaken(legacy: string, dir: string): boolean {
  try {
    return readFileSync(join(dir, TAKEN), 'utf8') === identityOf(legacy);
  } catch {
    return false;
  }
}

export interface TakeoverDeps {
  /** the time of an operation whose outcome is still unknown once its key's whole history is staged, else undefined */
  unknownKey: (root: string, id: string, key: string) => string | undefined;
  note?: (line: string) => void;
}

/** Takes over `legacy` into `dir` when it exists (once: other processes wait for the one doing it). */
export function takeOverIfNeeded(legacy: string, dir: string, deps: TakeoverDeps): void {
  if (!existsSync(legacy)) return;
  const lock = takeoverLock(`${dir}.takeover.lock`, deps.note);
  try {
    if (!existsSync(legacy)) return; // another process finished it meanwhile
    if (alreadyTaken(legacy, dir)) return unlinkSync(legacy);
    const staging = `${dir}.importing`;
    const started = Date.now();
    const resumed = existsSync(join(staging, 'progress.json'));
    const st = new Staging(staging, resume(staging));
    st.loadUnknown();
    let told = 0;
    const progress = (done: number, total: number): void => {
      lock.touch(); // the lock is worked on (what tells it from a stale one where a process's start cannot be read)
      const elapsed = Date.now() - started;
      if (elapsed < 1000 || elapsed - told < 2000) return;
      told = elapsed;
      deps.note?.(
        `Taking over ${legacy} into ${dir}${resumed ? ' (resumed)' : ''}: ${Math.floor((done / Math.max(total, 1)) * 100)}% of ${(total / 1048576).toFixed(0)} MiB, ${st.p.records} records, ${(elapsed / 1000).toFixed(0)} s`,
      );
    };
    importLines(legacy, st, progress);
    placeLate(st);
    writeMarkers(st, deps.unknownKey);
    syncAll(staging);
    install(staging, dir, identityOf(legacy));
    unlinkSync(legacy); // only now: the journal holds every record of it
    const damaged = st.p.damaged
      ? `; ${st.p.damaged} unreadable, kept in ${join(dir, 'damaged.ndjson')} (see \`cardctl ops repair\`)`
      : '';
    if (Date.now() - started >= 1000 || st.p.damaged)
      deps.note?.(
        `Took over ${legacy}: ${st.p.records} records into ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s${damaged}.`,
      );
  } finally {
    lock.release();
  }
}
