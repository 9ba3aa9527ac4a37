// The journal's folder: writes (each op record synced in its key bucket and its segment before
// the request leaves) and the reads the commands need, each touching only the files it must.
import {
  closeSync,
  existsSync,
  fstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { constants } from 'node:buffer';
import { join } from 'node:path';
import { CardctlError } from '../../errors.js';
import { appendLines, appendLinesDurably, ensureDir, readRecords } from './files.js';
import {
  checksumOkAt,
  decodeChunks,
  decodeText,
  isDamaged,
  lineBounds,
  parseRecord,
  type DamagedLine,
  type LineFilter,
  type RawRecord,
} from './lines.js';
import { fieldText, ID_LABEL, KEY_LABEL } from './key-spans.js';
import {
  ID_LINE_BYTES,
  idBucketFile,
  idRecord,
  idShard,
  keyBucketFile,
  keyBucketName,
  markerFile,
  segmentFile,
} from './layout.js';

/** Where an op's later records go: its key bucket and the segment of its time. */
export interface OpPlace {
  key: string;
  time: string;
}

export interface IdIndexRecord {
  id: string;
  time: string;
  key_bucket: string;
}

const listDir = (dir: string): string[] => {
  try {
    return readdirSync(dir).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw unreadable(dir, err);
  }
};

/**
 * A journal file or folder that cannot be read (a folder where a file should be, no permission):
 * said with its path and what to do, never Node's bare error. Anything else is passed on as it is.
 */
export function unreadable(path: string, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'EISDIR'
      ? 'a folder is where a file should be'
      : code === 'ENOTDIR' || code === 'EEXIST'
        ? 'a file is where a folder should be'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : undefined;
  if (!why) return err;
  return new CardctlError(
    `cannot read the operations journal's ${path} (${why}): what it records cannot be known, so a money operation whose key it may hold is not sent.`,
    {
      kind: 'usage', // exit 2, as a journal folder that cannot be written (state_folder_unwritable) and an unreadable profile store: the user can set it right
      code: 'journal_unreadable',
      hint: 'Make it what it was again (move what is in its place aside; files readable and writable by you), then run `cardctl ops repair` before any money command: it rebuilds a lost file from the second copy.',
    },
  );
}

/** `read()`, with an unreadable journal file said as such. */
function reading<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (err) {
    throw unreadable(path, err);
  }
}

export class JournalStore {
  constructor(readonly root: string) {}

  /** The op record, synced in its key bucket, then its segment (both before the request leaves); then its index line and unresolved marker. */
  writeOp(op: RawRecord & { idempotency_key: string; time: string }): void {
    const bucket = keyBucketName(op.idempotency_key);
    appendLines(keyBucketFile(this.root, bucket), [op], true);
    appendLines(segmentFile(this.root, op.time), [op], true);
    appendLines(idBucketFile(this.root, idShard(op.id)), [idRecord(op.id, op.time, bucket)], true);
    this.mark(op.id, op.idempotency_key, true, op.time);
  }

  /** An outcome or resolution, synced in the op's key bucket and segment. */
  writeAfter(rec: RawRecord, place: OpPlace): void {
    appendLines(keyBucketFile(this.root, keyBucketName(place.key)), [rec], true);
    appendLines(segmentFile(this.root, place.time), [rec], true);
  }

  /**
   * writeOp for a --batch, whose rows overlap: the three appends are synced at once (in libuv's
   * threadpool, sharing each file's sync with the other rows waiting on it) and all three are on
   * disk when this resolves, before the request leaves; then the unresolved marker.
   */
  async writeOpDurably(op: RawRecord & { idempotency_key: string; time: string }): Promise<void> {
    const bucket = keyBucketName(op.idempotency_key);
    await Promise.all([
      appendLinesDurably(keyBucketFile(this.root, bucket), [op]),
      appendLinesDurably(segmentFile(this.root, op.time), [op]),
      appendLinesDurably(idBucketFile(this.root, idShard(op.id)), [idRecord(op.id, op.time, bucket)]),
    ]);
    this.mark(op.id, op.idempotency_key, true, op.time);
  }

  /** writeAfter for a --batch: both copies synced at once; on disk when this resolves. */
  async writeAfterDurably(rec: RawRecord, place: OpPlace): Promise<void> {
    await Promise.all([
      appendLinesDurably(keyBucketFile(this.root, keyBucketName(place.key)), [rec]),
      appendLinesDurably(segmentFile(this.root, place.time), [rec]),
    ]);
  }

  /** Every readable record of the key's bucket and the damaged lines in it. */
  bucket(key: string): { records: RawRecord[]; damaged: DamagedLine[] } {
    return this.bucketByName(keyBucketName(key));
  }

  bucketByName(name: string): { records: RawRecord[]; damaged: DamagedLine[] } {
    const records: RawRecord[] = [];
    const damaged: DamagedLine[] = [];
    const buf = this.keyBucketBytes(name);
    // each line's checksum taken over its bytes, and only its JSON made a string (decodeLine's rules)
    const bounds = lineBounds(buf);
    for (let i = 0; i < bounds.length; i += 2) {
      const s = bounds[i]!;
      const end = bounds[i + 1]!;
      if (!checksumOkAt(buf, s, end))
        damaged.push({ damaged: true, why: 'checksum mismatch', text: buf.toString('utf8', s, end) });
      else {
        const r = parseRecord(buf.toString('utf8', s + 9, end));
        (isDamaged(r) ? damaged : records).push(r as never);
      }
    }
    return { records, damaged };
  }

  /**
   * The records of the wanted keys in one key bucket, parsing only their lines; undefined when
   * any line of the bucket fails its checksum or its record cannot be read. The map's keys are
   * the parsed records' own strings (a slice of the bucket's text would keep all of it alive).
   */
  bucketLinesFor(name: string, wanted: (key: string) => boolean): Map<string, RawRecord[]> | undefined {
    const buf = this.keyBucketBytes(name);
    const out = new Map<string, RawRecord[]>();
    const keyOf = new Map<string, string>(); // op id -> wanted key
    const bounds = lineBounds(buf);
    for (let i = 0; i < bounds.length; i += 2) {
      const line = buf.subarray(bounds[i]!, bounds[i + 1]!);
      if (!checksumOkAt(line, 0, line.length)) return undefined;
      const k = fieldText(line, KEY_LABEL);
      const isWanted = k !== undefined && wanted(k);
      if (!isWanted && (keyOf.size === 0 || !keyOf.has(fieldText(line, ID_LABEL) ?? ''))) continue;
      const rec = parseRecord(line.toString('utf8', 9));
      if (isDamaged(rec)) return undefined;
      let key: string | undefined;
      if (rec.type === 'op' || rec.type === 'compact') {
        if (!isWanted || typeof rec.idempotency_key !== 'string' || !wanted(rec.idempotency_key)) continue;
        key = rec.idempotency_key;
        keyOf.set(rec.id, key);
      } else key = keyOf.get(rec.id);
      if (key === undefined) continue;
      const list = out.get(key);
      if (list) list.push(rec);
      else out.set(key, [rec]);
    }
    return out;
  }

  /** A key bucket's bytes (none when it does not exist), in the reused buffer: valid until the next read, nothing read from it may keep a view of it. */
  keyBucketBytes(name: string): Buffer {
    try {
      return this.readWhole(keyBucketFile(this.root, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return Buffer.alloc(0);
      throw unreadable(keyBucketFile(this.root, name), err);
    }
  }

  /** The buffer keyBucketBytes reads into, grown as needed: a pass reads thousands of buckets, and a new buffer each (some 150 KB at a million operations) left the memory they churned with the allocator. */
  private readBuf = Buffer.alloc(0);

  /** A file's bytes, in the reused buffer (valid until the next call: nothing read from it may keep a view of it). */
  private readWhole(file: string): Buffer {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (this.readBuf.length < size) this.readBuf = Buffer.allocUnsafe(Math.max(size, this.readBuf.length * 2));
      let got = 0;
      while (got < size) {
        const n = readSync(fd, this.readBuf, got, size - got, got);
        if (n === 0) break;
        got += n;
      }
      return this.readBuf.subarray(0, got);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * How many operations the id index places in a key bucket. Read only for a bucket that holds
   * nothing (missing or empty): there it tells a bucket never written from one lost or emptied,
   * whose keys would otherwise look never sent. At a million operations every bucket exists, so
   * a money command pays for this only when one is actually gone.
   */
  indexedInBucket(name: string): number {
    const needle = Buffer.from(`"key_bucket":"${name}"`);
    let n = 0;
    for (const f of listDir(join(this.root, 'ids')).filter((x) => x.endsWith('.ndjson'))) {
      const file = join(this.root, 'ids', f);
      const buf = reading(file, () => readFileSync(file));
      for (let at = buf.indexOf(needle); at !== -1; at = buf.indexOf(needle, at + needle.length)) n++;
    }
    return n;
  }

  /** The key buckets that exist (their names). */
  bucketNames(): string[] {
    return listDir(join(this.root, 'keys'))
      .filter((f) => f.endsWith('.ndjson'))
      .map((f) => f.slice(0, -'.ndjson'.length));
  }

  /** Index lines whose id starts with `prefix` (`op_` included); a prefix under two characters reads every index file. */
  idLookup(prefix: string): { found: IdIndexRecord[]; damaged: DamagedLine[] } {
    const files =
      prefix.length >= 5
        ? [idBucketFile(this.root, idShard(prefix))]
        : listDir(join(this.root, 'ids'))
            .filter((f) => f.endsWith('.ndjson'))
            .map((f) => join(this.root, 'ids', f));
    const found: IdIndexRecord[] = [];
    const damaged: DamagedLine[] = [];
    for (const file of files) {
      for (const r of reading(file, () => readRecords(file))) {
        if (isDamaged(r)) damaged.push(r);
        else if (r.id.startsWith(prefix)) found.push(r as unknown as IdIndexRecord);
      }
    }
    return { found, damaged };
  }

  /** Segment files, oldest first. */
  segments(): string[] {
    const root = join(this.root, 'segments');
    return listDir(root)
      .filter((day) => /^\d{4}-\d\d-\d\d$/.test(day))
      .flatMap((day) =>
        listDir(join(root, day))
          .filter((h) => /^\d\d\.ndjson$/.test(h))
          .map((h) => join(root, day, h)),
      );
  }

  segmentRecords(file: string, keep?: LineFilter): Array<RawRecord | DamagedLine> {
    let size: number;
    try {
      size = statSync(file).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw unreadable(file, err);
    }
    // an hour is read whole: past the longest string V8 makes it cannot be (no key's rate limit
    // comes near: 600 operations a minute are 21 MiB an hour)
    if (size > constants.MAX_STRING_LENGTH) {
      throw new CardctlError(
        `the journal segment ${file} holds ${Math.round(size / 1048576)} MiB, one hour of operations: more than can be read at once.`,
        {
          kind: 'unexpected',
          code: 'journal_segment_too_large',
          hint: 'List the other hours with --since and --until; money commands are not affected (they read key buckets, not segments).',
        },
      );
    }
    if (!keep) return decodeText(reading(file, () => readFileSync(file, 'utf8')));
    const fd = reading(file, () => openSync(file, 'r'));
    try {
      return decodeChunks((into, at) => reading(file, () => readSync(fd, into, 0, into.length, at)), keep);
    } finally {
      closeSync(fd);
    }
  }

  /** Ids of the operations whose outcome is not known, with the key each was sent with and its time (null when its marker is unreadable). */
  markers(): Array<{ id: string; key: string | null; time: string | null }> {
    return listDir(join(this.root, 'unresolved')).map((id) => {
      try {
        const m = JSON.parse(readFileSync(markerFile(this.root, id), 'utf8')) as { key?: unknown; time?: unknown };
        return { id, key: typeof m.key === 'string' ? m.key : null, time: typeof m.time === 'string' ? m.time : null };
      } catch {
        return { id, key: null, time: null };
      }
    });
  }

  markerCount(): number {
    return listDir(join(this.root, 'unresolved')).length;
  }

  /** Sets or clears an operation's unresolved marker. */
  mark(id: string, key: string, unresolved: boolean, time?: string): void {
    const file = markerFile(this.root, id);
    if (unresolved) {
      if (existsSync(file)) return;
      ensureDir(join(this.root, 'unresolved'));
      writeFileSync(file, JSON.stringify({ key, time }) + '\n', { mode: 0o600 });
    } else {
      rmSync(file, { force: true });
    }
  }

  /** Operations recorded (from the index files' sizes: nothing is read). */
  opCount(): number {
    const dir = join(this.root, 'ids');
    return listDir(dir)
      .filter((f) => f.endsWith('.ndjson'))
      .reduce(
        (n, f) => n + (statSync(join(dir, f)).isFile() ? Math.floor(statSync(join(dir, f)).size / ID_LINE_BYTES) : 0),
        0,
      );
  }

  /** Bytes on disk under the journal folder. */
  bytes(): number {
    const walk = (dir: string): number =>
      listDir(dir).reduce((n, name) => {
        const p = join(dir, name);
        const st = statSync(p);
        if (st.isDirectory() && name.endsWith('.ndjson'))
          throw unreadable(p, Object.assign(new Error('EISDIR'), { code: 'EISDIR' })); // doctor says it
        return n + (st.isDirectory() ? walk(p) : st.size);
      }, 0);
    return walk(this.root);
  }
}
