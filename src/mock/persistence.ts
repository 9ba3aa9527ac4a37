// Atomic snapshots of the whole state: write a temporary file, fsync it, rename it over the
// target, fsync the folder. A crash (even SIGKILL) leaves either the old or the new snapshot.
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync, existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { MockState } from './state.js';

export class StateFileError extends Error {}

/** Temporary files left by a process killed mid-write: never loaded, removed on the next start. */
function removeStaleTemporaries(file: string): void {
  const dir = dirname(file);
  const prefix = basename(file) + '.';
  try {
    for (const name of readdirSync(dir)) if (name.startsWith(prefix) && /\.\d+\.\d+\.tmp$/.test(name)) rmSync(join(dir, name), { force: true });
  } catch {
    // an unreadable folder is reported by the load or the first save
  }
}

export function loadState(file: string): MockState | null {
  removeStaleTemporaries(file);
  if (!existsSync(file)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new StateFileError(`the state file ${file} is not valid JSON (${(err as Error).message}): move it away or delete it to start afresh`);
  }
  const s = parsed as Partial<MockState> | null;
  if (!s || s.version !== 1 || typeof s.seed !== 'number' || !s.merchants || !s.keys || !s.wallets) {
    throw new StateFileError(`the state file ${file} is not a cardctl mock state: move it away or delete it to start afresh`);
  }
  // an answer that was still in flight when the process died has no outcome to replay
  for (const [k, rec] of Object.entries(s.idempotency ?? {})) if (!rec.reply && !rec.async_card_id) delete s.idempotency![k];
  return s as MockState;
}

let tmpCounter = 0;

export function saveState(file: string, state: MockState): void {
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.${++tmpCounter}.tmp`;
  const data = Buffer.from(JSON.stringify(state), 'utf8');
  const fd = openSync(tmp, 'w', 0o600);
  try {
    let off = 0;
    while (off < data.length) off += writeSync(fd, data, off, data.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  try {
    const dfd = openSync(dir, 'r');
    try {
      fsyncSync(dfd);
    } finally {
      closeSync(dfd);
    }
  } catch {
    // some platforms cannot fsync a folder; the rename is still atomic
  }
}
