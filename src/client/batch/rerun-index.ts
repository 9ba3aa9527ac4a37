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

export class RerunIndex {
  private constructor(
    private readonly slots: SlotFile | undefined,
    private readonly keyPrefix: string,
    readonly stats: PassStats = { buckets: 0, threads: 0 },
  ) {}

  /** An index that knows nothing (every row goes the ordinary way). */
  static empty(keyPrefix: string): RerunIndex {
    return new RerunIndex(undefined, keyPrefix);
  }

  /** The pass: reads each key bucket the batch's keys can be in, once (in two threads when there are many). */
  static async build(journal: Journal, opts: { keyPrefix: string; total: number; target: RerunTarget; nowMs: number; threads?: PassThreads }): Promise<RerunIndex> {
    const dir = journal.readyForPass();
    const existing = journal.keyBuckets();
    if (existing.length === 0 || opts.total === 0) return RerunIndex.empty(opts.keyPrefix);
    const buckets = bucketsOf(opts.keyPrefix, opts.total, existing);
    const job = (): PassJob => ({ dir, buckets, next: bucketCounter(), keyPrefix: opts.keyPrefix, total: opts.total, target: opts.target, nowMs: opts.nowMs });
    const shared = job();
    const slots = SlotFile.create(opts.total);
    const two = opts.threads === undefined ? availableParallelism() > 1 && worthAThread(dir, buckets) : opts.threads === 2;
    const helper = two ? startPassWorker(shared, slots) : undefined;
    let workerFailed: string;
    try {
      passOver(shared, slots);
      const ended = helper ? await helper.done : true;
      if (ended === true) return new RerunIndex(slots, opts.keyPrefix, { buckets: buckets.length, threads: helper ? 2 : 1 });
      workerFailed = ended;
    } catch (err) {
      await helper?.stop(); // never close a descriptor another thread may still write to
      slots.close();
      throw err;
    }
    // the worker failed: the buckets it took may be partly written, so the pass is made again, whole, here
    slots.close();
    const alone = SlotFile.create(opts.total);
    try {
      passOver(job(), alone);
    } catch (err) {
      alone.close();
      throw err;
    }
    return new RerunIndex(alone, opts.keyPrefix, { buckets: buckets.length, threads: 1, workerFailed });
  }

  /** The slot of each row, read at `nowMs` (rows asked in ascending order read each region of the file once). */
  read(nowMs: number): (row: number) => Slot {
    const none: Slot = { kind: 'none' };
    const file = this.slots;
    if (file === undefined) return () => none;
    return (row) => {
      const region = Math.floor((row - 1) / REGION_ROWS);
      return decodeSlot(file.region(region), ((row - 1) % REGION_ROWS) * SLOT_BYTES, `${this.keyPrefix}-${row}`, nowMs);
    };
  }

  close(): void {
    this.slots?.close();
  }
}

/**
 * The worker's module: compiled beside this one (dist/client/batch/rerun-pass-worker.js). Run
 * from the TypeScript sources (the test runner), the worker is taken from the build.
 */
function passWorkerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts') ? new URL('../../../dist/client/batch/rerun-pass-worker.js', here) : new URL('./rerun-pass-worker.js', here);
}

/**
 * Runs `job` in a worker thread writing to `slots` (undefined when no worker can start).
 * `done`: true once the worker's slots are written (it writes nothing after), else why it failed, once it stopped.
 */
function startPassWorker(job: PassJob, slots: SlotFile): { done: Promise<true | string>; stop: () => Promise<unknown> } | undefined {
  let worker: Worker;
  try {
    // execArgv: [] so that flags meant for the main program do not reach it. A young generation
    // of 4 MiB, not V8's default of up to 32: the worker's records live one bucket long, and the
    // default added some 25 MiB to a million-row rerun's peak (taking it past 150 MiB)
    worker = new Worker(passWorkerUrl(), { workerData: { job, share: slots.share() }, execArgv: [], resourceLimits: { maxYoungGenerationSizeMb: 4 } });
  } catch {
    return undefined;
  }
  const done = new Promise<true | string>((resolve) => {
    let why = 'it stopped before the end';
    worker.once('message', (m) => resolve(m === 'done' || 'it sent an unexpected message')); // posted once every slot it found is written
    worker.once('error', (err) => void (why = (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 200))); // the exit that follows ends it
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

/** The buckets to read: those on disk that one of the batch's keys hashes to (every one on disk, for a batch of more rows than that takes to find). */
function bucketsOf(keyPrefix: string, total: number, existing: readonly string[]): string[] {
  if (total > 8 * BUCKETS) return [...existing];
  const needed = new Set<string>();
  for (let row = 1; row <= total && needed.size < BUCKETS; row++) needed.add(keyBucketName(`${keyPrefix}-${row}`));
  return existing.filter((b) => needed.has(b));
}
