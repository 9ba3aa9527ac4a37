// The second thread of a large `--batch` rerun's pass (started by RerunIndex.build,
// src/client/batch/rerun-index.ts): the same pass, taking key buckets from the counter it shares
// with the main thread, written to the same slot file. Posts `done` when its slots are all written.
import { parentPort, workerData } from 'node:worker_threads';
import { passOver, type PassJob } from './rerun-pass.js';
import { SlotFile, type SlotFileShare } from './slot-file.js';

const { job, share } = workerData as { job: PassJob; share: SlotFileShare };
passOver(job, SlotFile.attach(share));
parentPort!.postMessage('done');
