// Planning a batch: every record checked with the contract's schemas before anything is sent,
// and each row's Idempotency-Key derived from what the rows ask for (so the same file run again
// replays the rows that went through).
import { createHash } from 'node:crypto';
import { fstatSync } from 'node:fs';
import { CardctlError, usageError } from '../../errors.js';
import { plainlyValid } from '../../contract/money-bodies.js';
import { checkBody, checkId } from '../operations.js';
import { AMOUNTS, COLUMNS, expected } from './columns.js';
import { JsonNumber } from './ndjson.js';
import { RowDigests } from './digests.js';
import { readRecordChunks, spoolFormat } from './reader.js';
import { cutShortMessage, spoolBytes, type Spool } from './spool.js';
import { DEFAULT_KEY_PREFIX, keySuffix, legacyKey, rowKey } from './row-keys.js';
import { CheckedRows } from './checked-rows.js';
import {
  MAX_PREFIX_LENGTH,
  MAX_PROBLEMS_KEPT,
  type BatchFormat,
  type BatchOperation,
  type BatchPlan,
  type BatchRow,
  type RawRecord,
  type RowProblem,
} from './types.js';

/**
 * The key prefix the version before gave a file (`batch-<hash>`): a hash of what its rows ask for
 * (the operation and each row's checked request, in order). Its keys were `batch-<hash>-ROW`; a
 * rerun of the very same rows keeps them when the journal holds them (legacyKey, row-keys.ts).
 */
export function rowsKeyPrefix(operation: BatchOperation, calls: ReadonlyArray<BatchRow['call']>): string {
  const hash = createHash('sha256').update(operation);
  for (const c of calls) hash.update('\n' + callText(c));
  return `batch-${hash.digest('hex').slice(0, 16)}`;
}

/**
 * An amount read as `--amount` reads its value, in every format: a CSV cell, a string or a number
 * in NDJSON must be written as digits (an optional leading minus), nothing else: " 5", "5.0",
 * "1e3", "0x10", "+5", "5_000" are refused, never read as some other number. Other values
 * (a boolean, null, missing) go to the schema as they are, for its message.
 */
function amountOf(errors: Record<string, string[]>, field: string, v: unknown): unknown {
  const text = v instanceof JsonNumber ? v.literal : typeof v === 'string' ? v : undefined;
  if (text === undefined) return v;
  if (/^-?\d+$/.test(text)) return Number(text);
  (errors[field] ??= []).push(
    `${JSON.stringify(text)} is not a whole number of minor units: write digits only (no spaces, sign, decimals, exponent or hex), as for --amount.`,
  );
  return v;
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

const fieldMap = <T>(): Record<string, T> => Object.create(null) as Record<string, T>;

/** A record's call, built and checked field by field (ids, whole amounts, known columns), without the schemas. */
function callOf(
  operation: BatchOperation,
  rec: RawRecord,
): { call: BatchRow['call']; errors: Record<string, string[]> } {
  // null-prototype maps: a row's field names are the user's (`__proto__`, `constructor` are names like any other)
  const errors = fieldMap<string[]>();
  if (rec.error || !rec.fields) return { call: { json: {} }, errors: { row: [rec.error ?? 'unreadable.'] } };
  const names = COLUMNS[operation];
  const values = fieldMap<unknown>();
  /** the name each field was first given as (`card` or `card_id`): the one the user wrote */
  const givenAs = fieldMap<string>();
  for (const k of Object.keys(rec.fields)) {
    const v = rec.fields[k];
    const target = Object.hasOwn(names, k) ? names[k] : undefined;
    if (!target) {
      (errors[k] ??= []).push(`"${k}" is not a field of this batch (expected ${expected(operation)}).`);
      continue;
    }
    const first = givenAs[target];
    if (first !== undefined) {
      (errors[first] ??= []).push(
        `given twice (as "${first}" and as "${k}", two names of one field): which one is meant cannot be known; give it once.`,
      );
      continue;
    }
    givenAs[target] = k;
    values[target] = v instanceof JsonNumber && !AMOUNTS.has(target) ? Number(v.literal) : v; // a number where an id goes: the schema says so
  }
  if (operation === 'cards.issue') {
    const json: Record<string, unknown> = {
      customer_id: idField(errors, 'customer_id', 'customer', values.customer_id),
      amount_minor: amountOf(errors, 'amount_minor', values.amount_minor),
    };
    if (values.product_id !== undefined && values.product_id !== null && values.product_id !== '')
      json.product_id = idField(errors, 'product_id', 'product', values.product_id);
    return { call: { json }, errors };
  }
  const card = values.card_id;
  if (card === undefined || card === null || card === '') (errors.card_id ??= []).push('The card id is required.');
  else if (typeof card !== 'string') (errors.card_id ??= []).push('The card id must be a string.');
  const cardId = typeof card === 'string' && card !== '' ? idField(errors, 'card_id', 'card', card) : card;
  return {
    call: { params: { card: String(cardId ?? '') }, json: { amount: amountOf(errors, 'amount', values.amount) } },
    errors,
  };
}

const hasErrors = (errors: Record<string, string[]>): boolean => {
  for (const _ in errors) return true;
  return false;
};

/** One record checked with the contract's schemas (the API's own 422 messages); the call to send, or the field messages. */
export async function checkRecord(
  operation: BatchOperation,
  rec: RawRecord,
): Promise<{ call: BatchRow['call'] } | { errors: Record<string, string[]> }> {
  const built = callOf(operation, rec);
  return plainCall(operation, rec, built) ?? (await schemaChecked(operation, rec, built));
}

/** The call of a record surely accepted (what nearly every row is: no schema needed), else undefined. */
function plainCall(
  operation: BatchOperation,
  rec: RawRecord,
  { call, errors }: ReturnType<typeof callOf>,
): { call: BatchRow['call'] } | undefined {
  return !rec.error && rec.fields && !hasErrors(errors) && plainlyValid(operation, call.json) ? { call } : undefined;
}

async function schemaChecked(
  operation: BatchOperation,
  rec: RawRecord,
  { call, errors }: ReturnType<typeof callOf>,
): Promise<{ call: BatchRow['call'] } | { errors: Record<string, string[]> }> {
  if (rec.error || !rec.fields) return { errors };
  try {
    if (!plainlyValid(operation, call.json)) await checkBody(operation, call.json); // the schemas (zod), for their messages
  } catch (err) {
    if (!(err instanceof CardctlError) || err.kind !== 'usage') throw err;
    for (const [field, list] of Object.entries(err.errors)) {
      if (errors[field]) continue; // the id or number check already said it
      errors[field] = (Array.isArray(list) ? list : [list]).map(String);
    }
  }
  return hasErrors(errors) ? { errors } : { call };
}

/** The identity of a row's request: what its digest (and the legacy key prefix) hashes, and what makes two rows identical. */
const callText = (c: BatchRow['call']): string => JSON.stringify([c.params ?? {}, c.json]);

function checkPrefix(prefix: string | undefined): void {
  if (prefix !== undefined && !new RegExp(`^[\\x21-\\x7e]{1,${MAX_PREFIX_LENGTH}}$`).test(prefix)) {
    throw usageError(
      `the idempotency prefix must be 1 to ${MAX_PREFIX_LENGTH} printable ASCII characters without spaces.`,
      'Pass another --idempotency-prefix, or leave it out (the keys are then batch-<row digest>-<n>).',
    );
  }
}

export interface PlanOptions {
  /** `--idempotency-prefix` */
  prefix?: string;
  /** `--allow-duplicates`: identical rows are sent (and counted), not refused */
  allowDuplicates?: boolean;
  /** called every ROWS_BETWEEN_CALLS rows of the first reading (a batch watches its young generation) */
  onRows?: () => void;
}

const ROWS_BETWEEN_CALLS = 4096;

/** What the first reading found, as problems (the first MAX_PROBLEMS_KEPT) and counts. */
class ProblemList {
  readonly shown: RowProblem[] = [];
  rows = 0;
  file = false;

  add(p: RowProblem): void {
    if (p.row === 0) this.file = true;
    else this.rows++;
    if (this.shown.length < MAX_PROBLEMS_KEPT) this.shown.push(p);
  }
}

/**
 * The first reading: every row checked, identical rows found, each row's key derived, nothing
 * kept in memory but counts, the first problems and a digest per row; the checked calls go to a
 * private file for the second reading. The plan says whether anything may be sent.
 */
export async function planBatch(spool: Spool, operation: BatchOperation, opts: PlanOptions = {}): Promise<BatchPlan> {
  checkPrefix(opts.prefix);
  const format = await spoolFormat(spool);
  const checked = new CheckedRows();
  try {
    const { found, prefixHash, digests } = await firstReading(
      spool,
      operation,
      format,
      checked,
      opts.allowDuplicates === true,
      opts.onRows,
      opts.prefix === undefined,
    );
    checked.flush();
    const keyPrefix = opts.prefix ?? DEFAULT_KEY_PREFIX;
    return {
      operation,
      format,
      ...found,
      keyPrefix,
      legacyPrefix: opts.prefix ?? `batch-${prefixHash}`,
      digests,
      checked,
    };
  } catch (err) {
    checked.close();
    throw err;
  }
}

/** The most rows a spooled file can hold: each takes two bytes at least (a character and a line end). */
const maxRows = (spool: Spool): number => Math.ceil(fstatSync(spool.fd).size / 2) + 1;

type FirstReading = Pick<
  BatchPlan,
  'total' | 'amountTotal' | 'duplicates' | 'problems' | 'problemRows' | 'fileProblem' | 'unendedLastRow'
>;

async function firstReading(
  spool: Spool,
  operation: BatchOperation,
  format: BatchFormat,
  checked: CheckedRows,
  allowDuplicates: boolean,
  onRows: (() => void) | undefined,
  /** whether the legacy key prefix is the rows' hash (no --idempotency-prefix: with one, it is that prefix) */
  hashRows: boolean,
) {
  const problems = new ProblemList();
  const digests = new RowDigests(operation, maxRows(spool));
  const hash = hashRows ? createHash('sha256').update(operation) : undefined; // the legacy key prefix (row-keys.ts)
  const counts = { total: 0, amountTotal: 0, duplicates: 0 };
  let last: { row: number; line: number } | undefined;
  for await (const items of readRecordChunks(spool, operation, format))
    for (const item of items) {
      if ('problem' in item) {
        problems.add(item.problem);
        continue;
      }
      const rec = item.record;
      last = rec;
      if (++counts.total % ROWS_BETWEEN_CALLS === 0) onRows?.();
      const built = callOf(operation, rec);
      // awaited only for a row the schemas must look at: no promise a row
      const result = plainCall(operation, rec, built) ?? (await schemaChecked(operation, rec, built));
      if ('errors' in result) {
        problems.add({ row: rec.row, line: rec.line, errors: result.errors });
        continue;
      }
      const text = callText(result.call);
      hash?.update('\n' + text);
      const occurrence = digests.add(text, rec.row);
      const suffix = keySuffix(digests.hi32, digests.lo32, occurrence);
      if (problems.rows === 0 && !problems.file) checked.add(rec.row, rec.line, suffix, text); // a plan with a problem sends nothing
      counts.amountTotal += Number(result.call.json.amount_minor ?? result.call.json.amount ?? 0);
      const earlier = digests.earlier;
      if (earlier === 0) continue;
      counts.duplicates++;
      if (!allowDuplicates) {
        problems.add({
          row: rec.row,
          line: rec.line,
          errors: {
            row: [
              `the same request as row ${earlier}: sent twice, it would charge twice. Remove one, or pass --allow-duplicates if both are meant.`,
            ],
          },
        });
      }
    }
  // input cut short (a pipe's last row without its line end): that row may be a part of what was meant
  if (spool.cut)
    problems.add(
      last
        ? { row: last.row, line: last.line, errors: { row: [cutShortMessage(spool.cut)] } }
        : { row: 0, line: 1, errors: { file: [cutShortMessage(spool.cut)] } },
    );
  const found: FirstReading = {
    ...counts,
    problems: problems.shown,
    problemRows: problems.rows,
    fileProblem: problems.file,
    ...(spool.unended && last ? { unendedLastRow: { row: last.row, line: last.line } } : {}),
  };
  return { found, prefixHash: hash?.digest('hex').slice(0, 16), digests };
}

/** The rows as the first reading checked them, in file order, with their keys (the plan had no problem); read again at each call. */
export function* checkedRows(plan: BatchPlan): Generator<BatchRow> {
  for (const { row, line, keySuffix: suffix, call } of plan.checked.rows())
    yield {
      row,
      line,
      idempotencyKey: rowKey(plan.keyPrefix, suffix),
      legacyKey: legacyKey(plan.legacyPrefix, row),
      call,
    };
}

/** The second reading: the rows to send (checkedRows), the checked rows' file closed after. */
export function* planRows(plan: BatchPlan): Generator<BatchRow> {
  try {
    yield* checkedRows(plan);
  } finally {
    plan.checked.close();
  }
}

/** A whole (small) batch in memory: its plan and its rows (tests, and the in-process runner). */
export async function loadBatch(
  operation: BatchOperation,
  bytes: Buffer,
  opts: PlanOptions & { name?: string } = {},
): Promise<BatchPlan & { rows: BatchRow[] }> {
  const spool = await spoolBytes(bytes, opts.name);
  try {
    const plan = await planBatch(spool, operation, opts);
    const rows: BatchRow[] = [];
    if (plan.problems.length === 0) for await (const r of planRows(plan)) rows.push(r);
    plan.checked.close();
    return { ...plan, rows };
  } finally {
    spool.close();
  }
}
