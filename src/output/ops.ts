// How `cardctl ops list` shows the journal to people: one row per money operation.
import type { JournalEntry } from '../client/journal.js';
import { formatTable, type Column } from './text.js';

/** The amount the operation moves, in minor units, from its body (an issue's `amount_minor`, its initial load; a recharge's `amount`); '' when it has none (terminate) or the body is no longer kept (compacted). */
function amountMinor(e: JournalEntry): string {
  if (!e.body_b64) return '';
  try {
    const body = JSON.parse(Buffer.from(e.body_b64, 'base64').toString('utf8')) as {
      amount_minor?: unknown;
      amount?: unknown;
    } | null;
    const amount = body?.amount_minor ?? body?.amount;
    return typeof amount === 'number' ? String(amount) : '';
  } catch {
    return '';
  }
}

export const OPS_COLUMNS: ReadonlyArray<Column<JournalEntry>> = [
  { header: 'ID', get: (e) => e.id },
  { header: 'TIME', get: (e) => e.time },
  { header: 'MODE', get: (e) => e.mode },
  { header: 'OPERATION', get: (e) => `${e.method} ${e.path}` },
  { header: 'AMOUNT_MINOR', get: amountMinor },
  { header: 'STATUS', get: (e) => e.status },
  { header: 'OUTCOME', get: (e) => (e.resolution ? `${e.resolution.outcome} (ops resolve)` : e.outcome) },
  { header: 'RESOURCE', get: (e) => e.resource_id },
  { header: 'IDEMPOTENCY KEY', get: (e) => e.idempotency_key },
];

export function formatOps(entries: readonly JournalEntry[], stream: { isTTY?: boolean }): Promise<string> {
  return formatTable(entries, OPS_COLUMNS, stream);
}
