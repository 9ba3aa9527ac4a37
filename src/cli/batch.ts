// `cards issue --batch FILE` and `cards recharge --batch FILE` once their flags are parsed:
// read and check the rows (src/client/batch.ts), confirm a live batch once, send the rows, and
// one result line per row on stdout (in row order), a progress line on stderr when it is a
// terminal, and a summary on stderr, each drawn by src/output/batch.ts. Returns the exit code.
import { dirname } from 'node:path';
import { CardctlError, usageError, type ErrorKind } from '../errors.js';
import type {
  BatchInterruption,
  BatchOperation,
  BatchPlan,
  BatchRow,
  BatchSummary,
  Repeat,
  Repeats,
  RowProblem,
} from '../client/batch.js';
import type { JournalAnswers } from '../client/batch/journal-check.js';
import type { LiveConfirmation } from '../client/confirm.js';
import type { Journal } from '../client/journal.js';
import type { Credentials } from '../profiles/types.js';
import type { ApiClient, ClientOptions } from '../client/client.js';
import { expected } from '../client/batch/columns.js';
import { verboseLog } from '../client/verbose.js';
import type { Io } from '../io.js';
import { interruptible, resumeCommand, type InterruptReport } from './interrupt.js';
import { promptsForbidden } from '../no-input.js';
import { sessionOptions, type ApiFlagValues } from './api-flags.js';
import { EXIT, exitCodeForKind } from './exit-codes.js';
import { batchOutput, plural, rowsList, summaryLines } from '../output/batch.js';

export interface BatchFlags extends ApiFlagValues {
  json: boolean;
  batch: string;
  concurrency?: number;
  'idempotency-prefix'?: string;
  'allow-duplicates'?: boolean;
  'allow-repeat'?: boolean;
  'dry-run'?: boolean;
}

function problemsError(plan: BatchPlan, operation: BatchOperation, flags: BatchFlags): CardctlError {
  const errors: Record<string, string[]> = {};
  for (const p of plan.problems)
    errors[problemLabel(p)] = Object.entries(p.errors).flatMap(([field, list]) => list.map((m) => `${field}: ${m}`));
  const more = plan.problemRows + (plan.fileProblem ? 1 : 0) - plan.problems.length;
  if (more > 0) errors[`and ${plural(more, 'more row')}`] = ['not shown'];
  const what = plan.fileProblem
    ? `the ${plan.problems.some((p) => p.errors.header) ? 'header of the batch' : 'batch file'} is not valid`
    : `${plural(plan.problemRows, 'row')} of ${plan.total} ${plan.problemRows === 1 ? 'is' : 'are'} not valid`;
  const onlyDuplicates = !plan.fileProblem && plan.duplicates === plan.problemRows;
  const again = `cardctl ${operation === 'cards.issue' ? 'cards issue' : 'cards recharge'} --batch ${flags.batch}`;
  return new CardctlError(`nothing was sent: ${what} (${flags.batch === '-' ? 'stdin' : flags.batch}).`, {
    kind: 'usage',
    code: 'validation_failed', // as a single command's local refusal, and the API's 422
    hint: onlyDuplicates
      ? `Remove the repeated rows, or run \`${again} --allow-duplicates\` if each is meant (each is charged).`
      : `Fix each line listed and run \`${again}\` again (the API would refuse them; each row: ${expected(operation)}).`,
    errors,
  });
}

const problemLabel = (p: RowProblem): string =>
  p.row === 0 ? `line ${p.line} (${p.errors.header ? 'header' : 'file'})` : `line ${p.line} (row ${p.row})`;

/** 7 if any outcome is unknown; otherwise the highest exit code among the refused rows; 0 when all went through. */
export function batchExitCode(summary: Pick<BatchSummary, 'kinds' | 'unknown'>): number {
  if (summary.unknown > 0) return EXIT.outcomeUnknown;
  let code: number = EXIT.ok;
  for (const kind of summary.kinds) code = Math.max(code, exitCodeForKind(kind));
  return code;
}

/** An interrupted batch on stderr: what finished, what is unresolved, and the command that resumes it. */
export function interruptedLines(signal: string, s: BatchInterruption, flags: Pick<BatchFlags, 'batch'>): string[] {
  const c = s.counts;
  const lines = [
    `Interrupted (${signal}): ${c.done} of ${plural(c.total, 'row')} finished (${c.ok} ok, ${c.refused} refused, ${c.unknown} unknown).`,
  ];
  if (s.inFlight.length)
    lines.push(
      `Unresolved: ${s.inFlight.length === 1 ? 'row' : 'rows'} ${rowsList(s.inFlight)} in flight: sent, no answer, outcome unknown.`,
    );
  if (c.unknown)
    lines.push(`Unresolved: the outcome of ${plural(c.unknown, 'finished row')} is unknown (see the lines above).`);
  if (s.notSentCount)
    lines.push(`Not sent: ${s.notSentCount === 1 ? 'row' : `${s.notSentCount} rows`} ${rowsList(s.notSent)}.`);
  const argv = process.argv.slice(2);
  lines.push(
    `Resume it (rows that went through come from the journal, unknown ones replay their keys, the rest are sent: nothing is charged twice):`,
    `  ${flags.batch === '-' ? `(the same rows on stdin again) ${resumeCommand(argv)}` : resumeCommand(argv)}`,
  );
  return lines;
}

/** The whole batch's one confirmation (src/client/confirm.ts); stdin holding the rows cannot also answer. */
export async function batchConfirmation(
  io: Io,
  plan: BatchPlan,
  flags: BatchFlags,
  profile: string,
  why: string,
): Promise<LiveConfirmation> {
  const { askYesNo } = await import('../client/session.js');
  const what = `a LIVE batch of ${plural(plan.total, plan.operation === 'cards.issue' ? 'card issue' : 'recharge')} (${plan.amountTotal} minor units in all) with profile "${profile}"${why}`;
  const canAsk = Boolean(io.stderr.isTTY && process.stdin.isTTY) && flags.batch !== '-' && !promptsForbidden(); // stdin made only if asked
  return { what, many: true, yes: flags.yes, ask: canAsk ? (question) => askYesNo(question, io) : undefined };
}

async function confirmBatch(io: Io, plan: BatchPlan, flags: BatchFlags, profile: string, why: string): Promise<void> {
  const { confirmLive } = await import('../client/confirm.js');
  await confirmLive(await batchConfirmation(io, plan, flags, profile, why));
}

export async function runBatchCommand(io: Io, operation: BatchOperation, flags: BatchFlags): Promise<number> {
  const b = await import('../client/batch.js');
  b.keepHeapSmall();
  // the rows' objects die young, from the first reading on: fewer scavenges, in bounded memory
  const young = b.boundedYoungGeneration();
  const spool = await b.openSpool(flags.batch);
  let plan: BatchPlan | undefined;
  try {
    plan = await b.planBatch(spool, operation, {
      prefix: flags['idempotency-prefix'],
      allowDuplicates: flags['allow-duplicates'],
      onRows: young.grown,
    });
    if (plan.problems.length > 0) throw problemsError(plan, operation, flags);
    if (plan.total === 0)
      throw usageError(
        `nothing to send: ${flags.batch === '-' ? 'stdin' : flags.batch} holds no rows.`,
        `Give one row per line after the header (CSV: ${b.expected(operation)}) or one JSON object per line (NDJSON).`,
      );
    // a file cut in transit ends mid-row too: said before anything is sent
    if (plan.unendedLastRow && spool.unended)
      io.stderr.write(
        `${b.unendedNote(spool.unended, plan.unendedLastRow.row, plan.unendedLastRow.line, flags.batch)}\n`,
      );
    // --dry-run: each row's decision and request, the totals per card; nothing sent, recorded or asked
    if (flags['dry-run']) throw await (await import('./batch-dry-run.js')).batchDryRun(io, b, plan, flags);
    return await sendBatch(io, b, plan, flags, young);
  } finally {
    plan?.checked.close();
    spool.close();
  }
}

async function sendBatch(
  io: Io,
  b: typeof import('../client/batch.js'),
  plan: BatchPlan,
  flags: BatchFlags,
  young: { grown: () => void },
): Promise<number> {
  const [{ withSession }, { ApiClient }] = await Promise.all([
    import('../client/session.js'),
    import('../client/client.js'),
  ]);
  return withSession(sessionOptions(flags, io), async ({ credentials, openJournal, timeoutMs }) => {
    const journal = await openJournal();
    // a state folder that cannot be written refuses the whole batch up front (exit 2), not each row
    journal.unresolvedCount(); // creates the journal's folder: a file in its way is said here
    // (a shared journal holds its keys in the database: no lock file, and its `file` is a URL, not a path)
    if (!journal.shared) (await import('../client/state-folder.js')).probeStateFolder(dirname(journal.file));
    const clientOptions = {
      credentials,
      journal,
      retries: flags.retries,
      yes: true /* confirmed once below for the whole batch */,
      timeoutMs,
    };
    const known = await b.journalAnswers(plan.operation, journal, new ApiClient(clientOptions), {
      legacyPrefix: plan.legacyPrefix,
    });
    const stderrLog = verboseLog(io.stderr);
    // held back before anything is printed, asked or sent
    if (!flags['allow-repeat']) await holdBackRepeats(b, plan, journal, known, flags);
    // once for the whole batch, before its first row: the key's mode as the API says it (src/client/key-mode.ts)
    const key = await (await import('../client/key-mode.js')).checkKeyMode(new ApiClient(clientOptions), {
      log: flags.verbose ? stderrLog : undefined,
    });
    // a live batch is confirmed once; not when no row would be sent (a rerun the journal answers
    // whole: nothing to confirm, also with the API out of reach, where an unknown mode counts as
    // live). Looked at only when the question would be asked: it reads every row's answer.
    if (key.live && !flags.yes && !(await b.anyRowToSend(plan, known.answers))) {
      if (flags.verbose) stderrLog('* every row is answered from the journal: nothing to send, nothing to confirm');
    } else if (key.live) await confirmBatch(io, plan, flags, credentials.name, key.note);
    plan.digests = undefined; // no key is looked up from here on: its memory goes before the rows are sent
    return await sendRows(
      io,
      b,
      plan,
      flags,
      known,
      (hooks) => new ApiClient({ ...clientOptions, ...hooks }),
      journal,
      young,
    );
  });
}

type RowClientHooks = Pick<ClientOptions, 'log' | 'onAnswer' | 'onSent' | 'sleep' | 'now' | 'note'>;

/** Sends the rows (those the journal answers are not sent), one result line each on stdout, a progress line and the summary on stderr. */
async function sendRows(
  io: Io,
  b: typeof import('../client/batch.js'),
  plan: BatchPlan,
  flags: BatchFlags,
  known: JournalAnswers,
  clientFor: (hooks: RowClientHooks) => ApiClient,
  journal: Journal,
  young: { grown: () => void },
): Promise<number> {
  const stderrLog = verboseLog(io.stderr);
  io.stderr.write(
    `${plural(plan.total, 'row')} (${plan.format.toUpperCase()}), idempotency keys ${plan.keyPrefix}-<row digest>-<n> (from what each row asks).\n`,
  );
  const out = batchOutput(io, { json: flags.json, verbose: Boolean(flags.verbose), total: plan.total });
  out.start();
  let control: { interrupt: () => BatchInterruption } | undefined;
  const onInterrupt = (signal: NodeJS.Signals): InterruptReport => {
    const state = control!.interrupt();
    return { stdout: out.interrupted(state.results), stderr: interruptedLines(signal, state, flags).join('\n') + '\n' };
  };
  const fromJournal = (rows: BatchRow[]) => {
    young.grown();
    return known.answers(rows);
  };
  let summary: BatchSummary;
  try {
    summary = await interruptible(io, onInterrupt, () =>
      b.runBatch(
        { operation: plan.operation, total: plan.total, rows: b.planRows(plan) },
        {
          onStart: (c) => void (control = c),
          outputRoom: out.room,
          concurrency: flags.concurrency ?? b.DEFAULT_CONCURRENCY,
          fromJournal,
          client: (hooks) =>
            clientFor({
              log: hooks.log,
              onAnswer: hooks.onAnswer,
              onSent: hooks.onSent,
              sleep: hooks.sleep,
              now: hooks.now,
              note: out.note,
            }),
          verbose: flags.verbose ? (row, l) => out.between(() => stderrLog(`[row ${row.row}] ${l}`)) : undefined,
          onResult: out.result,
          onProgress: out.progress,
          onPause: (ms, status) =>
            out.note(
              `${status === 429 ? 'Rate limited' : 'Service unavailable'} (${status}): every row waits ${Math.ceil(ms / 1000)} s (Retry-After), then the same keys go again.`,
            ),
        },
      ),
    );
  } finally {
    out.flush(); // the rows that finished, also when something failed
  }
  out.end([...summaryLines(summary, plan.keyPrefix, plan.duplicates), ...ciJournalNote(journal.file)]);
  return batchExitCode(summary);
}

/** In CI (`CI=true`), where a runner's disk is often new at every run: the journal is this runner's alone. */
function ciJournalNote(file: string, env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.CI !== 'true') return [];
  return [
    `The journal (${file}) is local to this runner: a run on another runner, or on a new disk, cannot see what this one sent. Keep CARDCTL_STATE_DIR on storage that outlives the job (docs/journal.md, "Where it lives").`,
  ];
}

/** Refuses the batch before its first row when rows repeat recent successes under other keys (src/client/batch/repeats.ts); --allow-repeat skips this. */
async function holdBackRepeats(
  b: typeof import('../client/batch.js'),
  plan: BatchPlan,
  journal: Journal,
  known: JournalAnswers,
  flags: BatchFlags,
): Promise<void> {
  const repeats = await b.findRepeats(plan, journal, known, Date.now());
  if (repeats.rows > 0) throw repeatsError(plan, repeats, flags);
}

/** The refusal of a batch whose rows repeat recent successes (or unknown outcomes) under other keys. */
export function repeatsError(plan: BatchPlan, repeats: Repeats, flags: BatchFlags): CardctlError {
  const errors: Record<string, string[]> = {};
  for (const r of repeats.shown)
    errors[r.line > 0 ? `line ${r.line} (row ${r.row})` : `row ${r.row}`] = [repeatText(r)];
  if (repeats.rows > repeats.shown.length)
    errors[`and ${plural(repeats.rows - repeats.shown.length, 'more row')}`] = ['not shown'];
  const again = resumeCommand(process.argv.slice(2), { flags: ['--allow-repeat'] }); // the user's own command line, --idempotency-prefix included
  return new CardctlError(
    `nothing was sent: ${plural(repeats.rows, 'row')} of ${plan.total} ${repeats.rows === 1 ? 'repeats' : 'repeat'} ${repeats.shown.some((r) => r.unknown) ? 'an operation whose outcome is unknown, or ' : ''}a success of the last 24 hours under another idempotency key (${flags.batch === '-' ? 'stdin' : flags.batch}).`,
    {
      kind: 'usage',
      code: 'repeat_held_back',
      hint:
        (repeats.shown.some((r) => r.unknown)
          ? 'A row repeating an operation whose outcome is unknown could be charged twice under a new key: settle that operation first (`cardctl ops replay ID`, or look at the card and `cardctl ops resolve ID`), then run the same command again. '
          : '') +
        'Each is the same operation on the same card or customer with the same amount, already sent (by an earlier version of this file, another --idempotency-prefix, another API key of the merchant, or a single command). ' +
        `Remove those rows, or if each is meant to be charged again, run \`${again}\`.`,
      errors,
    },
  );
}

/** One repeat for the listing: the earlier success (its request, when, its key and journal id). */
function repeatText(r: Repeat): string {
  const tail = r.entry.path.slice(Math.max(0, r.entry.path.lastIndexOf('/cards')));
  const body = r.entry.body_b64
    ? Buffer.from(r.entry.body_b64, 'base64')
        .toString('utf8')
        .replace(/[^\x20-\x7e]/g, '?')
        .slice(0, 200)
    : '';
  return `${r.entry.method} ${tail} ${body} ${r.unknown ? 'has an unknown outcome, first sent' : 'succeeded'} at ${r.entry.time} under key ${r.entry.idempotency_key} (${r.entry.id}).`.replace(
    /  +/g,
    ' ',
  );
}
