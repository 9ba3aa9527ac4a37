// The takeover's side of its reader thread (takeover-reader.ts, a worker thread): starts it on the
// old journals and gives each batch it reads, in the order read, to `each` (which writes its rows),
// one at a time; tells the thread each batch taken, so that it reads at most a few batches ahead.
// A failure of the thread (a file it cannot read) is thrown here; a failure of `each` stops the
// thread. The single executable runs the thread from its own bundled text (scripts/build-binary.mjs).
import { on } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { SqlValue } from './sql.js';

/** What the thread is given: the old journals, whether a record read twice is given once, and the count of batches handed over and not yet written (an Int32Array's first element, shared). */
export interface ReaderJob {
  from: string[];
  once: boolean;
  waiting: SharedArrayBuffer;
}

/** The thread's last message: every record was handed over. */
export const READ_ALL = 'read all';

/** The thread's script: beside this module in dist/ (from the sources, as the tests import them, the built one). */
function readerUrl(): URL {
  const here = import.meta.url;
  return here.endsWith('.ts')
    ? new URL('../../../dist/client/journal-db/takeover-reader.js', here)
    : new URL('./takeover-reader.js', here);
}

/** Reads the old journals `from` in the reader thread (`once`: a record read twice given once), each batch given to `each`. */
export async function readInThread(
  from: readonly string[],
  once: boolean,
  each: (batch: SqlValue[]) => void,
): Promise<void> {
  const job: ReaderJob = { from: [...from], once, waiting: new SharedArrayBuffer(4) };
  const waiting = new Int32Array(job.waiting);
  const worker = new Worker(readerUrl(), { workerData: job, execArgv: [] });
  try {
    for await (const [message] of on(worker, 'message', { close: ['exit'] })) {
      if (message === READ_ALL) return;
      each(message as SqlValue[]);
      Atomics.sub(waiting, 0, 1);
      Atomics.notify(waiting, 0);
    }
    throw new Error('the takeover reader thread stopped before it read every old journal');
  } finally {
    Atomics.store(waiting, 0, 0);
    Atomics.notify(waiting, 0);
    await worker.terminate();
  }
}
