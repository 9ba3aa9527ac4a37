// Planning a batch: every record checked with the contract's schemas before anything is sent,
// and each row's Idempotency-Key derived from what the rows ask for (so the same file run again
// replays the rows that went through).
import { createHash } from 'node:crypto';
import { CardctlError, usageError } from '../../errors.js';
import { checkBody, checkId } from '../operations.js';
import { COLUMNS, expected } from './columns.js';
import { detectFormat, parseRecords } from './reader.js';
import { MAX_PREFIX_LENGTH, type BatchOperation, type BatchPlan, type BatchRow, type RawRecord } from './types.js';

/**
 * The key prefix of a file: a hash of what its rows ask for (the operation and each row's
 * checked request, in order), not of its bytes, so a file that only gained a BOM, CRLF line
 * ends, a final newline, quotes or another column order keeps its keys and replays.
 */
export function rowsKeyPrefix(operation: BatchOperation, calls: ReadonlyArray<BatchRow['call']>): string {
  const hash = createHash('sha256').update(operation);
  for (const c of calls) hash.update('\n' + JSON.stringify([c.params ?? {}, c.json]));
  return `batch-${hash.digest('hex').slice(0, 16)}`;
}

export function rowKey(prefix: string, row: number): string {
  return `${prefix}-${row}`;
}

/** "5000" (a CSV cell, or a string in NDJSON) is read as 5000; anything else goes to the schema as it is, for its message. */
function amountOf(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  const s = v.trim();
  if (s === '') return undefined;
  return /^[+-]?\d+$/.test(s) ? Number(s) : v;
}

function idField(errors: Record<string, string[]>, field: string, what: string, v: unknown): unknown {
  if (typeof v !== 'string') return v; // the schema says "must be a string" or "is required"
  try {
    return checkId(what, v);
  } catch (err) {
    if (err instanceof CardctlError) (errors[field] ??= []).push(err.message.replace(/^./, (c) => c.toUpperCase()));
    else throw err;
    return v;
  }
}

/** One record checked with the contract's schemas (the API's own 422 messages); the call to send, or the field messages. */
export async function checkRecord(operation: BatchOperation, rec: RawRecord): Promise<{ call: BatchRow['call'] } | { errors: Record<string, string[]> }> {
  if (rec.error || !rec.fields) return { errors: { row: [rec.error ?? 'unreadable.'] } };
  const errors: Record<string, string[]> = {};
  const names = COLUMNS[operation];
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rec.fields)) {
    const target = names[k];
    if (!target) {
      (errors[k] ??= []).push(`"${k}" is not a field of this batch (expected ${expected(operation)}).`);
      continue;
    }
    if (target in values) {
      (errors[target] ??= []).push(`given twice (as ${target} and as ${k}).`);
      continue;
    }
    values[target] = v;
  }
  let call: BatchRow['call'];
  if (operation === 'cards.issue') {
    const json: Record<string, unknown> = {
      customer_id: idField(errors, 'customer_id', 'customer', values.customer_id),
      amount_minor: amountOf(values.amount_minor),
    };
    if (values.product_id !== undefined && values.product_id !== null && values.product_id !== '') json.product_id = idField(errors, 'product_id', 'product', values.product_id);
    call = { json };
  } else {
    const card = values.card_id;
    if (card === undefined || card === null || card === '') (errors.card_id ??= []).push('The card id is required.');
    else if (typeof card !== 'string') (errors.card_id ??= []).push('The card id must be a string.');
    const cardId = typeof card === 'string' && card !== '' ? idField(errors, 'card_id', 'card', card) : card;
    call = { params: { card: String(cardId ?? '') }, json: { amount: amountOf(values.amount) } };
  }
  try {
    await checkBody(operation, call.json);
  } catch (err) {
    if (!(err instanceof CardctlError) || err.kind !== 'usage') throw err;
    for (const [field, list] of Object.entries(err.errors)) {
      if (errors[field]) continue; // the id check already said it
      errors[field] = (Array.isArray(list) ? list : [list]).map(String);
    }
  }
  return Object.keys(errors).length ? { errors } : { call };
}

/** Reads and checks every row; `problems` empty means every row may be sent. */
export async function loadBatch(operation: BatchOperation, bytes: Buffer, opts: { name?: string; prefix?: string } = {}): Promise<BatchPlan> {
  if (opts.prefix !== undefined && !new RegExp(`^[\\x21-\\x7e]{1,${MAX_PREFIX_LENGTH}}$`).test(opts.prefix)) {
    throw usageError(`the idempotency prefix must be 1 to ${MAX_PREFIX_LENGTH} printable ASCII characters without spaces.`, 'Pass another --idempotency-prefix, or leave it out to derive the keys from the file.');
  }
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const format = detectFormat(opts.name, text);
  const { records, problems } = parseRecords(operation, text, format);
  const checkedRows: Array<{ rec: RawRecord; call: BatchRow['call'] }> = [];
  for (const rec of records) {
    const checked = await checkRecord(operation, rec);
    if ('errors' in checked) problems.push({ row: rec.row, line: rec.line, errors: checked.errors });
    else checkedRows.push({ rec, call: checked.call });
  }
  const keyPrefix = opts.prefix ?? rowsKeyPrefix(operation, checkedRows.map((r) => r.call));
  const rows = checkedRows.map(({ rec, call }): BatchRow => ({ row: rec.row, line: rec.line, idempotencyKey: rowKey(keyPrefix, rec.row), call }));
  return { operation, format, rows, problems, keyPrefix };
}
