// Interrupted money work (PRODUCT.md, "Money operations"): on SIGINT or SIGTERM while a money
// command, `cards issue --wait` or a batch is under way, say what finished, what is unresolved
// and the exact command that resumes it, then exit 130. Every operation is recorded before it is
// sent, so one in flight simply keeps an unknown outcome, which the resume command replays; the
// answers waiting for the journal's group commit are committed before the exit, and nothing more
// is recorded or sent meanwhile.

import { shellQuote } from '../shell-quote.js';
import { stopBeforeExit } from '../client/exiting.js';
import { beginMoneyWork } from './closed-stdout.js';
import { alertStream, type Io } from '../io.js';

export const INTERRUPTED_EXIT = 130;

/** What to print when interrupted: rows still owed to stdout, and the explanation for stderr. */
export interface InterruptReport {
  stdout?: string;
  stderr: string;
}

/**
 * Runs `work`; a SIGINT or SIGTERM meanwhile prints `report(signal)` and exits 130 at once
 * (the request in flight is abandoned: its outcome is unknown, and the journal says so).
 */
export async function interruptible<T>(
  io: Io,
  report: (signal: NodeJS.Signals) => InterruptReport,
  work: () => Promise<T>,
): Promise<T> {
  const onSignal = (signal: NodeJS.Signals): void => {
    let out: InterruptReport;
    try {
      out = report(signal);
    } catch (err) {
      out = {
        stderr: `Interrupted (${signal}); the report failed: ${(err as Error).message}. See \`cardctl ops list --unresolved\`.\n`,
      };
    }
    // stdout and stderr are synchronous for files and pipes on POSIX: written before the exit
    if (out.stdout) io.stdout.write(out.stdout);
    alertStream(io).write(out.stderr); // said under --quiet too: it names what is unresolved
    // the answers waiting for the journal's group commit are recorded first, and nothing more is sent
    void stopBeforeExit(2000).finally(() => process.exit(INTERRUPTED_EXIT));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const endMoneyWork = beginMoneyWork();
  try {
    return await work();
  } finally {
    endMoneyWork();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

const hasFlag = (argv: readonly string[], flag: string): boolean =>
  argv.some((a) => a === flag || a.startsWith(`${flag}=`));

/**
 * The command line that resumes this one: the user's own words (never a secret: those do not
 * come as flags), with `--idempotency-key KEY` and the given flags added when missing.
 */
export function resumeCommand(
  argv: readonly string[],
  add: { idempotencyKey?: string; flags?: string[] } = {},
): string {
  const words = [...argv];
  if (add.idempotencyKey !== undefined && !hasFlag(words, '--idempotency-key'))
    words.push('--idempotency-key', add.idempotencyKey);
  for (const f of add.flags ?? []) if (!hasFlag(words, f)) words.push(f);
  return ['cardctl', ...words].map(shellQuote).join(' ');
}
