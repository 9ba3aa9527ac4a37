// How long the journal keeps resolved operations whole (docs/journal.md, "Retention"), and the
// compaction a money command starts in the background once a day when some have aged past it.
import { usageError } from '../errors.js';
import type { Journal } from './journal.js';

export const DAY_MS = 86_400_000;
/** How long resolved operations are kept whole (CARDCTL_JOURNAL_RETENTION). */
export const DEFAULT_RETENTION_DAYS = 90;

/** Days from `30`, `30d` (1 to 36500); `off` (no compaction in the background) gives undefined. */
export function parseRetention(text: string, from: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'off') return undefined;
  const m = /^(\d{1,5})d?$/.exec(t);
  const days = m ? Number(m[1]) : NaN;
  if (!Number.isInteger(days) || days < 1 || days > 36_500) {
    // a flag takes days only (off is the variable's: no compaction in the background); the
    // variable's value is never quoted back (docs/profiles.md)
    if (from.startsWith('--'))
      throw usageError(
        `${from} must be a number of days from 1 to 36500 (such as 90 or 90d); got ${JSON.stringify(text.slice(0, 40))}.`,
        `For example ${from} 30 keeps 30 days whole.`,
      );
    throw usageError(
      `${from} must be a number of days from 1 to 36500 (such as 90 or 90d), or off.`,
      `Set it to e.g. 90 (the default), or off to compact only with \`cardctl ops compact\`.`,
    );
  }
  return days;
}

/** CARDCTL_JOURNAL_RETENTION (days, or `off`), else 90 days. */
export function retentionDays(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const v = env.CARDCTL_JOURNAL_RETENTION;
  return v === undefined || v.trim() === '' ? DEFAULT_RETENTION_DAYS : parseRetention(v, 'CARDCTL_JOURNAL_RETENTION');
}

/** Whether a compaction is due: none ran here for a day, and the oldest operation has aged past the retention. Two indexed lookups. */
export async function compactionDue(journal: Journal, days: number, nowMs = Date.now()): Promise<boolean> {
  const last = await journal.lastCompaction();
  if (last && nowMs - Date.parse(last) < DAY_MS) return false;
  const oldest = await journal.oldestTime();
  return oldest !== undefined && Date.parse(oldest) <= nowMs - days * DAY_MS;
}

/**
 * Starts `cardctl ops compact --auto` detached when a compaction is due, so the command that
 * found it due exits at once. Never throws: retention is housekeeping, never a reason for a money
 * command to fail.
 */
export async function compactInBackground(journal: Journal, env: NodeJS.ProcessEnv = process.env): Promise<boolean> {
  try {
    const days = retentionDays(env);
    if (days === undefined || !(await compactionDue(journal, days))) return false;
    const script = process.argv[1];
    const args =
      script && /\.[cm]?js$/.test(script) ? [script, 'ops', 'compact', '--auto'] : ['ops', 'compact', '--auto'];
    // only what compaction needs: never a secret of the caller's environment
    const childEnv: NodeJS.ProcessEnv = {
      CARDCTL_STATE_DIR: journal.dir,
      CARDCTL_JOURNAL_RETENTION: String(days),
      CARDCTL_NO_UPDATE_NOTIFIER: '1',
    };
    for (const k of ['PATH', 'HOME', 'LANG', 'TMPDIR', 'SYSTEMROOT']) if (env[k] !== undefined) childEnv[k] = env[k];
    // a shared journal: its URL, and the PG* variables it is read with (PGCONNECT_TIMEOUT among them) (the meta row says to every machine that one compacted today)
    if (journal.place.engine === 'postgres') {
      childEnv.CARDCTL_JOURNAL_URL = journal.place.url;
      for (const k of Object.keys(env)) if (/^PG[A-Z_]+$/.test(k)) childEnv[k] = env[k];
    }
    const { spawn } = await import('node:child_process'); // loaded only then: most money commands find none due
    const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env: childEnv });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}
