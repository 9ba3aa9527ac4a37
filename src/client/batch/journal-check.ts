// A rerun's rows answered by the journal in bulk. Once per batch, a pass over the journal
// (src/client/batch/rerun-index.ts) notes each row's verdict; each chunk of rows then reads its
// verdicts in one go, and a row the journal resolved gets the answer the client would give
// without sending (the same report, checked against the row's own body). A row whose key's
// history the pass could not hold is asked of the journal directly (ApiClient.journalAnswer).
// Every other row (nothing journaled, unknown and still within 23 h, a damaged bucket) goes the
// ordinary way, under its key's lock, where the journal is asked again: this never sends anything.
import { hash } from 'node:crypto';
import { CardctlError } from '../../errors.js';
import type { ApiClient } from '../client.js';
import type { Journal, JournalEntry } from '../journal.js';
import type { JournalReport } from '../money-rules.js';
import { bodyFieldOrder, serializeDeterministic } from '../serialize.js';
import { operationPath, routeOf } from '../operations.js';
import { RerunIndex, type PassStats, type PassThreads } from './rerun-index.js';
import type { KnownAnswer } from './runner.js';
import type { BatchOperation, BatchRow } from './types.js';

export interface JournalAnswers {
  /** the journal's answers for a chunk of rows, in their order; undefined: send the row the ordinary way */
  answers: (rows: BatchRow[]) => Promise<Array<KnownAnswer | undefined>>;
  close: () => void;
  /** what the pass over the journal read */
  pass: PassStats;
}

/** Reads the journal once for the batch's keys (`keyPrefix`-1 to -`total`), then answers chunks of rows. */
export async function journalAnswers(operation: BatchOperation, journal: Journal, client: ApiClient, batch: { keyPrefix: string; total: number; threads?: PassThreads }): Promise<JournalAnswers> {
  const route = routeOf(operation);
  const { baseUrl, mode, keyId, formerKeyIds } = client.credentials;
  let index: RerunIndex;
  try {
    index = await RerunIndex.build(journal, { ...batch, target: { baseUrl, mode, keyId, formerKeyIds }, nowMs: client.clock() });
  } catch (err) {
    if (!(err instanceof CardctlError)) throw err;
    index = RerunIndex.empty(batch.keyPrefix); // each row meets it again on the ordinary path, and says it
  }
  const requestOf = (row: BatchRow) => ({ method: route.method, path: operationPath(route, row.call.params), json: row.call.json, idempotencyKey: row.idempotencyKey, batch: true });
  const answerOf = async (run: () => Promise<Awaited<ReturnType<ApiClient['journalAnswer']>>>): Promise<KnownAnswer | undefined> => {
    try {
      const res = await run();
      return res ? { res } : undefined;
    } catch (err) {
      return { err };
    }
  };
  /**
   * A success the journal holds, for a row with the body it was sent with: what the client's
   * journal answer gives a row's result (status, body and report; ApiClient.fromJournal), without
   * preparing a request (a rerun answers a million rows). The body's bytes are the ones the client
   * would send (serializeMoneyBody: the same serialization, as UTF-8).
   */
  const fieldOrder = await bodyFieldOrder(route.operation);
  const successOf = (row: BatchRow, slot: { report: JournalReport; bodySha256Prefix: string }): KnownAnswer | undefined => {
    const body = serializeDeterministic(row.call.json, fieldOrder); // hashed as its UTF-8 bytes, as serializeMoneyBody sends them
    if (!hash('sha256', body, 'hex').startsWith(slot.bodySha256Prefix)) return undefined;
    return { res: { status: slot.report.status ?? 200, body: slot.report, fromJournal: slot.report } };
  };
  const answers = async (rows: BatchRow[]): Promise<Array<KnownAnswer | undefined>> => {
    if (rows.length === 0) return [];
    const slotOf = index.read(client.clock());
    const out: Array<KnownAnswer | undefined> = new Array(rows.length);
    const ask: number[] = [];
    for (const [i, row] of rows.entries()) {
      const slot = slotOf(row.row);
      if (slot.kind === 'ask') ask.push(i);
      else if (slot.kind === 'answer') {
        const known = slot.report.outcome === 'succeeded' ? successOf(row, slot) : await answerOf(() => client.journalReportAnswer(requestOf(row), slot.report, slot.bodySha256Prefix));
        if (known) out[i] = known;
        else ask.push(i); // another body than the one the verdict was made for
      }
    }
    if (ask.length > 0) {
      const histories = historiesOrNothing(journal, ask.map((i) => rows[i]!.idempotencyKey));
      for (const i of ask) {
        const history = histories.get(rows[i]!.idempotencyKey) ?? [];
        if (history.length > 0) out[i] = await answerOf(() => client.journalAnswer(requestOf(rows[i]!), history));
      }
    }
    return out;
  };
  return { answers, close: () => index.close(), pass: index.stats };
}

function historiesOrNothing(journal: Journal, keys: string[]): Map<string, JournalEntry[]> {
  try {
    return journal.historiesForBatch(keys);
  } catch (err) {
    if (err instanceof CardctlError) return new Map(); // each row meets it again on the ordinary path, and says it
    throw err;
  }
}
