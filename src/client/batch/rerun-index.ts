// A `--batch` rerun's verdicts, one per row, found by one pass over the journal per batch
// (src/client/batch/rerun-pass.ts) and kept in a private slot file (src/client/batch/slot-file.ts):
// the rows then read their region's slots once, so memory does not grow with the batch or the
// journal. A large pass runs in two threads, which share out the key buckets as they go.
// A slot is only a shortcut: a row with nothing journaled, or whose key's history the slot
// cannot hold, or whose body is not the one the verdict was made for, goes the ordinary way.
import { Worker } from 'node:worker_threads';
import { statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { keyBucketFile, keyBucketName } from '../journal-store/layout.js';
import type { Journal } from '../journal.js';
import { bucketCounter, passOver, type PassJob, type RerunTarget } from './rerun-pass.js';
import type { DigestShare } from './digests.js';
import { legacyKey, rowKey } from './row-keys.js';
import { SLOT_BYTES, decodeSlot, type Slot } from './rerun-slots.js';
import { REGION_ROWS, SlotFile } from './slot-file.js';

export type { RerunTarget } from './rerun-pass.js';

/** Number of key buckets (keyBucketName: 3 hex digits). */
const BUCKETS = 4096;
/** Below this many bytes of key buckets to read (some 7,000 operations), a second thread costs more to start (some 40 ms) than it saves. */
const WORKER_MIN_BYTES = 4 << 20;

/** Threads for the pass: 1, 2, or (undefined) 2 when the machine has two cores and the buckets hold enough to read. */
export type PassThreads = 1 | 2 | undefined;

/** What the pass read: key buckets, and in how many threads (`--verbose` says it). */
export interface PassStats {
  buckets: number;
  threads: number;
  /** why the second thread failed, when it did (the pass was then made again, whole, in the main thread) */
  workerFailed?: string;
}

/** What the pass needs of the batch: its keys (found in its digests) and the version before's keys. */
export interface RerunBatch {
  keyPrefix: string;
  legacyPrefix: string;
  total: number;
  digests: DigestShare;
  /** the keys' suffixes of a small batch (only their buckets are read); undefined: every bucket on disk */
  keySuffixes?: readonly string[];
}

export class RerunIndex {
  private constructor(
    private readonly slots: SlotFile | undefined,
    /** the legacy keys' verdicts; undefined when the journal holds none of them */
    private readonly legacy: SlotFile | undefined,
    readonly stats: PassStats = { buckets: 0, threads: 0 },
  ) {}

  /** An index that knows nothing (every row goes the ordinary way). */
  static empty(): RerunIndex {
    return new RerunIndex(undefined, undefined);
  }

  /** The pass: reads each key bucket the batch's keys can be in, once (in two threads when there are many). */
  static async build(
    journal: Journal,
    opts: RerunBatch & { target: RerunTarget; nowMs: number; threads?: PassThreads },
  ): Promise<RerunIndex> {
    const dir = journal.readyForPass();
    const existing = journal.keyBuckets();
    if (existing.length === 0 || opts.total === 0) return RerunIndex.empty();
    const buckets = bucketsOf(opts, existing);
    const made = (): { job: PassJob; slots: SlotFile; legacy: SlotFile } => {
      const slots = SlotFile.create(opts.total);
      const legacy = SlotFile.create(opts.total);
      const { keyPrefix, legacyPrefix, total, digests, target, nowMs } = opts;
      return {
        slots,
        legacy,
        job: {
          dir,
          buckets,
          next: bucketCounter(),
          keyPrefix,
          legacyPrefix,
          total,
          digests,
          legacy: legacy.share(),
          target,
          nowMs,
        },
      };
    };
    const first = made();
    const two =
      opts.threads === undefined ? availableParallelism() > 1 && worthAThread(dir, buckets) : opts.threads === 2;
    const helper = two ? startPassWorker(first.job, first.slots) : undefined;
    let workerFailed: string;
    try {
      passOver(first.job, first.slots);
      const ended = helper ? await helper.done : true;
      if (ended === true) return RerunIndex.of(first, { buckets: buckets.length, threads: helper ? 2 : 1 });
      workerFailed = ended;
    } catch (err) {
      await helper?.stop(); // never close a descriptor another thread may still write to
      first.slots.close();
      first.legacy.close();
      throw err;
    }
    // the worker failed: the buckets it took may be partly written, so the pass is made again, whole, here
    first.slots.close();
    first.legacy.close();
    const alone = made();
    try {
      passOver(alone.job, alone.slots);
    } catch (err) {
      alone.slots.close();
      alone.legacy.close();
      throw err;
    }
    return RerunIndex.of(alone, { buckets: buckets.length, threads: 1, workerFailed });
  }

  private static of(made: { slots: SlotFile; legacy: SlotFile }, stats: PassStats): RerunIndex {
    if (made.legacy.count() > 0) return new RerunIndex(made.slots, made.legacy, stats);
    made.legacy.close();
    return new RerunIndex(made.slots, undefined, stats);
  }

  /** Rows whose own key got a verdict (an answer, or "read its history"). */
  verdicts(): number {
    return this.slots?.count() ?? 0;
  }

  /** Whether the journal holds any of the version before's keys for this batch. */
  get hasLegacy(): boolean {
    return this.legacy !== undefined;
  }

  /** The slot of each row's key, read at `nowMs` (rows asked in ascending order read each region of the file once). */
  read(nowMs: number): (row: number, key: string) => Slot {
    return slotsOf(this.slots, nowMs);
  }

  /** The slot of each row's legacy key, as read(). */
  readLegacy(nowMs: number): (row: number, key: string) => Slot {
    return slotsOf(this.legacy, nowMs);
  }

  close(): void {
    this.slots?.close();
    this.legacy?.close();
  }
}

const NONE: Slot = { kind: 'none' };

function slotsOf(file: SlotFile | undefined, nowMs: number): (row: number, key: string) => Slot {
  if (file === undefined) return () => NONE;
  return (row, key) =>
    decodeSlot(file.region(Math.floor((row - 1) / REGION_ROWS)), ((row - 1) % REGION_ROWS) * SLOT_BYTES, key, nowMs);
}

/**
 * The worker's module: compiled beside this one (dist/client/batch/rerun-pass-worker.js). Run
 * from the TypeScript sources (the test runner), the worker is taken from the build.
 */
function passWorkerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts')
    ? new URL('../../../dist/client/batch/rerun-pass-worker.js', here)
    : new URL('./rerun-pass-worker.js', here);
}

/**
 * Runs `job` in a worker thread writing to `slots` (undefined when no worker can start).
 * `done`: true once the worker's slots are written (it writes nothing after), else why it failed, once it stopped.
 */
function startPassWorker(
  job: PassJob,
  slots: SlotFile,
): { done: Promise<true | string>; stop: () => Promise<unknown> } | undefined {
  let worker: Worker;
  try {
    // execArgv: [] so that flags meant for the main program do not reach it. A young generation
    // of 4 MiB, not V8's default of up to 32: the worker's records live one bucket long, and the
    // default added some 25 MiB to a million-row rerun's peak (taking it past 150 MiB)
    worker = new Worker(passWorkerUrl(), {
      workerData: { job, share: slots.share() },
      execArgv: [],
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
  } catch {
    return undefined;
  }
  const done = new Promise<true | string>((resolve) => {
    let why = 'it stopped before the end';
    worker.once('message', (m) => resolve(m === 'done' || 'it sent an unexpected message')); // posted once every slot it found is written
    worker.once(
      'error',
      (err) => void (why = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200)),
    ); // the exit that follows ends it
    worker.once('exit', (code) => resolve(`${why} (exit ${code})`)); // no effect once resolved
  });
  return { done, stop: () => worker.terminate() };
}

/** Whether the buckets hold enough to read for a second thread to pay for its start. */
function worthAThread(dir: string, buckets: readonly string[]): boolean {
  let bytes = 0;
  for (const b of buckets) {
    try {
      bytes += statSync(keyBucketFile(dir, b)).size;
    } catch {
      // gone since it was listed (a repair): nothing to read there
    }
    if (bytes >= WORKER_MIN_BYTES) return true;
  }
  return false;
}

/** The buckets to read: those on disk that one of the batch's keys (or legacy keys) hashes to (every one on disk, for a batch of more rows than that takes to find). */
function bucketsOf(batch: RerunBatch, existing: readonly string[]): string[] {
  if (batch.keySuffixes === undefined || batch.total > 8 * BUCKETS) return [...existing];
  const needed = new Set<string>();
  for (const suffix of batch.keySuffixes) {
    if (needed.size >= BUCKETS) break;
    needed.add(keyBucketName(rowKey(batch.keyPrefix, suffix)));
  }
  for (let row = 1; row <= batch.total && needed.size < BUCKETS; row++)
    needed.add(keyBucketName(legacyKey(batch.legacyPrefix, row)));
  return existing.filter((b) => needed.has(b));
}
