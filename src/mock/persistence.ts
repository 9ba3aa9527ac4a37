// Durable state for `--state FILE`: a base file (the whole state) plus a journal of changes
// (`FILE.journal.N`, one checksummed line per saved batch; the bytes: src/mock/state-format.ts). A change is saved by appending the
// records it touched to the journal and fsyncing it; concurrent changes share one write and one
// fsync (group commit). When the journal outgrows the base, a new base is written in small
// slices between requests (compaction) and the older journal is deleted. Loading reads the base
// and replays the journals after it; what a crash leaves at a journal's end (never acknowledged)
// is ignored, and any other damage refuses the start with the files untouched (or, with
// `recover`, salvages every batch before it and keeps the damaged files aside).
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeSync,
  chmodSync,
  statSync,
} from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { basename, dirname, join } from 'node:path';
import { KEYED_COLLECTIONS } from './tracker.js';
import { recordProblem } from './state-schemas.js';
import type { MockState } from './state.js';
import { applyBatches, UnknownChangeError, type Op } from './replay.js';
import type { CompactionJob } from './compaction-worker.js';
import {
  JOURNAL_HEADER,
  baseText,
  describeDamage,
  journalLooksLikeFormat2,
  looksLikeFormat2,
  readBase,
  readJournal,
  readJournalV1,
  recordLine,
  type Damage,
} from './state-format.js';

export type { Op } from './replay.js';

export class StateFileError extends Error {}

/** Decided: the journal is compacted once it is larger than the base and than this. */
export const MIN_COMPACTION_BYTES = 8 * 1024 * 1024;
/** Journal writes running at once; batches arriving meanwhile share the next write (group commit). */
const MAX_WRITES_IN_FLIGHT = 2;

/** Damage found at a known place: refused, the files untouched, `--recover` named. */
const damagedAt = (d: Damage): StateFileError =>
  new StateFileError(
    `the state file is damaged at ${describeDamage(d)}. Nothing was changed: the files are as they were. ` +
      'Start with `cardctl mock start --state FILE --recover` to keep every change saved before the damage (the damaged files are kept aside, renamed); or move it away or delete it to start afresh, or give --state another file.',
  );

const damaged = (file: string): StateFileError =>
  new StateFileError(
    `the state file ${file} cannot be loaded: it is not a complete cardctl mock state (cut short, damaged, or another kind of file). ` +
      'It was left as it is: move it away or delete it to start afresh, or give --state another file.',
  );

// ---- files: created exclusively, never through a symlink ----

const EXCL_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
let tmpCounter = 0;
const tmpName = (file: string): string => `${file}.${process.pid}.${++tmpCounter}.tmp`;

/** Opens a new temporary file beside `file`: O_EXCL|O_NOFOLLOW, so a name already taken (a planted symlink) is skipped, never followed. */
function openTemp(file: string): { fd: number; tmp: string } {
  for (let attempt = 0; ; attempt++) {
    const tmp = tmpName(file);
    try {
      return { fd: openSync(tmp, EXCL_FLAGS, 0o600), tmp };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 1000) throw err;
    }
  }
}

/** Creates the folder (and its missing parents) 0700 whatever the umask; an existing one is left alone. */
export function ensureStateFolder(dir: string): void {
  if (existsSync(dir)) return;
  const first = mkdirSync(dir, { recursive: true, mode: 0o700 });
  // mkdir applies the umask to its mode; set the mode of what was created explicitly
  if (first) {
    let d = dir;
    for (;;) {
      chmodSync(d, 0o700);
      if (d === first || dirname(d) === d) break;
      d = dirname(d);
    }
  }
}

function fsyncFolder(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some platforms cannot fsync a folder; the rename is still atomic
  }
}

/** Writes `data` to `file` atomically: exclusive temporary, fsync, rename, fsync of the folder. */
export function writeFileAtomic(file: string, data: string | Buffer): void {
  ensureStateFolder(dirname(file));
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  const { fd, tmp } = openTemp(file);
  try {
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, file);
  fsyncFolder(dirname(file));
}

/** Temporary files left by a process killed mid-write: never loaded, removed on the next start. */
function removeStaleTemporaries(file: string): void {
  const dir = dirname(file);
  const prefix = basename(file) + '.';
  try {
    for (const name of readdirSync(dir))
      if (name.startsWith(prefix) && /\.\d+\.\d+\.tmp$/.test(name)) rmSync(join(dir, name), { force: true });
  } catch {
    // an unreadable folder is reported by the load or the first save
  }
}

// ---- shape ----

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The field that holds a record's own id, per keyed collection (checked against the record's key on load). */
const ID_FIELD: Partial<Record<string, string>> = {
  merchants: 'id',
  keys: 'key_id',
  customers: 'id',
  cards: 'id',
  addresses: 'id',
  deposits: 'id',
  endpoints: 'id',
  deliveries: 'id',
};
/** Fields a record must hold as strings, per keyed collection. */
const STRING_FIELDS: Partial<Record<string, string[]>> = {
  keys: ['merchant_id', 'secret', 'mode'],
  customers: ['merchant_id'],
  cards: ['merchant_id', 'customer_id', 'status'],
  wallets: ['merchant_id'],
  addresses: ['merchant_id'],
  deposits: ['merchant_id'],
  endpoints: ['merchant_id', 'url'],
};

/**
 * Why `v` is not a state the mock can run on (each collection the right kind, each record an
 * object whose own id matches its key and whose references are strings, the default merchant
 * present), or null.
 */
export function stateShapeProblem(v: unknown): string | null {
  if (!isMockState(v)) return 'not a cardctl mock state (a collection or a field of the wrong kind)';
  const state = v as unknown as Record<string, Record<string, unknown>>;
  for (const c of KEYED_COLLECTIONS) {
    const coll = state[c];
    if (coll === undefined) continue;
    const idField = ID_FIELD[c];
    const strings = STRING_FIELDS[c] ?? [];
    for (const [key, rec] of Object.entries(coll)) {
      if (c === 'transactions') {
        if (!Array.isArray(rec) || !rec.every((t) => isPlainObject(t) && typeof t.id === 'string'))
          return `transactions of card ${JSON.stringify(key)}: not a list of transactions`;
        for (const t of rec) {
          const problem = recordProblem(c, t);
          if (problem)
            return `transactions of card ${JSON.stringify(key)}, ${JSON.stringify((t as { id: string }).id)}: ${problem}`;
        }
        continue;
      }
      if (!isPlainObject(rec)) return `${c} ${JSON.stringify(key)}: not a record`;
      if (idField && rec[idField] !== key)
        return `${c} ${JSON.stringify(key)}: its ${idField} is ${JSON.stringify(rec[idField])}, not its key`;
      for (const f of strings)
        if (typeof rec[f] !== 'string') return `${c} ${JSON.stringify(key)}: ${f} is not a string`;
      const problem = recordProblem(c, rec);
      if (problem) return `${c} ${JSON.stringify(key)}: ${problem}`;
    }
  }
  return null;
}

/** Enough of the shape that the mock can run on it (each collection the right kind, the default merchant present). */
export function isMockState(v: unknown): v is MockState {
  if (!isPlainObject(v)) return false;
  if (
    v.version !== 1 ||
    typeof v.seed !== 'number' ||
    typeof v.seq !== 'number' ||
    typeof v.default_merchant_id !== 'string'
  )
    return false;
  if (v.clock_offset_ms !== undefined && typeof v.clock_offset_ms !== 'number') return false;
  for (const c of KEYED_COLLECTIONS) {
    const coll = v[c];
    if (coll === undefined && c === 'deliveries') continue;
    if (!isPlainObject(coll) || !Object.values(coll).every((r) => typeof r === 'object' && r !== null)) return false;
  }
  for (const a of ['products', 'events', 'faults', 'networks', 'known_networks'])
    if (!Array.isArray(v[a])) return false;
  if (!(v.events as unknown[]).every((e) => isPlainObject(e) && typeof e.seq === 'number')) return false;
  if (typeof v.withdrawals !== 'number') return false;
  return isPlainObject((v.merchants as Record<string, unknown>)[v.default_merchant_id]);
}

const JOURNAL_RE = /\.journal\.(\d+)$/;
const journalFile = (file: string, gen: number): string => `${file}.journal.${gen}`;

function journalGenerations(file: string): number[] {
  const prefix = basename(file) + '.journal.';
  try {
    return readdirSync(dirname(file))
      .filter((n) => n.startsWith(prefix) && JOURNAL_RE.test(n))
      .map((n) => Number(JOURNAL_RE.exec(n)![1]))
      .sort((a, b) => a - b);
  } catch {
    return [];
  }
}

export interface LoadedState {
  state: MockState;
  /** the journal generation a new base should take (above every one on disk) */
  nextGeneration: number;
  /** `recover`: where the damaged files were moved, and what was salvaged */
  recovered?: { damage: string; keptAs: string[]; batches: number };
  /** the files were in format 1 (before checksums): the first base written migrates them */
  migrated?: boolean;
}

export interface LoadOptions {
  /** salvage every batch before the damage into a new base; the damaged files are renamed aside */
  recover?: boolean;
  /** for the new names of the files kept aside */
  now?: () => number;
}

function readFileBytes(file: string): Buffer {
  if (!statSync(file).isFile())
    throw new StateFileError(`the state file ${file} is not a regular file: give --state a file.`);
  return readFileSync(file);
}

/**
 * The state saved in `file` (base + journals), or null when there is none. Never writes, except
 * with `recover` after damage: then the damaged files are renamed aside (FILE.damaged-TIME...).
 */
export function loadDurableState(file: string, options: LoadOptions = {}): LoadedState | null {
  removeStaleTemporaries(file);
  const gens = journalGenerations(file);
  const nextGeneration = (gens.at(-1) ?? 0) + 1;
  if (!existsSync(file)) return null;
  const buf = readFileBytes(file);
  const v2 = looksLikeFormat2(buf);
  let parsed: unknown;
  if (v2) {
    const base = readBase(file, buf);
    if ('damage' in base) {
      // nothing can be salvaged without a base: refused, even with --recover
      throw damagedAt(base.damage);
    }
    parsed = JSON.parse(base.json);
  } else {
    try {
      parsed = JSON.parse(buf.toString('utf8'));
    } catch {
      throw damaged(file);
    }
  }
  if (!v2 && !isMockState(parsed)) throw damaged(file);
  const shape = stateShapeProblem(parsed);
  if (shape) throw damagedAt({ file, line: v2 ? 2 : 1, offset: v2 ? buf.indexOf(0x0a) + 1 : 0, why: shape });
  const base = parsed as MockState & { journal_generation?: number };
  const from = typeof base.journal_generation === 'number' ? base.journal_generation : Infinity;
  let state = base as unknown as Record<string, unknown>;
  let damage: Damage | null = null;
  let batchCount = 0;
  const journals = gens.filter((g) => g >= from).map((g) => journalFile(file, g));
  for (const path of journals) {
    const jbuf = readFileBytes(path);
    const read =
      v2 && journalLooksLikeFormat2(jbuf)
        ? readJournal(path, jbuf)
        : v2
          ? {
              batches: [],
              damage: { file: path, line: 1, offset: 0, why: 'not a cardctl mock journal header (format 2)' },
              goodBytes: 0,
            }
          : readJournalV1(path, jbuf);
    try {
      state = applyBatches(state, read.batches);
    } catch (err) {
      if (!(err instanceof UnknownChangeError)) throw err;
      damage = {
        file: path,
        line: 0,
        offset: 0,
        why: `${err.message} in batch ${(err as { index?: number }).index ?? '?'}`,
      };
      break;
    }
    batchCount += read.batches.length;
    if (read.damage) {
      damage = read.damage;
      break;
    }
  }
  if (damage && !options.recover) throw damagedAt(damage);
  delete state.journal_generation;
  const problem = stateShapeProblem(state);
  if (problem) {
    const last = journals.at(-1) ?? file;
    if (!options.recover || damage)
      throw damagedAt({ file: last, line: 0, offset: 0, why: `after replaying the journals: ${problem}` });
  }
  const loaded: LoadedState = {
    state: state as unknown as MockState,
    nextGeneration: Math.max(nextGeneration, Number.isFinite(from) ? from + 1 : 0),
    migrated: !v2,
  };
  if (damage)
    loaded.recovered = {
      damage: describeDamage(damage),
      keptAs: setAside(
        file,
        gens.map((g) => journalFile(file, g)),
        options.now ?? Date.now,
      ),
      batches: batchCount,
    };
  dropInFlight(loaded.state);
  return loaded;
}

/** Renames the base and its journals aside (never deletes them): FILE.damaged-TIME, FILE.journal.N.damaged-TIME. */
function setAside(file: string, journals: string[], now: () => number): string[] {
  const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-');
  const kept: string[] = [];
  for (const f of [file, ...journals]) {
    const to = `${f}.damaged-${stamp}`;
    renameSync(f, to);
    kept.push(to);
  }
  fsyncFolder(dirname(file));
  return kept;
}

/** An answer that was still in flight when the process died has no outcome to replay. */
export function dropInFlight(s: MockState): void {
  for (const [k, rec] of Object.entries(s.idempotency ?? {}))
    if (!rec.reply && !rec.async_card_id) delete s.idempotency[k];
}

/** The whole state as it is on disk in a state or snapshot file (no journal): for snapshots and `startMock({ snapshot })`. */
export function readStateFile(file: string): MockState {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw damaged(file);
  }
  if (!isMockState(parsed)) throw damaged(file);
  delete (parsed as { journal_generation?: number }).journal_generation;
  dropInFlight(parsed);
  return parsed;
}

// ---- the writer ----

interface Entry {
  /** journal generation; -1 for a barrier (no data) */
  gen: number;
  data: Buffer;
  state: 'queued' | 'writing' | 'written' | 'failed';
  error: Error | null;
  done: (err: Error | null) => void;
}

/**
 * The compaction worker's module: compiled beside this one (dist/mock/compaction-worker.js). Run
 * from the TypeScript sources (the test runner), this file is persistence.ts and the worker is
 * taken from the build.
 */
function compactionWorkerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts')
    ? new URL('../../dist/mock/compaction-worker.js', here)
    : new URL('./compaction-worker.js', here);
}

/**
 * Folds journals into a new base in a worker thread (parse, verify, replay, serialize, write,
 * fsync): the event loop answering requests does none of that work. Resolves with the bytes written.
 */
function foldInWorker(job: CompactionJob): Promise<number> {
  return new Promise((resolve, reject) => {
    // execArgv: [] so that flags meant for the main program (e.g. --input-type) do not reach it
    const worker = new Worker(compactionWorkerUrl(), { workerData: job, execArgv: [] });
    let bytes: number | null = null;
    worker.once('message', (n: number) => (bytes = n));
    worker.once('error', reject);
    worker.once('exit', (code) =>
      bytes !== null ? resolve(bytes) : reject(new Error(`the compaction worker stopped (exit code ${code})`)),
    );
  });
}

export class DurableStore {
  private gen: number;
  private fd: FileHandle | null = null;
  private fdGen = -1;
  private size = 0;
  /** batches not yet acknowledged, in order */
  private readonly entries: Entry[] = [];
  private opening = false;
  private broken = false;
  private inFlight = 0;
  private compacting = false;
  private compaction: Promise<void> = Promise.resolve();
  /** the journal generation the base on disk starts from */
  private baseGen: number;
  private baseBytes = 0;
  private closed = false;
  /** journal bytes written since the last base */
  private journalBytes = 0;

  /** Writes the base for `state` (synchronously: at start) under a new journal generation. */
  constructor(
    readonly file: string,
    state: MockState,
    generation: number,
    /** fold the journal into a new base past this many bytes; default: past the base's size and MIN_COMPACTION_BYTES */
    private readonly compactAfterBytes?: number,
  ) {
    this.gen = this.baseGen = generation;
    const text = baseText(JSON.stringify({ ...state, journal_generation: generation }));
    writeFileAtomic(file, text);
    this.baseBytes = text.length;
    this.removeJournalsBelow(generation);
  }

  private removeJournalsBelow(gen: number): void {
    for (const g of journalGenerations(this.file)) if (g < gen) rmSync(journalFile(this.file, g), { force: true });
  }

  /** True after a failed write: the next batch must hold the whole state (and starts a new journal). */
  get needsFull(): boolean {
    return this.broken;
  }

  /**
   * Writes one batch (a JSON line) at once, even while others are being written (each at its own
   * offset of the journal, opened O_DSYNC: a write returns once it is on disk). Batches are
   * acknowledged in order: one resolves only once it and every batch before it are on disk. So a
   * crash can leave a hole only where nothing after it was acknowledged, and loading stops there.
   * `full`: the batch holds the whole state (after a reset, a restore or a failed write).
   */
  append(ops: Op[], full = false): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the mock is closing'));
    if (this.broken && !full)
      return Promise.reject(new Error('an earlier write failed; the whole state is written next'));
    if (this.broken) {
      // the journal may end with a hole: the whole state goes to a new one
      this.broken = false;
      if (this.size > 0 || this.fdGen !== this.gen) this.gen++;
    }
    const line = recordLine(
      '[' + ops.map((op) => (op[0] === 'allj' ? `["all",${op[1]}]` : JSON.stringify(op))).join(',') + ']',
    );
    const data = Buffer.from(line, 'utf8');
    return new Promise((resolve, reject) => {
      this.entries.push({
        gen: this.gen,
        data,
        state: 'queued',
        error: null,
        done: (err) => (err ? reject(err) : resolve()),
      });
      this.kick();
    });
  }

  /** Resolves once every batch appended so far is on disk (or failed). */
  barrier(): Promise<void> {
    if (this.entries.length === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.entries.push({ gen: -1, data: Buffer.alloc(0), state: 'written', error: null, done: () => resolve() });
      this.settle();
    });
  }

  /** Starts the write of every queued batch that can start now. */
  private kick(): void {
    for (let i = 0; i < this.entries.length; i++) {
      const e = this.entries[i]!;
      if (e.state !== 'queued') continue;
      if (e.gen !== this.fdGen) {
        // a new journal begins only once everything before it is settled (no hole may precede it)
        if (i !== 0 || this.opening) return;
        this.opening = true;
        this.openJournal(e.gen).then(
          () => {
            this.opening = false;
            this.kick();
          },
          (err: Error) => {
            this.opening = false;
            e.state = 'failed';
            e.error = err;
            this.settle();
          },
        );
        return;
      }
      if (this.inFlight >= MAX_WRITES_IN_FLIGHT) return;
      // group commit: every batch queued behind this one (same journal) goes in the same write
      const group: Entry[] = [];
      for (let j = i; j < this.entries.length; j++) {
        const next = this.entries[j]!;
        if (next.state !== 'queued' || next.gen !== this.fdGen) break;
        group.push(next);
      }
      this.write(group);
      i += group.length - 1;
    }
  }

  /** One write of a group of batches at the next offset of the journal. */
  private write(group: Entry[]): void {
    const data = group.length === 1 ? group[0]!.data : Buffer.concat(group.map((e) => e.data));
    const offset = this.size;
    this.size += data.length;
    this.journalBytes += data.length;
    for (const e of group) e.state = 'writing';
    this.inFlight++;
    const fd = this.fd!;
    void (async () => {
      let error: Error | null = null;
      try {
        let off = 0;
        while (off < data.length) off += (await fd.write(data, off, data.length - off, offset + off)).bytesWritten;
      } catch (err) {
        error = err as Error;
      }
      this.inFlight--;
      for (const e of group) {
        e.state = error ? 'failed' : 'written';
        e.error = error;
      }
      this.settle();
    })();
  }

  /** Acknowledges, in order, the batches on disk; a failure fails every batch after it too. */
  private settle(): void {
    while (this.entries.length > 0) {
      const head = this.entries[0]!;
      if (head.state === 'written') {
        this.entries.shift();
        head.done(null);
      } else if (head.state === 'failed') {
        // nothing after a failed batch is acknowledged (it may follow a hole); the next batch
        // must hold the whole state, in a new journal
        this.broken = true;
        const failed = this.entries.splice(0);
        for (const e of failed) e.done(e.gen === -1 ? null : head.error);
      } else break;
    }
    // a batch for a new journal waits until everything before it settled
    if (this.entries.some((e) => e.state === 'queued')) this.kick();
  }

  private async openJournal(gen: number): Promise<void> {
    const next = await open(journalFile(this.file, gen), EXCL_FLAGS | (constants.O_DSYNC ?? 0), 0o600);
    // the header first (a crash before it ends leaves a prefix of it, read as an empty journal)
    const header = Buffer.from(JOURNAL_HEADER + '\n', 'latin1');
    await next.write(header, 0, header.length, 0);
    // the new journal's name is durable in the folder before anything in it counts
    fsyncFolder(dirname(this.file));
    const old = this.fd;
    this.fd = next;
    this.fdGen = gen;
    this.size = header.length;
    // writes still running on the old journal (after a failure) finish on their own handle
    if (old) setTimeout(() => void old.close().catch(() => {}), 1000).unref();
  }

  get wantsCompaction(): boolean {
    return (
      !this.compacting &&
      !this.closed &&
      this.journalBytes > (this.compactAfterBytes ?? Math.max(MIN_COMPACTION_BYTES, this.baseBytes))
    );
  }

  /**
   * A new base: batches from now on go to the next journal; once the older journals are all on
   * disk, a worker folds them into the base, and the result replaces the base (atomically). A
   * crash at any point leaves a base and journals that replay to the same state.
   */
  compact(): Promise<void> {
    if (this.compacting || this.closed) return this.compaction;
    this.compacting = true;
    const gen = ++this.gen;
    this.journalBytes = 0;
    let tmp = '';
    this.compaction = (async () => {
      try {
        const created = openTemp(this.file);
        closeSync(created.fd);
        tmp = created.tmp;
        await this.barrier();
        const journals = journalGenerations(this.file)
          .filter((g) => g >= this.baseGen && g < gen)
          .map((g) => journalFile(this.file, g));
        // the worker reopens the temporary file this thread created exclusively, never through a symlink
        const bytes = await foldInWorker({
          file: this.file,
          journals,
          generation: gen,
          tmp,
          flags: constants.O_WRONLY | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0),
        });
        await rename(tmp, this.file);
        fsyncFolder(dirname(this.file));
        this.baseGen = gen;
        this.baseBytes = bytes;
        this.removeJournalsBelow(gen);
      } catch (err) {
        if (tmp) await rm(tmp, { force: true }).catch(() => {});
        process.stderr.write(
          `cardctl mock: could not compact the state file ${this.file}: ${(err as Error).message} (the journal keeps every change)\n`,
        );
      } finally {
        this.compacting = false;
      }
    })();
    return this.compaction;
  }

  /** Waits for queued batches, then closes the journal. */
  async close(): Promise<void> {
    await this.compaction;
    await this.barrier();
    this.closed = true;
    await this.fd?.close().catch(() => {});
    this.fd = null;
  }
}
