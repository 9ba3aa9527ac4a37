// One cardctl process at a time per idempotency key (docs/money.md, "Two cardctl processes, one key").
// A money operation holds a lock file in the journal's folder from before its journal check to
// after its outcome is recorded: `locks/<sha256 of API key id, key>.lock`, created with
// O_EXCL, naming its owner by pid and process start (src/client/lock-owner.ts). A second process
// that finds it refuses that operation (kind `key_in_use`, exit 9) without sending anything; other
// keys are not blocked. A lock whose process is gone (a crash, a SIGKILL), or whose pid now names
// another process (a reboot, a container restart), is stale: it is removed and taken. The holder
// touches its locks while it works. Never holds a secret.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { CardctlError } from '../errors.js';
import {
  createLockFile,
  isMine,
  ownIdentity,
  readLockFile,
  stillHeld,
  touchLockFile,
  TOUCH_EVERY_MS,
} from './lock-owner.js';
import { isStateFolderProblem, stateFolderError } from './state-folder.js';

/** An idempotency key within an account: the API key id sending it (src/client/identity.ts); whatever base URL spelling or profile. */
export interface KeyScope {
  keyId: string;
  idempotencyKey: string;
}

interface LockBody {
  pid: number;
  /** the process's start (src/client/lock-owner.ts); absent in an older cardctl's lock */
  process_start?: string;
  started: string;
  idempotency_key: string;
  /** the lock file's modification time, as read (not written) */
  mtimeMs?: number;
}

/** Locks this process holds, removed on exit also when a signal handler calls process.exit. */
const held = new Set<string>();
let exitHook = false;

export function lockPath(journalFile: string, s: KeyScope): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([s.keyId, s.idempotencyKey]))
    .digest('hex');
  return join(journalFile, '..', 'locks', `${digest.slice(0, 32)}.lock`);
}

function readOwner(file: string): LockBody | undefined {
  const got = readLockFile(file);
  if (!got) return undefined;
  try {
    const body = JSON.parse(got.text) as LockBody;
    return typeof body?.pid === 'number' ? { ...body, mtimeMs: got.mtimeMs } : undefined;
  } catch {
    return undefined; // torn by a crash between create and write
  }
}

/** Whether the lock's owner is a running process that still holds it (this process too: one key is not sent twice at once). */
const holding = (owner: LockBody): boolean => stillHeld(owner, owner.mtimeMs ?? 0);

function create(file: string, s: KeyScope): boolean {
  const body: LockBody = { ...ownIdentity(), started: new Date().toISOString(), idempotency_key: s.idempotencyKey };
  return createLockFile(file, JSON.stringify(body) + '\n');
}

function inUse(file: string, s: KeyScope, owner: LockBody): CardctlError {
  return new CardctlError(
    `another cardctl process (pid ${owner.pid}, since ${owner.started}) is sending Idempotency-Key ${s.idempotencyKey} right now: this one sent nothing.`,
    {
      kind: 'key_in_use',
      code: 'key_in_use',
      idempotencyKey: s.idempotencyKey,
      hint: `Wait for it to finish, then run the same command again (the same key replays, nothing is charged twice) or look with \`cardctl ops list\`. If no cardctl process ${owner.pid} is running, remove ${file}.`,
    },
  );
}

/** Takes the key's lock or throws `key_in_use`; returns the release function. */
export function lockKey(journalFile: string, s: KeyScope): () => void {
  const file = lockPath(journalFile, s);
  try {
    const dir = join(file, '..');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    chmodSync(dir, 0o700);
    for (let tries = 0; !create(file, s); tries++) {
      const owner = readOwner(file);
      if (owner && holding(owner)) throw inUse(file, s, owner);
      // stale (its process is gone) or unreadable: remove it and try again, a few times at most
      if (tries >= 3) throw inUse(file, s, owner ?? { pid: 0, started: 'unknown', idempotency_key: s.idempotencyKey });
      // only if it is still the stale one (another process may have replaced it with its own meanwhile)
      if (readOwner(file)?.started !== owner?.started) continue;
      try {
        unlinkSync(file);
      } catch {
        // another process removed it first
      }
    }
  } catch (err) {
    if (err instanceof CardctlError) throw err;
    if (isStateFolderProblem(err))
      throw stateFolderError(err, join(journalFile, '..'), 'the money operation was not sent');
    throw new CardctlError(
      `cannot write the operations journal ${journalFile} (its lock file ${file}): ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}; the money operation was not sent.`,
      {
        kind: 'unexpected',
        hint: 'Make the folder writable, or point CARDCTL_STATE_DIR to a writable folder.',
      },
    );
  }
  held.add(file);
  keepTouching();
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const f of held) release(f);
    });
  }
  return () => {
    if (held.delete(file)) release(file);
    if (held.size === 0) stopTouching();
  };
}

let toucher: NodeJS.Timeout | undefined;

/** While this process holds locks, they are touched every TOUCH_EVERY_MS (never keeping the process alive). */
function keepTouching(): void {
  toucher ??= setInterval(() => {
    for (const f of held) touchLockFile(f);
  }, TOUCH_EVERY_MS).unref();
}

function stopTouching(): void {
  clearInterval(toucher);
  toucher = undefined;
}

/** Removes the lock if it is still this process's (a stale-lock cleanup by another process may have replaced it). */
function release(file: string): void {
  if (!isMine(readOwner(file))) return;
  try {
    unlinkSync(file);
  } catch {
    // already gone
  }
}
