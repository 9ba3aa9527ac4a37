// One process takes over the old journal file, one compacts; the others wait for it or skip (a
// takeover of a large file takes seconds). The lock is a file created with O_EXCL naming its
// holder by pid and process start (src/client/lock-owner.ts): a lock whose process is gone, or
// whose pid now names another process (a crash, a reboot, a container restart), is stale and
// taken. The holder touches it while it works (`touch`), which is what tells a stale lock where a
// process's start cannot be read. An older cardctl wrote only its pid: that is read too.
import { unlinkSync } from 'node:fs';
import {
  createLockFile,
  isMine,
  ownIdentity,
  readLockFile,
  stillHeld,
  touchLockFile,
  TOUCH_EVERY_MS,
  type LockOwner,
} from '../lock-owner.js';

/** A held lock: `touch` at the holder's progress points (cheap: the file is touched every TOUCH_EVERY_MS at most), `release` when done. */
export interface HeldLock {
  touch(): void;
  release(): void;
}

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

const tryCreate = (file: string): boolean => createLockFile(file, JSON.stringify(ownIdentity()));

/** The holder a lock's text names: `{"pid":..,"process_start":..}`, or an older cardctl's bare pid; undefined when empty (being written) or unreadable. */
function ownerIn(text: string): LockOwner | undefined {
  if (/^\s*\d+\s*$/.test(text)) return { pid: Number(text) };
  try {
    const o = JSON.parse(text) as LockOwner;
    return Number.isInteger(o?.pid)
      ? { pid: o.pid, process_start: typeof o.process_start === 'string' ? o.process_start : undefined }
      : undefined;
  } catch {
    return undefined;
  }
}

interface Seen {
  text: string;
  owner?: LockOwner;
  held: boolean;
}

/** The lock as it is now: undefined when gone; `held` when another running process holds it. */
function look(file: string): Seen | undefined {
  const got = readLockFile(file);
  if (!got) return undefined;
  const owner = ownerIn(got.text);
  return { text: got.text, owner, held: owner !== undefined && !isMine(owner) && stillHeld(owner, got.mtimeMs) };
}

/** Removes a stale lock, only if it is still the one seen (another process may have taken it meanwhile). */
function removeStale(file: string, seen: Seen | undefined): void {
  try {
    if (readLockFile(file)?.text === (seen?.text ?? '')) unlinkSync(file);
  } catch {
    // another process removed it first
  }
}

function held(file: string): HeldLock {
  let touched = Date.now();
  return {
    touch: () => {
      if (Date.now() - touched < TOUCH_EVERY_MS) return;
      touched = Date.now();
      touchLockFile(file);
    },
    release: () => {
      if (isMine(ownerIn(readLockFile(file)?.text ?? ''))) unlinkSync(file);
    },
  };
}

/** Takes the lock, waiting while a running process holds it. */
export function takeoverLock(file: string, note?: (line: string) => void): HeldLock {
  let told = false;
  for (let waited = 0; !tryCreate(file); waited += 100) {
    const seen = look(file);
    if (seen?.held) {
      if (!told && waited >= 1000)
        note?.(`Waiting for cardctl process ${seen.owner!.pid}, which is taking over the operations journal...`);
      told ||= waited >= 1000;
      sleepSync(100);
      continue;
    }
    if (seen && !seen.owner && waited < 1000) {
      sleepSync(100); // just created, its owner not written yet
      continue;
    }
    if (seen) removeStale(file, seen); // stale: its process is gone, or its pid names another process now
  }
  return held(file);
}

/** Takes the lock only when no running process holds it (a stale one is taken over); undefined when one does. */
export function tryLock(file: string): HeldLock | undefined {
  for (let tries = 0; tries < 3; tries++) {
    if (tryCreate(file)) return held(file);
    const seen = look(file);
    if (seen?.held) return undefined;
    if (seen && !seen.owner) {
      sleepSync(100); // just created, its owner not written yet
      if (tries === 0) continue;
    }
    if (seen) removeStale(file, seen);
  }
  return undefined;
}
