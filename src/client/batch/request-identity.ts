// What a money request asks, as one text: its method, its route's path (what follows the base
// URL's path, from `/cards`) and its body's SHA-256. Two sends with the same text ask the same of
// the API: the same card recharged by the same amount, the same customer issued the same card.
// A rerun matches a row to the key the version before gave it (src/client/batch/journal-check.ts),
// and a batch's repeats of recent successes under other keys are found (src/client/batch/repeats.ts), by it.
import { createHash, hash } from 'node:crypto';
import type { JournalEntry } from '../journal.js';
import { operationPath, routeOf } from '../operations.js';
import { bodyFieldOrder, serializeDeterministic } from '../serialize.js';
import type { BatchOperation, BatchRow } from './types.js';

/** The route part of a journaled path (`/api/v1/cards/X/recharge` -> `/cards/X/recharge`): the base URL's path plays no part. */
const routeTail = (path: string): string => {
  const at = path.lastIndexOf('/cards');
  return at >= 0 ? path.slice(at) : path;
};

export const requestText = (method: string, path: string, bodySha256: string): string =>
  `${method} ${routeTail(path)}\n${bodySha256}`;

/** A journaled send's request text. */
export const entryRequest = (e: Pick<JournalEntry, 'method' | 'path' | 'body_sha256'>): string =>
  requestText(e.method, e.path, e.body_sha256);

/** The SHA-256 (hex) of a request text: what a legacy key's slot holds instead of the body's. */
export const requestSha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A batch's rows' request texts: the body serialized as the client sends it (serializeMoneyBody), hashed as its UTF-8 bytes. */
export async function rowRequests(operation: BatchOperation): Promise<(row: Pick<BatchRow, 'call'>) => string> {
  const route = routeOf(operation);
  const order = await bodyFieldOrder(route.operation);
  return (row) =>
    requestText(
      route.method,
      operationPath(route, row.call.params),
      hash('sha256', serializeDeterministic(row.call.json, order), 'hex'),
    );
}
