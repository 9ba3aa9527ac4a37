// The compaction worker (a thread of its own, started by DurableStore.compact in
// src/mock/persistence.ts): folds the journals into a new base (read, verify, replay, serialize,
// write, fsync), so the thread answering requests does none of that work.
import { closeSync, fsyncSync, openSync, readFileSync, readlinkSync, writeSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { applyBatches } from './replay.js';
import { baseText, describeDamage, readBase, readJournal } from './state-format.js';

export interface CompactionJob {
  file: string;
  journals: string[];
  generation: number;
  /** the temporary file the main thread created exclusively; reopened with `flags` (never through a symlink) */
  tmp: string;
  flags: number;
}

function fold(job: CompactionJob): number {
  const read = readBase(job.file, readFileSync(job.file));
  if ('damage' in read) throw new Error(`the base is damaged: ${describeDamage(read.damage)}`);
  let state = JSON.parse(read.json) as Record<string, unknown>;
  for (const path of job.journals) {
    const j = readJournal(path, readFileSync(path));
    if (j.damage) throw new Error(`a journal is damaged: ${describeDamage(j.damage)}`);
    state = applyBatches(state, j.batches);
  }
  state.journal_generation = job.generation;
  const buf = Buffer.from(baseText(JSON.stringify(state)), 'utf8');
  const fd = openSync(job.tmp, job.flags, 0o600);
  try {
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return buf.length;
}

// the fold yields the CPU to the thread answering requests: lowest priority for this thread
// alone (on Linux a thread's id, read from /proc/thread-self, takes a nice value of its own)
try {
  setPriority(Number(readlinkSync('/proc/thread-self').split('/').pop()), 19);
} catch {
  // not Linux, or not allowed: the default priority
}
if (parentPort) parentPort.postMessage(fold(workerData as CompactionJob));
