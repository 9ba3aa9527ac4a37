// The takeover's reader thread (a worker thread, started by reader-thread.ts): reads the older file
// journals (old-records.ts: each line's checksum, JSON and shape checked, each record once) and
// hands the records over in batches (record-batches.ts), while the takeover's own thread writes
// the rows of the batches before: reading and decoding two million lines and writing them into
// SQLite, each most of a takeover's time, then overlap. At most AHEAD batches wait to be written
// (the thread waits for the writer beyond that): a fast reader holds a few MiB, not the whole file.
import { parentPort, workerData } from 'node:worker_threads';
import { readOldRecords } from './old-records.js';
import { BatchWriter } from './record-batches.js';
import { READ_ALL, type ReaderJob } from './reader-thread.js';

/** Records and unreadable lines a batch (about 150 KiB of text: a batch of 1,024 records, alive through several of V8's young collections, took a tenth longer). */
const BATCH = 256;
/** Batches handed over and not yet written, at most. */
const AHEAD = 8;
const job = workerData as ReaderJob;
const waiting = new Int32Array(job.waiting);
const batch = new BatchWriter();
const handOver = (): void => {
  for (let n = Atomics.load(waiting, 0); n >= AHEAD; n = Atomics.load(waiting, 0)) Atomics.wait(waiting, 0, n);
  Atomics.add(waiting, 0, 1);
  parentPort!.postMessage(batch.take());
};
readOldRecords(job.from, job.once, {
  record(r, text, crc) {
    batch.record(r, text, crc);
    if (batch.count >= BATCH) handOver();
  },
  unreadable(file, why, text) {
    batch.unreadable(file, why, text);
    if (batch.count >= BATCH) handOver();
  },
});
if (batch.count > 0) handOver();
parentPort!.postMessage(READ_ALL);
