// A rerun's rows answered by the journal in bulk. Once per batch, a pass over the journal
// (src/client/batch/rerun-index.ts) notes each row's verdict; each chunk of rows then reads its
// verdicts in one go, and a row the journal resolved gets the answer the client would give
// without sending (the same report, checked against the row's own body). A row whose key's
// history the pass could not hold is asked of the journal directly (ApiClient.journalAnswer).
// Every other row (nothing journaled, unknown and still within 23 h, a damaged bucket) goes the
// ordinary way, under its key's lock, where the journal is asked again: this never sends anything.
// A row of a file the version before sent (its key `batch-<file hash>-ROW` or `P-ROW` journaled
// for this very request) keeps that key: answered, or replayed, under it (legacyRows).
import { hash } from 'node:crypto';
import { CardctlError } from '../../errors.js';
import type { ApiClient } from '../client.js';
import type { Journal, JournalEntry } from '../journal.js';
import type { JournalReport } from '../money-rules.js';
import { bodyFieldOrder, serializeDeterministic } from '../serialize.js';
import { operationPath, routeOf } from '../operations.js';
import { RerunIndex, type PassStats, type PassThreads, type RerunBatch } from './rerun-index.js';
import type { Slot } from './rerun-slots.js';
import { entryRequest, requestSha, rowRequests } from './request-identity.js';
import type { KnownAnswer } from './runner.js';
import type { BatchOperation, BatchRow } from './types.js';

export interface JournalAnswers {
  /** the journal's answers for a chunk of rows, in their order; undefined: send the row the ordinary way (a row the version before sent keeps its key: its idempotencyKey is set to it) */
  answers: (rows: BatchRow[]) => Promise<Array<KnownAnswer | undefined>>;
  close: () => void;
  /** what the pass over the journal read */
  pass: PassStats;
  /** every row's own key has a verdict (none is sent under a key the journal does not hold), and no legacy key is journaled */
  allKnown: boolean;
}

/** Reads the journal once for the batch's keys (and the version before's), then answers chunks of rows. */
export async function journalAnswers(
  operation: BatchOperation,
  journal: Journal,
  client: ApiClient,
  batch: RerunBatch & { threads?: PassThreads },
): Promise<JournalAnswers> {
  const { baseUrl, mode, keyId, formerKeyIds } = client.credentials;
  let index: RerunIndex;
  try {
    index = await RerunIndex.build(journal, {
      ...batch,
      target: { baseUrl, mode, keyId, formerKeyIds },
      nowMs: client.clock(),
    });
  } catch (err) {
    if (!(err instanceof CardctlError)) throw err;
    index = RerunIndex.empty(); // each row meets it again on the ordinary path, and says it
  }
  const ask = await asker(operation, journal, client);
  const legacy = await legacyRows(operation, journal, ask);
  const answers = async (rows: BatchRow[]): Promise<Array<KnownAnswer | undefined>> => {
    const out: Array<KnownAnswer | undefined> = new Array(rows.length);
    if (rows.length === 0) return out;
    const now = client.clock();
    const own = index.hasLegacy ? await legacy(rows, index.readLegacy(now), out) : rows.map((_, i) => i);
    const slotOf = index.read(now);
    const asked: number[] = [];
    for (const i of own) {
      const row = rows[i]!;
      const slot = slotOf(row.row, row.idempotencyKey);
      if (slot.kind === 'ask') asked.push(i);
      else if (slot.kind === 'answer') {
        const known = slot.report.outcome === 'succeeded' ? ask.success(row, slot) : await ask.byReport(row, slot);
        if (known) out[i] = known;
        else asked.push(i); // another body than the one the verdict was made for
      }
    }
    await ask.byHistory(rows, asked, out);
    return out;
  };
  return {
    answers,
    close: () => index.close(),
    pass: index.stats,
    allKnown: !index.hasLegacy && index.verdicts() === batch.total,
  };
}

/** A row's slot when the journal answers it. */
type AnswerSlot = { report: JournalReport; bodySha256Prefix: string };

/** The ways a row is answered from the journal: a success from its slot, another report from its slot, or its key's whole history. */
async function asker(operation: BatchOperation, journal: Journal, client: ApiClient) {
  const route = routeOf(operation);
  const requestOf = (row: BatchRow) => ({
    method: route.method,
    path: operationPath(route, row.call.params),
    json: row.call.json,
    idempotencyKey: row.idempotencyKey,
    batch: true,
  });
  const answerOf = async (
    run: () => Promise<Awaited<ReturnType<ApiClient['journalAnswer']>>>,
  ): Promise<KnownAnswer | undefined> => {
    try {
      const res = await run();
      return res ? { res } : undefined;
    } catch (err) {
      return { err };
    }
  };
  const fieldOrder = await bodyFieldOrder(route.operation);
  return {
    /**
     * A success the journal holds, for a row with the body it was sent with: what the client's
     * journal answer gives a row's result (status, body and report; ApiClient.fromJournal), without
     * preparing a request (a rerun answers a million rows). The body's bytes are the ones the client
     * would send (serializeMoneyBody: the same serialization, as UTF-8).
     */
    success: (row: BatchRow, slot: AnswerSlot): KnownAnswer | undefined => {
      const body = serializeDeterministic(row.call.json, fieldOrder); // hashed as its UTF-8 bytes, as serializeMoneyBody sends them
      if (!hash('sha256', body, 'hex').startsWith(slot.bodySha256Prefix)) return undefined;
      return known(slot.report);
    },
    byReport: (row: BatchRow, slot: AnswerSlot) =>
      answerOf(() => client.journalReportAnswer(requestOf(row), slot.report, slot.bodySha256Prefix)),
    /** rows[i] for each i of `which`: answered by its key's history (out[i]), when the journal has one */
    byHistory: async (
      rows: BatchRow[],
      which: number[],
      out: Array<KnownAnswer | undefined>,
      histories = historiesOrNothing(
        journal,
        which.map((i) => rows[i]!.idempotencyKey),
      ),
    ): Promise<void> => {
      for (const i of which) {
        const history = histories.get(rows[i]!.idempotencyKey) ?? [];
        if (history.length > 0) out[i] = await answerOf(() => client.journalAnswer(requestOf(rows[i]!), history));
      }
    },
  };
}

const known = (report: JournalReport): KnownAnswer => ({
  res: { status: report.status ?? 200, body: report, fromJournal: report },
});

/**
 * The rows of a file the version before sent (`batch-<file hash>-ROW`, `P-ROW`): a row whose
 * legacy key the journal holds for this very request (method, route and body) keeps that key
 * (row.idempotencyKey is set to it) and is answered under it, or sent under it (a replay) when the
 * rules say so. Returns the indexes of the other rows, which go by their own keys.
 */
async function legacyRows(operation: BatchOperation, journal: Journal, ask: Awaited<ReturnType<typeof asker>>) {
  const requestOf = await rowRequests(operation);
  return async (
    rows: BatchRow[],
    slotOf: (row: number, key: string) => Slot,
    out: Array<KnownAnswer | undefined>,
  ): Promise<number[]> => {
    const own: number[] = [];
    const asked: number[] = [];
    for (const [i, row] of rows.entries()) {
      const slot = slotOf(row.row, row.legacyKey);
      if (slot.kind === 'none') own.push(i);
      else if (slot.kind === 'ask') asked.push(i);
      else if (!requestSha(requestOf(row)).startsWith(slot.bodySha256Prefix))
        own.push(i); // the key the version before gave another request
      else {
        row.idempotencyKey = row.legacyKey;
        if (slot.report.outcome === 'succeeded') out[i] = known(slot.report);
        else asked.push(i);
      }
    }
    if (asked.length === 0) return own;
    const histories = historiesOrNothing(
      journal,
      asked.map((i) => rows[i]!.legacyKey),
    );
    const mine = asked.filter((i) => {
      const text = requestOf(rows[i]!);
      const sent = (histories.get(rows[i]!.legacyKey) ?? []).some((e) => entryRequest(e) === text);
      if (sent) rows[i]!.idempotencyKey = rows[i]!.legacyKey;
      else own.push(i);
      return sent;
    });
    const byKey = new Map<string, JournalEntry[]>();
    for (const i of mine) byKey.set(rows[i]!.legacyKey, histories.get(rows[i]!.legacyKey)!);
    await ask.byHistory(rows, mine, out, byKey);
    return own.sort((a, b) => a - b);
  };
}

function historiesOrNothing(journal: Journal, keys: string[]): Map<string, JournalEntry[]> {
  try {
    return journal.historiesForBatch(keys);
  } catch (err) {
    if (err instanceof CardctlError) return new Map(); // each row meets it again on the ordinary path, and says it
    throw err;
  }
}
