// A rerun's rows answered by the journal in bulk: each chunk of rows asks the journal for its
// keys' histories in one query, and a row whose key the journal holds gets the answer the client
// would give without sending (ApiClient.journalAnswer: the same money rules, the same report).
// Every other row (nothing journaled, unknown and still within 23 h) goes the ordinary way, under
// its key's lock, where the journal is asked again: this never sends anything.
// A row of a file the version before sent (its key `batch-<file hash>-ROW` or `P-ROW` journaled
// for this very request) keeps that key: answered, or replayed, under it (legacyRows).
import { CardctlError } from '../../errors.js';
import type { ApiClient } from '../client.js';
import type { Journal, JournalEntry } from '../journal.js';
import { operationPath, routeOf } from '../operations.js';
import { entryRequest, rowRequests } from './request-identity.js';
import type { KnownAnswer } from './runner.js';
import type { BatchOperation, BatchRow } from './types.js';

export interface JournalAnswers {
  /** the journal's answers for a chunk of rows, in their order; undefined: send the row the ordinary way (a row the version before sent keeps its key: its idempotencyKey is set to it) */
  answers: (rows: BatchRow[]) => Promise<Array<KnownAnswer | undefined>>;
}

/** Answers chunks of rows from the journal (and the version before's keys, when the journal holds any). */
export async function journalAnswers(
  operation: BatchOperation,
  journal: Journal,
  client: ApiClient,
  batch: { legacyPrefix: string },
): Promise<JournalAnswers> {
  const ask = await asker(operation, journal, client);
  const legacy = (await hasLegacyKeys(journal, batch.legacyPrefix))
    ? await legacyRows(operation, journal, ask)
    : undefined;
  const answers = async (rows: BatchRow[]): Promise<Array<KnownAnswer | undefined>> => {
    const out: Array<KnownAnswer | undefined> = new Array(rows.length);
    if (rows.length === 0) return out;
    const own = legacy ? await legacy(rows, out) : rows.map((_, i) => i);
    await ask.byHistory(rows, own, out);
    return out;
  };
  return { answers };
}

/** A row number's digits at most, in a key of the version before (`P-ROW`); today's keys have 18 characters at least after `P-`. */
const ROW_DIGITS = 16;

/** Whether the journal holds a key the version before gave a row of this file (`P-ROW`), for any row. */
async function hasLegacyKeys(journal: Journal, legacyPrefix: string): Promise<boolean> {
  try {
    return await journal.hasNumberedKey(`${legacyPrefix}-`, ROW_DIGITS);
  } catch (err) {
    if (err instanceof CardctlError) return false; // each row meets it again on the ordinary path, and says it
    throw err;
  }
}

/** How a row is answered from the journal: by its key's whole history. */
async function asker(operation: BatchOperation, journal: Journal, client: ApiClient) {
  const route = routeOf(operation);
  const requestOf = (row: BatchRow) => ({
    method: route.method,
    path: operationPath(route, row.call.params),
    json: row.call.json,
    idempotencyKey: row.idempotencyKey,
    batch: true,
  });
  /** the row's answer from its key's history; undefined: send it */
  const answerOf = async (row: BatchRow, history: JournalEntry[]): Promise<KnownAnswer | undefined> => {
    try {
      const res = await client.journalAnswer(requestOf(row), history);
      return res ? { res } : undefined;
    } catch (err) {
      return { err };
    }
  };
  return {
    /** rows[i] for each i of `which`: answered by its key's history (out[i]), when the journal has one */
    byHistory: async (
      rows: BatchRow[],
      which: number[],
      out: Array<KnownAnswer | undefined>,
      known?: Map<string, JournalEntry[]>,
    ): Promise<void> => {
      const histories =
        known ??
        (await historiesOrNothing(
          journal,
          which.map((i) => rows[i]!.idempotencyKey),
        ));
      for (const i of which) {
        const history = histories.get(rows[i]!.idempotencyKey) ?? [];
        if (history.length > 0) out[i] = await answerOf(rows[i]!, history);
      }
    },
  };
}

/**
 * The rows of a file the version before sent (`batch-<file hash>-ROW`, `P-ROW`): a row whose
 * legacy key the journal holds for this very request (method, route and body) keeps that key
 * (row.idempotencyKey is set to it) and is answered under it, or sent under it (a replay) when the
 * rules say so. Returns the indexes of the other rows, which go by their own keys.
 */
async function legacyRows(operation: BatchOperation, journal: Journal, ask: Awaited<ReturnType<typeof asker>>) {
  const requestOf = await rowRequests(operation);
  return async (rows: BatchRow[], out: Array<KnownAnswer | undefined>): Promise<number[]> => {
    const histories = await historiesOrNothing(
      journal,
      rows.map((r) => r.legacyKey),
    );
    const own: number[] = [];
    const mine: number[] = [];
    for (const [i, row] of rows.entries()) {
      const text = requestOf(row);
      const sent = (histories.get(row.legacyKey) ?? []).some((e) => entryRequest(e) === text);
      if (sent) {
        row.idempotencyKey = row.legacyKey;
        mine.push(i);
      } else own.push(i); // not journaled, or the key the version before gave another request
    }
    const byKey = new Map<string, JournalEntry[]>();
    for (const i of mine) byKey.set(rows[i]!.legacyKey, histories.get(rows[i]!.legacyKey)!);
    await ask.byHistory(rows, mine, out, byKey);
    return own;
  };
}

async function historiesOrNothing(journal: Journal, keys: string[]): Promise<Map<string, JournalEntry[]>> {
  try {
    return await journal.historyMany(keys);
  } catch (err) {
    if (err instanceof CardctlError) return new Map(); // each row meets it again on the ordinary path, and says it
    throw err;
  }
}
