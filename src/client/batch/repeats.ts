// A batch held back before its first row when its rows repeat successes the journal recorded for
// the same account in the last 24 hours under other keys (PRODUCT.md, "Bulk"; docs/batch.md): the
// same operation, target and amount (src/client/batch/request-identity.ts). Rows answered from
// the journal under their own keys (or the version before's) are not repeats: they are not sent.
// What these catch: a file first run by the version before and edited since (its keys were the
// whole file's hash), the same rows under another --idempotency-prefix, a file written anew.
import type { Journal, JournalEntry } from '../journal.js';
import { RowDigests } from './digests.js';
import { checkedRows } from './planner.js';
import { entryRequest, requestText, rowRequests } from './request-identity.js';
import { rowOfAnyKey } from './row-keys.js';
import type { JournalAnswers } from './journal-check.js';
import { JOURNAL_CHUNK } from './runner.js';
import { MAX_PROBLEMS_KEPT, type BatchPlan, type BatchRow } from './types.js';

/** How far back a success counts as a repeat: the API's own memory of a key. */
export const REPEAT_WINDOW_MS = 24 * 3_600_000;

export interface Repeat {
  row: number;
  line: number;
  /** the earlier success, or the earlier operation whose outcome is unknown */
  entry: Pick<JournalEntry, 'id' | 'time' | 'idempotency_key' | 'method' | 'path' | 'body_b64'>;
  unknown: boolean;
}

/** The first MAX_PROBLEMS_KEPT repeats, in the order found, and how many rows repeat in all. */
export interface Repeats {
  shown: Repeat[];
  rows: number;
}

/**
 * Whether a send of the last day, or one whose outcome is unknown, went under a key that may not
 * be one of the batch's own (`other`: a key the batch does not give, or the version before's key
 * of a row, which is the row's own only when the journal holds that very request under it): only
 * such a send can be repeated. Looks at the day's sends by their keys alone, and folds at most the
 * first unknown one under such a key. Whatever it cannot read (a damaged record) counts as such a
 * send: the whole check then runs, and reads only what it always read.
 */
async function anySendUnderAnotherKey(
  journal: Journal,
  sinceMs: number,
  other: (key: string) => boolean,
): Promise<boolean> {
  try {
    if (await journal.anySentSinceUnder(sinceMs, other)) return true;
    for await (const e of journal.unresolvedNewest()) if (other(e.idempotency_key)) return true;
    return false;
  } catch {
    return true;
  }
}

/** The rows that would be sent under keys the journal does not hold (candidates), keyed by their request; and the rows that keep the version before's key. */
async function rowsToSend(plan: BatchPlan, known: JournalAnswers['answers']) {
  const requestOf = await rowRequests(plan.operation);
  const candidates = new RowDigests('repeat', plan.total);
  const unnamed = new Map<string, { row: number; product: string }>();
  const lines = new Map<number, number>();
  const legacyUsed = new Uint8Array(plan.total + 1);
  let count = 0;
  let chunk: BatchRow[] = [];
  const flush = async (): Promise<void> => {
    const answers = await known(chunk);
    for (const [i, row] of chunk.entries()) {
      if (row.idempotencyKey === row.legacyKey) legacyUsed[row.row] = 1;
      else if (answers[i] === undefined) {
        const request = requestOf(row);
        candidates.add(request, row.row);
        withoutProduct(row, requestOf, unnamed);
        if (lines.size < 1 << 16) lines.set(row.row, row.line);
        count++;
      }
    }
    chunk = [];
  };
  for (const row of checkedRows(plan)) {
    chunk.push(row);
    if (chunk.length >= JOURNAL_CHUNK) await flush();
  }
  await flush();
  return { candidates, unnamed, legacyUsed, count, lines };
}

/** The most issue rows naming a product looked up by their request without it (their memory: a text each). */
const UNNAMED_MAX = 1 << 16;

/**
 * An issue row that names its product asks what an earlier issue without a product asked, when
 * the card that one got was of the same product (the answer says which: the default one). Such a
 * row is looked up by its request without `product_id` too, with the product it names.
 */
function withoutProduct(
  row: BatchRow,
  requestOf: (row: Pick<BatchRow, 'call'>) => string,
  into: Map<string, { row: number; product: string }>,
): void {
  const json = row.call.json as Record<string, unknown> | undefined;
  if (typeof json?.product_id !== 'string' || into.size >= UNNAMED_MAX) return;
  const { product_id: product, ...rest } = json;
  const text = requestOf({ call: { ...row.call, json: rest } });
  if (!into.has(text)) into.set(text, { row: row.row, product: product.toUpperCase() });
}

/**
 * Whether any row of the batch would be sent: one the journal does not answer (a rerun the
 * journal answers whole sends nothing). Stops at the first chunk that holds one.
 */
export async function anyRowToSend(plan: BatchPlan, known: JournalAnswers['answers']): Promise<boolean> {
  let chunk: BatchRow[] = [];
  const sends = async (): Promise<boolean> => {
    const answers = await known(chunk);
    chunk = [];
    for (let i = 0; i < answers.length; i++) if (answers[i] === undefined) return true;
    return false;
  };
  for (const row of checkedRows(plan)) {
    chunk.push(row);
    if (chunk.length >= JOURNAL_CHUNK && (await sends())) return true;
  }
  return chunk.length > 0 && sends();
}

const succeeded = (e: JournalEntry): boolean =>
  e.outcome === 'resolved' &&
  (e.resolution ? e.resolution.outcome === 'succeeded' : e.status !== null && e.status >= 200 && e.status < 300);

/**
 * The batch's rows that repeat, under another key, a success of the last 24 hours or an operation
 * whose outcome is still unknown (of any age: it may have gone through, so sending the row under
 * a new key could charge twice; resolve or replay it first). The same request (method, route with
 * its card, body with its customer and amount) names the same card or customer, so it is the same
 * merchant's whatever API key sent it. Reads only when a row would be sent under a key the journal
 * does not hold: the last day's sends by their columns, and the unknown ones. A rerun, whose
 * journal holds only the batch's own keys in that window, reads no row's history here.
 */
export async function findRepeats(
  plan: BatchPlan,
  journal: Journal,
  known: JournalAnswers,
  nowMs: number,
): Promise<Repeats> {
  const found: Repeats = { shown: [], rows: 0 };
  const sinceMs = nowMs - REPEAT_WINDOW_MS;
  if (!(await journal.sentSince(sinceMs)) && (await journal.unresolvedCount()) === 0) return found; // nothing that could repeat
  const keyRow = rowOfAnyKey({ ...plan, digests: plan.digests!.share() });
  // a rerun: every send of the last day and every unknown one under the batch's own keys (none
  // can be a repeat), found by their columns, without reading any row's history before the send's
  if (!(await anySendUnderAnotherKey(journal, sinceMs, (key) => keyRow(key) <= 0))) return found;
  const { candidates, unnamed, legacyUsed, count, lines } = await rowsToSend(plan, known.answers);
  if (count === 0) return found;
  const own = (key: string): boolean => {
    const r = keyRow(key);
    return r > 0 || (r < 0 && legacyUsed[-r] === 1);
  };
  const flagged = new Uint8Array(plan.total + 1);
  const rowOf = (e: JournalEntry): number => {
    const text = entryRequest(e);
    const row = candidates.firstRowOf(text);
    if (row !== 0) return row;
    const named = unnamed.get(text); // the earlier issue named no product: the same one if its card got the row's
    return named && e.product_id?.toUpperCase() === named.product ? named.row : 0;
  };
  const add = (e: JournalEntry, unknown: boolean): void => {
    const row = rowOf(e);
    if (row === 0 || flagged[row] === 1) return;
    flagged[row] = 1;
    found.rows++;
    if (found.shown.length < MAX_PROBLEMS_KEPT) found.shown.push({ row, line: lines.get(row) ?? 0, entry: e, unknown });
  };
  // the last day's sends looked at by their columns (method, route, body's SHA-256), only the ones
  // that can repeat a row folded from their records
  const mayRepeat = (o: { method: string; path: string; body_sha256: string; idempotency_key: string }) => {
    const text = requestText(o.method, o.path, o.body_sha256);
    return (candidates.firstRowOf(text) !== 0 || unnamed.has(text)) && !own(o.idempotency_key);
  };
  for await (const e of journal.sentSinceMatching(sinceMs, mayRepeat))
    if (Date.parse(e.time) >= sinceMs && succeeded(e)) add(e, false);
  for await (const e of journal.unresolvedNewest()) if (mayRepeat(e)) add(e, true);
  found.shown.sort((a, b) => a.row - b.row);
  return found;
}
