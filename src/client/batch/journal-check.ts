// A rerun's rows answered by the journal in bulk: the histories of a chunk of rows' keys are
// read with Journal.historiesForBatch (each key bucket once, only the wanted keys' lines parsed), and each row the journal resolved gets
// the answer the client would give without sending (ApiClient.journalAnswer). Every other row
// (nothing journaled, unknown and still within 23 h, a damaged bucket) goes the ordinary way,
// under its key's lock, where the journal is asked again: this shortcut never sends anything.
import { CardctlError } from '../../errors.js';
import type { ApiClient } from '../client.js';
import type { Journal, JournalEntry } from '../journal.js';
import { operationPath, routeOf } from '../operations.js';
import type { KnownAnswer } from './runner.js';
import type { BatchOperation, BatchRow } from './types.js';

export function journalAnswers(operation: BatchOperation, journal: Journal, client: ApiClient): (rows: BatchRow[]) => Promise<Array<KnownAnswer | undefined>> {
  const route = routeOf(operation);
  return async (rows) => {
    let histories: Map<string, JournalEntry[]>;
    try {
      histories = journal.historiesForBatch(rows.map((r) => r.idempotencyKey));
    } catch (err) {
      if (err instanceof CardctlError) return []; // each row meets it again on the ordinary path, and says it
      throw err;
    }
    const answers: Array<KnownAnswer | undefined> = [];
    for (const row of rows) {
      const history = histories.get(row.idempotencyKey) ?? [];
      if (history.length === 0) {
        answers.push(undefined);
        continue;
      }
      const req = { method: route.method, path: operationPath(route, row.call.params), json: row.call.json, idempotencyKey: row.idempotencyKey, batch: true };
      try {
        const res = await client.journalAnswer(req, history);
        answers.push(res ? { res } : undefined);
      } catch (err) {
        answers.push({ err });
      }
    }
    return answers;
  };
}
