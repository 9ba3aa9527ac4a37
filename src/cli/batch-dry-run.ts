// `cards issue --batch FILE --dry-run` and `cards recharge --batch FILE --dry-run`: what the batch
// would do, decided by the batch's own parts, with nothing sent, recorded or asked. The rows were
// checked by the planner (a bad file exits 2 as it always does); the journal, when one exists, is
// read as a real run reads it: the journal check (a rerun's rows answered, src/client/batch/
// journal-check.ts), the repeat check (src/client/batch/repeats.ts: held back) and, for each row
// left to send, the dry-run client's stop before the socket (the row's request and the money
// rules' verdict, src/client/dry-run.ts). The live confirmation is the batch's one, not asked.
import type { BatchPlan, BatchRow, Repeats } from '../client/batch.js';
import type { JournalAnswers } from '../client/batch/journal-check.js';
import type { KnownAnswer } from '../client/batch/runner.js';
import type { ApiClient } from '../client/client.js';
import type {
  BatchDryRun,
  BatchRowPreview,
  ConfirmationPreview,
  DryRunStop,
  RequestDryRun,
  TargetTotals,
} from '../client/dry-run.js';
import type { JournalReport } from '../client/journal-types.js';
import type { Credentials } from '../profiles/types.js';
import { CardctlError } from '../errors.js';
import type { Io } from '../io.js';
import { sessionOptions } from './api-flags.js';
import { batchConfirmation, repeatsError, type BatchFlags } from './batch.js';

type Batch = typeof import('../client/batch.js');

/** Rows that would be sent whose whole request (headers, canonical string) the dry run shows; the others show method, path and body. */
export const WHOLE_REQUESTS = 100;

/** Reads what the batch would do and returns it as the stop BaseCommand prints. */
export async function batchDryRun(io: Io, b: Batch, plan: BatchPlan, flags: BatchFlags): Promise<DryRunStop> {
  const [{ withSession }, { ApiClient }, dry] = await Promise.all([
    import('../client/session.js'),
    import('../client/client.js'),
    import('../client/dry-run.js'),
  ]);
  return withSession(sessionOptions(flags, io), async ({ credentials, timeoutMs }) => {
    const journal = await dry.peekJournal(process.env, flags.journal);
    try {
      const client = new ApiClient({
        credentials,
        journal,
        retries: flags.retries,
        yes: true,
        timeoutMs,
        dryRun: true,
      });
      const known: JournalAnswers = journal
        ? await b.journalAnswers(plan.operation, journal, client, { legacyPrefix: plan.legacyPrefix })
        : { answers: async (rows) => new Array<KnownAnswer | undefined>(rows.length) };
      const repeats: Repeats =
        journal && !flags['allow-repeat']
          ? await b.findRepeats(plan, journal, known, Date.now())
          : { shown: [], rows: 0 };
      const held = new Set(repeats.shown.map((r) => r.row));
      const rows = await rowPreviews(b, plan, known, client, held);
      const { targets, totals } = totalsOf(rows);
      return new dry.DryRunStop({
        kind: 'batch',
        operation: plan.operation,
        rows,
        targets,
        totals,
        journal: journal?.file ?? null,
        held_back: repeats.rows > 0 ? { rows: repeats.rows, error: repeatsError(plan, repeats, flags) } : null,
        confirmation: totals.send > 0 ? await confirmation(io, plan, flags, credentials) : null,
      } satisfies BatchDryRun);
    } finally {
      await journal?.close();
    }
  });
}

/** Every row's decision, in row order: a chunk at a time, asked of the journal as a real run asks it. */
async function rowPreviews(
  b: Batch,
  plan: BatchPlan,
  known: JournalAnswers,
  client: ApiClient,
  held: ReadonlySet<number>,
): Promise<BatchRowPreview[]> {
  const out: BatchRowPreview[] = [];
  let chunk: BatchRow[] = [];
  let whole = 0;
  const flush = async (): Promise<void> => {
    const answers = await known.answers(chunk); // sets the key of a row the version before sent
    for (const [i, row] of chunk.entries()) {
      // a row the journal answers, or held back, is not sent: its request as prepared, no verdict of its own to ask
      const decided = answers[i] !== undefined || held.has(row.row);
      const request = decided ? await preparedOf(plan, row, client) : await stopOf(plan, row, client);
      const preview = await rowPreview(row, answers[i], request, held.has(row.row));
      // the whole request (headers, canonical string) of the first rows that would be sent: memory stays small at a million rows
      if (preview.request && ++whole > WHOLE_REQUESTS) preview.request = undefined;
      out.push(preview);
    }
    chunk = [];
  };
  for await (const row of b.planRows(plan)) {
    chunk.push(row);
    if (chunk.length >= 256) await flush();
  }
  await flush();
  return out;
}

/** The row as the dry-run client stops it: its request, and the money rules' verdict under its key. */
async function stopOf(plan: BatchPlan, row: BatchRow, client: ApiClient): Promise<RequestDryRun> {
  const { callOperation } = await import('../client/operations.js');
  const { isDryRunStop } = await import('../client/dry-run.js');
  try {
    await callOperation(client, plan.operation, { ...row.call, idempotencyKey: row.idempotencyKey, batch: true });
  } catch (err) {
    if (isDryRunStop(err) && err.dryRun.kind === 'request') return err.dryRun;
    throw err;
  }
  throw new Error('a dry-run client sent a request'); // a programming error: the client stops before the socket
}

/** The row's method, path and body as the client prepares them (nothing asked of the journal). */
async function preparedOf(
  plan: BatchPlan,
  row: BatchRow,
  client: ApiClient,
): Promise<{ method: string; path: string; body: string }> {
  const { operationPath, routeOf } = await import('../client/operations.js');
  const route = routeOf(plan.operation);
  const p = await client.prepare({
    method: route.method,
    path: operationPath(route, row.call.params),
    json: row.call.json,
    idempotencyKey: row.idempotencyKey,
  });
  return { method: p.method, path: p.path, body: p.body.toString('utf8') };
}

async function rowPreview(
  row: BatchRow,
  answer: KnownAnswer | undefined,
  request: RequestDryRun | { method: string; path: string; body: string },
  held: boolean,
): Promise<BatchRowPreview> {
  const { cardIdInPath } = await import('../client/money-rules.js');
  const json = row.call.json as { customer_id?: string; amount_minor?: number; amount?: number };
  const stop = 'kind' in request ? request : undefined;
  const shown = stop
    ? { method: stop.request.method, path: new URL(stop.request.url).pathname, body: stop.request.body ?? '' }
    : (request as { method: string; path: string; body: string });
  const card = cardIdInPath(shown.path);
  const base = {
    row: row.row,
    line: row.line,
    idempotency_key: row.idempotencyKey,
    target: card ? `card ${card}` : `customer ${json.customer_id ?? '?'}`,
    amount_minor: json.amount_minor ?? json.amount ?? 0, // issue: amount_minor; recharge: amount
    ...shown,
  };
  if (held) return { ...base, decision: 'held_back' };
  // the journal check's answer, as the runner takes it (the same rules the client's verdict applies)
  if (answer && 'res' in answer) return { ...base, decision: 'answer', answer: answer.res.fromJournal };
  if (answer) {
    const err =
      answer.err instanceof CardctlError ? answer.err : new CardctlError(String(answer.err), { kind: 'unexpected' });
    const report = (err.data as Partial<JournalReport> | undefined)?.from_journal
      ? (err.data as JournalReport)
      : undefined;
    return report
      ? { ...base, decision: 'answer', answer: report, error: err }
      : { ...base, decision: 'refuse', error: err };
  }
  const m = stop!.money;
  if (!m || m.decision === 'send')
    return { ...base, decision: 'send', request: stop!.request, ...(m?.earlier ? { replay_of: m.earlier.id } : {}) };
  return { ...base, decision: m.decision, answer: m.report, error: m.error };
}

/** What would be charged to each card (recharge) or customer (issue), and how many rows of each go which way. */
function totalsOf(rows: readonly BatchRowPreview[]): Pick<BatchDryRun, 'targets' | 'totals'> {
  const byTarget = new Map<string, TargetTotals>();
  const totals = { rows: rows.length, amount_minor: 0, send: 0, answer: 0, refuse: 0, held_back: 0 };
  for (const r of rows) {
    let t = byTarget.get(r.target);
    if (!t)
      byTarget.set(r.target, (t = { target: r.target, amount_minor: 0, send: 0, answer: 0, refuse: 0, held_back: 0 }));
    t[r.decision]++;
    totals[r.decision]++;
    if (r.decision === 'send') {
      t.amount_minor += r.amount_minor;
      totals.amount_minor += r.amount_minor;
    }
  }
  return { targets: [...byTarget.values()], totals };
}

/** The batch's one live confirmation, decided as sendBatch decides it, without asking the API or a person. */
async function confirmation(
  io: Io,
  plan: BatchPlan,
  flags: BatchFlags,
  credentials: Credentials,
): Promise<ConfirmationPreview> {
  const { previewConfirmation } = await import('../client/dry-run.js');
  const live = await batchConfirmation(io, plan, flags, credentials.name, '');
  return previewConfirmation(credentials, undefined, (note) => ({ ...live, what: live.what + note }));
}
