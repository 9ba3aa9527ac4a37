// One process takes over the old journal file; the others wait for it (a takeover of a large
// file takes seconds). The lock is a file created with O_EXCL holding the owner's pid; a lock
// whose process is gone is stale and taken.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function tryCreate(file: string): boolean {
  try {
    const fd = openSync(file, 'wx', 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

const ownerOf = (file: string): number => {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
};

/** Takes the lock, waiting while a running process holds it; returns the release function. */
export function takeoverLock(file: string, note?: (line: string) => void): () => void {
  let told = false;
  for (let waited = 0; !tryCreate(file); waited += 100) {
    const owner = ownerOf(file);
    if (owner && alive(owner) && owner !== process.pid) {
      if (!told && waited >= 1000) note?.(`Waiting for cardctl process ${owner}, which is taking over the operations journal...`);
      told ||= waited >= 1000;
      sleepSync(100);
      continue;
    }
    if (!owner && waited < 1000) {
      sleepSync(100); // just created, its pid not written yet
      continue;
    }
    try {
      if (ownerOf(file) === owner) unlinkSync(file); // stale: its process is gone
    } catch {
      // another process removed it first
    }
  }
  return () => {
    if (ownerOf(file) === process.pid) unlinkSync(file);
  };
}

/** Takes the lock only when no running process holds it (a stale one is taken over); undefined when one does. */
export function tryLock(file: string): (() => void) | undefined {
  for (let tries = 0; tries < 3; tries++) {
    if (tryCreate(file)) return () => {
      if (ownerOf(file) === process.pid) unlinkSync(file);
    };
    const owner = ownerOf(file);
    if (owner && alive(owner)) return undefined;
    if (!owner) sleepSync(100); // just created, its pid not written yet
    try {
      if (ownerOf(file) === owner && (owner === 0 ? tries > 0 : true)) unlinkSync(file);
    } catch {
      // another process removed it first
    }
  }
  return undefined;
}
