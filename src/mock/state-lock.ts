// The exclusive lock on a `--state` file: `FILE.lock`, created with O_EXCL, holding the pid and a
// random token of the mock that owns the file. A second mock is refused at once, naming that pid.
// A lock whose pid is no longer running (a mock killed with SIGKILL) is taken over: it is renamed
// to a name of this process's own (only one process's rename of it can succeed), its content
// checked to be the stale lock read before (else it is put back: another mock won the race),
// then the lock is created again with O_EXCL.
import { randomBytes } from 'node:crypto';
import { closeSync, constants, linkSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { processRuns } from '../process-runs.js';
import { StateFileError, ensureStateFolder } from './persistence.js';

export interface StateLock {
  file: string;
  /** removes the lock if it is still this process's (idempotent) */
  release(): void;
}

const lockFile = (stateFile: string): string => `${stateFile}.lock`;

function readLock(path: string): { text: string; pid: number | null } | null {
  try {
    const text = readFileSync(path, 'utf8');
    const pid = Number(/^pid (\d+)/.exec(text)?.[1]);
    return { text, pid: Number.isSafeInteger(pid) && pid > 0 ? pid : null };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function tryCreate(path: string, text: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
  return true;
}

const held = (stateFile: string, pid: number | null): StateFileError =>
  new StateFileError(
    `the state file ${stateFile} is in use by another mock (${pid ? `pid ${pid}` : 'a process whose lock is being written'}): two mocks on one file would each lose the other's changes. ` +
      `Stop that mock first, or give --state another file.${pid ? '' : ` If no mock runs, remove ${lockFile(stateFile)}.`}`,
  );

/** Takes the lock of `stateFile`, or throws a StateFileError naming the pid that holds it. */
export function lockStateFile(stateFile: string): StateLock {
  try {
    return takeLock(stateFile);
  } catch (err) {
    if (err instanceof StateFileError) throw err;
    throw new StateFileError(
      `cannot lock the state file ${stateFile} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): give --state a file in a folder you can write`,
    );
  }
}

function takeLock(stateFile: string): StateLock {
  ensureStateFolder(dirname(stateFile));
  const path = lockFile(stateFile);
  const text = `pid ${process.pid}\ntoken ${randomBytes(12).toString('hex')}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(path, text)) return ownLock(path, text);
    const current = readLock(path);
    if (current === null) continue; // released meanwhile
    if (current.pid === null) {
      // being written right now (created, pid not yet in it), or garbage: give its writer a moment
      if (attempt < 4) {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
        continue;
      }
      throw held(stateFile, null);
    }
    if (current.pid === process.pid || processRuns(current.pid)) throw held(stateFile, current.pid);
    // stale: move it aside under a name of our own, then check we moved the lock we judged stale
    const aside = `${path}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      renameSync(path, aside);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue; // another process took it over first
      throw err;
    }
    const moved = readLock(aside);
    if (moved && moved.text !== current.text) {
      // we moved a live lock another process had just created: put it back (link fails if one exists again)
      try {
        linkSync(aside, path);
      } catch {
        // a newer lock exists: it is the live one
      }
    }
    rmSync(aside, { force: true });
  }
  throw held(stateFile, readLock(path)?.pid ?? null);
}

function ownLock(path: string, text: string): StateLock {
  let released = false;
  const release = (): void => {
    if (released) return;
    released = true;
    process.removeListener('exit', release);
    // only our own lock: never one another process took over
    if (readLock(path)?.text === text) rmSync(path, { force: true });
  };
  process.on('exit', release);
  return { file: path, release };
}
