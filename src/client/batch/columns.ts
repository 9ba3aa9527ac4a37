// The columns (CSV) and fields (NDJSON) of each batch operation: the API's field names and the
// flag-style ones, and which are required.
import type { BatchOperation } from './types.js';

export const COLUMNS: Record<BatchOperation, Record<string, string>> = {
  'cards.issue': {
    customer_id: 'customer_id',
    customer: 'customer_id',
    amount_minor: 'amount_minor',
    amount: 'amount_minor',
    product_id: 'product_id',
    product: 'product_id',
  },
  'cards.recharge': { card_id: 'card_id', card: 'card_id', amount: 'amount' },
};
/** The fields that hold an amount (read as --amount reads its value). */
export const AMOUNTS: ReadonlySet<string> = new Set(['amount_minor', 'amount']);
export const REQUIRED: Record<BatchOperation, string[]> = {
  'cards.issue': ['customer_id', 'amount_minor'],
  'cards.recharge': ['card_id', 'amount'],
};
export const expected = (op: BatchOperation): string =>
  op === 'cards.issue'
    ? 'customer_id (or customer), amount_minor (or amount), optional product_id (or product)'
    : 'card_id (or card), amount';

/** One row as the operation at hand takes it, for hints. */
export const example = (op: BatchOperation): string =>
  op === 'cards.issue'
    ? '{"customer_id": "01JD2Q...", "amount_minor": 5000}'
    : '{"card_id": "01JD2Q...", "amount": 500}';
