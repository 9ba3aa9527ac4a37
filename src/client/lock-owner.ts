// Who holds a lock file (the per-key locks, the journal's takeover and compaction locks), and
// whether that holder still runs. A pid alone is not enough: after a crash, a reboot or a
// container restart (where pids start low again) the pid a lock names can be another process,
// and the lock would be held forever. So a lock names its process by pid and start: on Linux,
// field 22 of /proc/PID/stat (clock ticks since boot) with the boot's id; the lock is held only
// while a process with that pid and that start runs. Where /proc cannot be read (macOS, Windows,
// a process of another user hidden by hidepid), the holder touches the lock file every
// TOUCH_EVERY_MS while it works, and a lock untouched for STALE_AFTER_MS is stale. A lock written
// by an older cardctl (a pid, no start) is held while its process runs and was already running
// when the lock was last written: a process started after that cannot be its holder. A zombie
// (ended, not reaped by its parent) holds nothing.
import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { processRuns } from '../process-runs.js';

/** The holder's identity as a lock file keeps it. `process_start`: absent in an older cardctl's lock, or where it cannot be read. */
export interface LockOwner {
  pid: number;
  process_start?: string;
}

/** A holder touches its lock file this often while it works. */
export const TOUCH_EVERY_MS = 10_000;
/** Where a process's start cannot be read, a lock untouched this long is stale (10 minutes). */
export const STALE_AFTER_MS = 600_000;
/** Linux's USER_HZ: the unit of /proc/PID/stat's start time (100 on every Linux architecture in use). */
const TICKS_PER_SECOND = 100;
/** Slack between the boot time (whole seconds) plus ticks and a file's mtime. */
const CLOCK_SLACK_MS = 2_000;

interface Boot {
  id: string;
  timeMs: number;
}
const boots = new Map<string, Boot | undefined>();

function bootOf(proc: string): Boot | undefined {
  if (boots.has(proc)) return boots.get(proc);
  let boot: Boot | undefined;
  try {
    const btime = /^btime (\d+)$/m.exec(readFileSync(`${proc}/stat`, 'utf8'));
    let id = '';
    try {
      id = readFileSync(`${proc}/sys/kernel/random/boot_id`, 'utf8').trim();
    } catch {
      // no boot id (some sandboxes): the start ticks alone
    }
    boot = btime ? { id, timeMs: Number(btime[1]) * 1000 } : undefined;
  } catch {
    boot = undefined;
  }
  boots.set(proc, boot);
  return boot;
}

/** The fields of /proc/PID/stat after the command name (field 3 on), or undefined where it cannot be read. */
function statFields(pid: number, proc: string): string[] | undefined {
  try {
    const stat = readFileSync(`${proc}/${pid}/stat`, 'utf8');
    // the command name (field 2) is in parentheses and may hold spaces: count fields after the last ')'
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A process's start: `token` as a lock keeps it (boot id and start ticks), `atMs` as a wall-clock time; undefined where /proc cannot be read. */
export function processStart(pid: number, proc = '/proc'): { token: string; atMs: number } | undefined {
  const fields = statFields(pid, proc);
  if (!fields) return undefined;
  const ticks = Number(fields[19]);
  const boot = bootOf(proc);
  if (!Number.isSafeInteger(ticks) || !boot) return undefined;
  return { token: `${boot.id}:${ticks}`, atMs: boot.timeMs + (ticks * 1000) / TICKS_PER_SECOND };
}

/**
 * Whether the process has ended but is not reaped yet: a zombie (state `Z`, field 3 of
 * /proc/PID/stat; `X` while it goes). A cardctl killed under a parent that never waits for its
 * children (a container's PID 1, say) stays one: it still answers kill(0), and holds nothing.
 */
export function isZombie(pid: number, proc = '/proc'): boolean {
  const state = statFields(pid, proc)?.[0];
  return state === 'Z' || state === 'X';
}

let self: LockOwner | undefined;

/** This process, as its lock files name it. */
export function ownIdentity(): LockOwner {
  self ??= { pid: process.pid, process_start: processStart(process.pid)?.token };
  return self;
}

/** Whether the lock names this very process. */
export const isMine = (owner: LockOwner | undefined): boolean =>
  owner?.pid === process.pid && owner.process_start === ownIdentity().process_start;

/**
 * Whether the lock's holder still holds it: its process runs and is the same process (its start
 * matches; for an older cardctl's lock without a start, the process was running when the lock was
 * last written); where a start cannot be read, the lock was touched within STALE_AFTER_MS.
 */
export function stillHeld(
  owner: LockOwner,
  lockMtimeMs: number,
  opts: { proc?: string; nowMs?: number } = {},
): boolean {
  if (!Number.isInteger(owner.pid) || owner.pid <= 0 || !processRuns(owner.pid)) return false;
  if (isZombie(owner.pid, opts.proc)) return false; // ended: it released nothing, but holds nothing either
  const live = processStart(owner.pid, opts.proc);
  if (live && owner.process_start !== undefined) return live.token === owner.process_start;
  if (live) return live.atMs <= lockMtimeMs + CLOCK_SLACK_MS;
  return (opts.nowMs ?? Date.now()) - lockMtimeMs < STALE_AFTER_MS;
}

/**
 * Creates the lock file (O_EXCL) holding `body` written whole; false when it exists. A write that
 * fails (a full disk) removes the file again: a half-written lock would read as nobody's.
 */
export function createLockFile(file: string, body: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    const bytes = Buffer.from(body);
    for (let done = 0; done < bytes.length; ) {
      const n = writeSync(fd, bytes, done, bytes.length - done);
      if (n <= 0)
        throw Object.assign(new Error(`write cut short after ${done} of ${bytes.length} bytes`), {
          code: 'ENOSPC',
          syscall: 'write',
          path: file,
        });
      done += n;
    }
  } catch (err) {
    closeSync(fd);
    unlinkSync(file);
    throw err;
  }
  closeSync(fd);
  return true;
}

/** A lock file's text and modification time; undefined when it is gone. */
export function readLockFile(file: string): { text: string; mtimeMs: number } | undefined {
  try {
    const { mtimeMs } = statSync(file);
    return { text: readFileSync(file, 'utf8'), mtimeMs };
  } catch {
    return undefined;
  }
}

/** Marks the lock as worked on now (see STALE_AFTER_MS); a lock gone meanwhile is left gone. */
export function touchLockFile(file: string): void {
  try {
    const now = new Date();
    utimesSync(file, now, now);
  } catch {
    // removed meanwhile (released, or taken as stale): nothing to keep fresh
  }
}
