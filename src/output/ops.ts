// How `cardctl ops list` shows the journal to people: one row per money operation.
import type { JournalEntry } from '../client/journal.js';
import { formatTable, type Column } from './text.js';

export const OPS_COLUMNS: ReadonlyArray<Column<JournalEntry>> = [
  { header: 'ID', get: (e) => e.id },
  { header: 'TIME', get: (e) => e.time },
  { header: 'MODE', get: (e) => e.mode },
  { header: 'OPERATION', get: (e) => `${e.method} ${e.path}` },
  { header: 'STATUS', get: (e) => e.status },
  { header: 'OUTCOME', get: (e) => (e.resolution ? `${e.resolution.outcome} (ops resolve)` : e.outcome) },
  { header: 'RESOURCE', get: (e) => e.resource_id },
  { header: 'IDEMPOTENCY KEY', get: (e) => e.idempotency_key },
];

export function formatOps(entries: readonly JournalEntry[], stream: { isTTY?: boolean } = process.stdout): Promise<string> {
  return formatTable(entries, OPS_COLUMNS, stream);
}
