// What a failure of the local SQLite journal means for the user: a full disk, a file that cannot
// be written, a damaged file, a newer cardctl's journal, another process holding it too long.
// Each refuses the money operation before anything is sent, naming the fix.
import { CardctlError } from '../../errors.js';
import { isStateFolderProblem, stateFolderError } from '../state-folder.js';
import { SCHEMA_VERSION } from './schema.js';
import { isSqliteError, SQLITE } from './sqlite.js';

export function sqliteError(err: unknown, file: string, dir: string): unknown {
  if (err instanceof CardctlError) return err;
  if (isStateFolderProblem(err))
    return stateFolderError(err, dir, 'money operations are refused until it can be written');
  const newer = (err as { newerSchema?: number } | null)?.newerSchema;
  if (newer !== undefined)
    return new CardctlError(
      `the operations journal ${file} was written by a newer cardctl (its schema ${newer}, this one's ${SCHEMA_VERSION}); this cardctl cannot read it without risking a second charge: nothing is sent or read with it.`,
      {
        kind: 'usage',
        code: 'journal_newer',
        hint: 'Run the newer cardctl (`cardctl --version` tells which one this is).',
      },
    );
  const damagedKey = (err as { damagedKey?: string } | null)?.damagedKey;
  if (damagedKey !== undefined) return damagedJournal(file, (err as Error).message, damagedKey);
  if (!isSqliteError(err)) return err;
  const primary = err.errcode & 0xff;
  if (primary === SQLITE.FULL)
    return stateFolderError(
      Object.assign(new Error(err.errstr), { code: 'ENOSPC', syscall: 'write', path: file }),
      dir,
      'nothing was sent',
    );
  if (primary === SQLITE.IOERR)
    return stateFolderError(
      Object.assign(
        new Error(
          'a write or read of the disk failed: the disk is full, a file size limit was reached, or the disk is failing',
        ),
        { code: 'EIO', syscall: 'write', path: file },
      ),
      dir,
      'nothing was sent',
    );
  if (primary === SQLITE.READONLY || primary === SQLITE.CANTOPEN)
    return stateFolderError(
      Object.assign(new Error(err.errstr), { code: 'EACCES', syscall: 'open', path: file }),
      dir,
      'money operations are refused until it can be written',
    );
  if (primary === SQLITE.BUSY || primary === SQLITE.LOCKED)
    return new CardctlError(
      `the operations journal ${file} stayed locked by another cardctl for too long (${err.errstr}); nothing was sent.`,
      { kind: 'unavailable', code: 'journal_busy', hint: 'Run the command again once the other cardctl is done.' },
    );
  if (primary === SQLITE.CORRUPT || primary === SQLITE.NOTADB) return damagedJournal(file, err.errstr);
  return new CardctlError(`the operations journal ${file} could not be used (${err.errstr}); nothing was sent.`, {
    kind: 'unexpected',
    code: 'journal_unusable',
    hint: 'Run `cardctl ops verify` to check the database; then run the command again.',
  });
}

/** A damaged database file: money commands refuse, naming the fix. */
export function damagedJournal(file: string, why: string, key?: string): CardctlError {
  return new CardctlError(
    `the operations journal ${file} is damaged (${why}): whether ${key === undefined ? 'a key' : `Idempotency-Key ${key}`} was sent before cannot be known, so the money operation was not sent.`,
    {
      kind: 'unexpected',
      code: 'journal_damaged',
      idempotencyKey: key,
      hint: `Run \`cardctl ops verify\` to see what SQLite finds. Keep the file; restore it from a backup, or move it aside (cardctl then starts a new journal, which knows nothing of earlier sends: check the cards' balances before sending again).`,
    },
  );
}
