// Bulk money operations (PRODUCT.md, "Bulk"): `cards issue --batch FILE` and `cards recharge
// --batch FILE`. Reads a CSV or NDJSON file, validates EVERY row before anything is sent,
// derives each row's Idempotency-Key from the rows' content and the row number (so running the
// same file again replays what went through), and sends the rows from a small worker pool under
// a client-side rate limiter. Sending, retries and the journal stay the client's; the clock,
// the sleep and the client are injectable (tests drive a virtual clock).
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { CardctlError, usageError, type ErrorKind } from '../errors.js';
import type { ApiClient, ApiResponse } from './client.js';
import type { JournalReport } from './money-rules.js';
import { header, retryAfterSeconds } from './errors.js';
import { kycRefusedCustomer, readKycHint, withKycHint } from './kyc-hint.js';
import { callOperation, checkBody, checkId, type OperationCall } from './operations.js';
import type { Headers, VerboseLog } from './verbose.js';

export type BatchOperation = 'cards.issue' | 'cards.recharge';
export type BatchFormat = 'csv' | 'ndjson';

/** A batch file is read whole; beyond this it is refused (split it). */
export const MAX_BATCH_BYTES = 50 * 1024 * 1024;
export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;
/** The window `X-RateLimit-Limit` counts over (the spec: requests per minute per key). */
export const RATE_WINDOW_MS = 60_000;
/** A Retry-After longer than this is honoured only this long per pause. */
export const MAX_PAUSE_MS = 600_000;
/** A row still refused with 429 after the client's own retries goes round again (after the pause) this many times in all. */
export const MAX_RATE_LIMITED_ROUNDS = 5;
/** Longest `--idempotency-prefix`: the key adds `-ROW` and must stay within 255 characters. */
export const MAX_PREFIX_LENGTH = 200;

// Column names per operation, the API's field names and the flag-style ones.
const COLUMNS: Record<BatchOperation, Record<string, string>> = {
  'cards.issue': { customer_id: 'customer_id', customer: 'customer_id', amount_minor: 'amount_minor', amount: 'amount_minor', product_id: 'product_id', product: 'product_id' },
  'cards.recharge': { card_id: 'card_id', card: 'card_id', amount: 'amount' },
};
const REQUIRED: Record<BatchOperation, string[]> = { 'cards.issue': ['customer_id', 'amount_minor'], 'cards.recharge': ['card_id', 'amount'] };
const expected = (op: BatchOperation): string =>
  op === 'cards.issue' ? 'customer_id (or customer), amount_minor (or amount), optional product_id (or product)' : 'card_id (or card), amount';

// ---------------------------------------------------------------------------------------------
// Reading

/** The file's bytes (`-`: stdin), refused beyond `max` bytes. */
export async function readBatchSource(file: string, opts: { stdin?: NodeJS.ReadableStream; max?: number } = {}): Promise<Buffer> {
  const max = opts.max ?? MAX_BATCH_BYTES;
  const tooLarge = (what: string) =>
    usageError(`${what} is larger than ${Math.round(max / 1024 / 1024)} MB, the most a batch may hold.`, 'Split it into smaller files (each file gets its own idempotency keys) and run them one after the other.');
  if (file === '-') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of opts.stdin ?? process.stdin) {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8');
      size += b.length;
      if (size > max) throw tooLarge('the batch on stdin');
      chunks.push(b);
    }
    return Buffer.concat(chunks);
  }
  let info;
  try {
    info = await stat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(`cannot read the batch file ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`, 'Check the path (or pass - to read the rows from stdin).');
  }
  if (!info.isFile()) throw usageError(`the batch file ${file} is not a regular file.`, 'Pass a CSV or NDJSON file, or - to read the rows from stdin.');
  if (info.size > max) throw tooLarge(`the batch file ${file} (${(info.size / 1024 / 1024).toFixed(1)} MB)`);
  return readFile(file);
}

/** `.csv` is CSV, `.ndjson`/`.jsonl` NDJSON; otherwise the first non-blank character decides (`{`: NDJSON). */
export function detectFormat(name: string | undefined, text: string): BatchFormat {
  const ext = name && name !== '-' ? extname(name).toLowerCase() : '';
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  return /^\s*\{/.test(text) ? 'ndjson' : 'csv';
}

/** A record of the file: its fields by (lower-cased) name, or why it could not be read. */
export interface RawRecord {
  /** 1-based data row (the header and blank lines are not rows) */
  row: number;
  /** the line of the file where it starts */
  line: number;
  fields?: Record<string, unknown>;
  error?: string;
}

/** RFC 4180 CSV: quoted fields (with `""` and line breaks inside), CRLF or LF; blank lines skipped. */
export function* csvRows(text: string): Generator<{ line: number; cells: string[]; error?: string }> {
  let i = 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    const start = line;
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    let error: string | undefined;
    let ended = false;
    while (i < n && !ended) {
      const ch = text[i]!;
      if (quoted) {
        if (ch === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
          } else {
            quoted = false;
            i++;
          }
        } else {
          if (ch === '\n') line++;
          cell += ch;
          i++;
        }
        continue;
      }
      if (ch === '"' && cell.trim() === '') {
        quoted = true;
        cell = '';
        i++;
      } else if (ch === ',') {
        cells.push(cell.trim());
        cell = '';
        i++;
      } else if (ch === '\r' || ch === '\n') {
        i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
        line++;
        ended = true;
      } else {
        cell += ch;
        i++;
      }
    }
    if (quoted) error = 'a quoted field is not closed before the end of the file.';
    cells.push(cell.trim());
    if (cells.length === 1 && cells[0] === '' && !error) continue; // a blank line
    yield { line: start, cells, error };
  }
}

/** The records of a batch file, header handled, in file order. `problems` are file-level (a bad header). */
export function parseRecords(operation: BatchOperation, text: string, format: BatchFormat): { records: RawRecord[]; problems: RowProblem[] } {
  const records: RawRecord[] = [];
  const problems: RowProblem[] = [];
  if (format === 'ndjson') {
    const lines = text.split('\n');
    let row = 0;
    lines.forEach((raw, index) => {
      const textLine = raw.replace(/\r$/, '');
      if (textLine.trim() === '') return;
      row++;
      const line = index + 1;
      let value: unknown;
      try {
        value = JSON.parse(textLine);
      } catch (err) {
        records.push({ row, line, error: `not valid JSON (${(err as Error).message}).` });
        return;
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        records.push({ row, line, error: 'each line must be one JSON object, such as {"customer_id": "...", "amount_minor": 5000}.' });
        return;
      }
      const fields: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) fields[k.trim().toLowerCase()] = v;
      records.push({ row, line, fields });
    });
    return { records, problems };
  }

  let header: string[] | undefined;
  let headerLine = 1;
  let row = 0;
  for (const rec of csvRows(text)) {
    if (!header) {
      headerLine = rec.line;
      header = rec.cells.map((c) => c.toLowerCase());
      const errors: string[] = [];
      if (rec.error) errors.push(rec.error);
      const names = COLUMNS[operation];
      const seen = new Map<string, string>();
      for (const h of header) {
        const target = names[h];
        if (!target) errors.push(`"${h}" is not a column of this batch (expected ${expected(operation)}).`);
        else if (seen.has(target)) errors.push(`"${h}" and "${seen.get(target)}" name the same column.`);
        else seen.set(target, h);
      }
      for (const need of REQUIRED[operation]) if (![...seen.keys()].includes(need)) errors.push(`no ${need} column (the first line must name the columns: ${expected(operation)}).`);
      if (errors.length) {
        problems.push({ row: 0, line: rec.line, errors: { header: errors } });
        return { records, problems };
      }
      continue;
    }
    row++;
    if (rec.error) {
      records.push({ row, line: rec.line, error: rec.error });
      continue;
    }
    if (rec.cells.length > header.length) {
      records.push({ row, line: rec.line, error: `${rec.cells.length} fields, but the header on line ${headerLine} names ${header.length} columns.` });
      continue;
    }
    const fields: Record<string, unknown> = {};
    header.forEach((h, k) => {
      const v = rec.cells[k];
      if (v !== undefined && v !== '') fields[h] = v;
    });
    records.push({ row, line: rec.line, fields });
  }
  if (!header) problems.push({ row: 0, line: 1, errors: { header: [`the file is empty (a CSV batch starts with a header line: ${expected(operation)}).`] } });
  return { records, problems };
}

// ---------------------------------------------------------------------------------------------
// Validating

export interface BatchRow {
  row: number;
  line: number;
  idempotencyKey: string;
  call: OperationCall & { json: Record<string, unknown> };
}

export interface RowProblem {
  /** 0 for the header */
  row: number;
  line: number;
  /** field -> messages, as the API's 422 would give them */
  errors: Record<string, string[]>;
}

export interface BatchPlan {
  operation: BatchOperation;
  format: BatchFormat;
  rows: BatchRow[];
  problems: RowProblem[];
  /** the part of every key before `-ROW` */
  keyPrefix: string;
}

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

// ---------------------------------------------------------------------------------------------
// The rate limiter

export interface LimiterStats {
  /** attempts sent (first sends and the client's retries) */
  requests: number;
  /** 429 answers */
  throttled: number;
  /** times every worker was paused for a Retry-After */
  pauses: number;
}

/**
 * The client-side rate limiter every attempt of a batch goes through (first sends and the
 * client's own retries alike). Its rules:
 * 1. Slow start: until the first answer arrives, one request at a time (it tells the limit).
 * 2. Budget: the latest `X-RateLimit-Remaining`, minus the requests sent since it was read.
 *    While the budget is at least the low-water mark, max(2 x concurrency, limit / 10), requests
 *    go as fast as the workers send them. Below it they are spaced, the gap growing linearly as
 *    the budget falls, up to window / limit (the key's sustained rate, 100 ms at 600 a minute)
 *    when the budget is 0.
 * 3. Pause: a 429 (or a 503 with Retry-After) stops EVERY worker until its Retry-After has
 *    passed; the client's retry of that request waits for the same gate, so a limit that is
 *    hit costs one refused request, not one per worker.
 */
export class BatchLimiter {
  readonly stats: LimiterStats = { requests: 0, throttled: 0, pauses: 0 };
  limit?: number;
  remaining?: number;
  private sentSince = 0;
  private nextAt = 0;
  private pauseUntil = 0;
  private probe: 'none' | 'sent' | 'done' = 'none';
  private openPool!: () => void;
  private readonly poolOpen = new Promise<void>((resolve) => (this.openPool = resolve));

  constructor(private readonly opts: { concurrency: number; now: () => number; sleep: (ms: number) => Promise<void>; windowMs?: number }) {}

  /** Waits until a request may go, and counts it. `retry`: the client's retry of a request already under way. */
  async acquire(retry = false): Promise<void> {
    for (;;) {
      const t = this.opts.now();
      if (t < this.pauseUntil) await this.opts.sleep(this.pauseUntil - t);
      else if (!retry && this.probe === 'sent') await this.poolOpen;
      else if (t < this.nextAt) await this.opts.sleep(this.nextAt - t);
      else break;
    }
    this.nextAt = this.opts.now() + this.gapMs();
    this.sentSince++;
    this.stats.requests++;
    if (this.probe === 'none') this.probe = 'sent';
  }

  /** The wait after a request before the next one, from the budget left (rule 2). */
  gapMs(): number {
    if (this.limit === undefined || this.remaining === undefined || this.limit <= 0) return 0;
    const budget = this.remaining - this.sentSince;
    const low = Math.max(2 * this.opts.concurrency, Math.ceil(this.limit / 10));
    if (budget >= low) return 0;
    const interval = (this.opts.windowMs ?? RATE_WINDOW_MS) / this.limit;
    return Math.round((interval * (low - Math.max(budget, 0))) / low);
  }

  /** An answer arrived (any status): the slow start is over. */
  answered(status: number): void {
    if (status === 429) this.stats.throttled++;
    this.settled();
  }

  /** A request finished, with or without an answer. */
  settled(): void {
    if (this.probe !== 'done') {
      this.probe = 'done';
      this.openPool();
    }
  }

  observeLimit(limit: number): void {
    if (Number.isFinite(limit) && limit > 0) this.limit = limit;
  }

  observeRemaining(remaining: number): void {
    if (!Number.isFinite(remaining) || remaining < 0) return;
    this.remaining = remaining;
    this.sentSince = 0;
  }

  /** Every worker waits until `seconds` from now (rule 3). True when this started or lengthened a pause. */
  pause(seconds: number): boolean {
    const until = this.opts.now() + Math.min(seconds * 1000, MAX_PAUSE_MS);
    if (until <= this.pauseUntil) return false;
    this.pauseUntil = until;
    this.stats.pauses++;
    return true;
  }

  get pausedUntil(): number {
    return this.pauseUntil;
  }
}

// ---------------------------------------------------------------------------------------------
// Running

export type RowStatus = 'ok' | 'error' | 'unknown';

export interface RowResult {
  row: number;
  line: number;
  idempotency_key: string;
  status: RowStatus;
  http_status: number | null;
  id: string | null;
  balance_minor: number | null;
  /** `hint`: what to do, as the single command says it (for a refused row; null for an unknown one, whose advice is the summary's rerun) */
  error: { message: string; code: string | null; hint: string | null } | null;
  /** not sent: the result is the journal's (a row already resolved, or a key the API has forgotten) */
  from_journal: boolean;
  /** what decides the exit code (not printed) */
  kind: ErrorKind | null;
}

export interface BatchCounts {
  total: number;
  done: number;
  ok: number;
  refused: number;
  unknown: number;
}

export interface BatchSummary extends BatchCounts {
  /** the error kinds met, each once */
  kinds: ErrorKind[];
  /** the rows whose outcome is unknown, and the refused ones (row numbers) */
  unknownRows: number[];
  refusedRows: number[];
  stats: LimiterStats;
}

/** What the batch hands to each row's client: its verbose log, its sleep (gated by the limiter), its clock and an answer hook (the rate limit headers). */
export interface BatchClientHooks {
  log?: VerboseLog;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  onAnswer: (status: number, headers: Headers) => void;
  /** the row's request was journaled and is going out */
  onSent: () => void;
}

/** Where a batch stands when it is interrupted (src/cli/interrupt.ts). */
export interface BatchInterruption {
  /** the rows still owed to stdout, in row order: finished ones held back behind a slower row, and the rows in flight (unknown) */
  results: RowResult[];
  counts: BatchCounts;
  /** rows whose request went out and got no answer */
  inFlight: number[];
  /** rows never sent */
  notSent: number[];
}

export interface RunBatchOptions {
  concurrency?: number;
  /** a client for one row; it must use the hooks' log, sleep and now */
  client: (hooks: BatchClientHooks, row: BatchRow) => ApiClient;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** `--verbose`: the client's lines for a row */
  verbose?: (row: BatchRow, line: string) => void;
  /** each row's result, in row order */
  onResult?: (result: RowResult) => void;
  /** after each row finishes (before its result, and any held back behind it, is reported) */
  onProgress?: (counts: BatchCounts) => void;
  /** every worker now waits this long (a 429, or a 503 with Retry-After): a batch never goes quiet unexplained */
  onPause?: (ms: number, status: number) => void;
  windowMs?: number;
  limiter?: BatchLimiter;
  /** called once, before any row: `interrupt()` stops the in-order reporting and says where the batch stands */
  onStart?: (control: { interrupt: () => BatchInterruption }) => void;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type CardData = { id?: unknown; balance_minor?: unknown };
const dataOf = (res: ApiResponse | undefined): CardData | undefined => {
  const data = (res?.body as { data?: unknown } | undefined)?.data;
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as CardData) : undefined;
};

function resultOf(row: BatchRow, res: ApiResponse | undefined, err?: unknown): RowResult {
  const data = dataOf(res);
  const e = err === undefined ? undefined : err instanceof CardctlError ? err : new CardctlError(err instanceof Error ? err.message : String(err), { kind: 'unexpected' });
  // the journal's answer instead of a request: on a success (res) or a failure (the error's data)
  const reported = e?.data as Partial<JournalReport> | undefined;
  const journal = res?.fromJournal ?? (reported?.from_journal ? (reported as JournalReport) : undefined);
  const base = {
    row: row.row,
    line: row.line,
    idempotency_key: row.idempotencyKey,
    http_status: journal ? journal.status : (res?.status ?? null),
    id: journal ? journal.id : typeof data?.id === 'string' ? data.id : null,
    balance_minor: typeof data?.balance_minor === 'number' ? data.balance_minor : null,
    from_journal: journal !== undefined,
  };
  if (e === undefined) return { ...base, status: 'ok', error: null, kind: null };
  return {
    ...base,
    http_status: base.http_status ?? res?.status ?? e.status ?? null,
    status: e.kind === 'outcome_unknown' ? 'unknown' : 'error',
    error: { message: e.message, code: e.code ?? null, hint: e.kind === 'outcome_unknown' ? null : (e.hint ?? null) },
    kind: e.kind,
  };
}

/**
 * The rows of a running batch: which to send next, which went out, their results counted and
 * reported in row order (a row that finishes early waits for the ones before it), and where
 * the batch stands when it is interrupted.
 */
class RowLedger {
  readonly counts: BatchCounts;
  private readonly kinds = new Set<ErrorKind>();
  private readonly unknownRows: number[] = [];
  private readonly refusedRows: number[] = [];
  private readonly finished = new Map<number, RowResult>();
  /** by index, from the moment a worker takes the row until its result */
  private readonly started = new Map<number, { row: BatchRow; sent: boolean }>();
  private emitNext = 0;
  private next = 0;
  private stopped = false;

  constructor(private readonly rows: readonly BatchRow[], private readonly report: Pick<RunBatchOptions, 'onResult' | 'onProgress'>) {
    this.counts = { total: rows.length, done: 0, ok: 0, refused: 0, unknown: 0 };
  }

  /** The next row to send; undefined when none is left or the batch was interrupted. */
  take(): { index: number; row: BatchRow } | undefined {
    if (this.stopped || this.next >= this.rows.length) return undefined;
    const index = this.next++;
    const row = this.rows[index]!;
    this.started.set(index, { row, sent: false });
    return { index, row };
  }

  /** The row's request was journaled and is going out. */
  sent(row: BatchRow): void {
    for (const s of this.started.values()) if (s.row === row) s.sent = true;
  }

  finish(index: number, result: RowResult): void {
    this.started.delete(index);
    const c = this.counts;
    c.done++;
    if (result.status === 'ok') c.ok++;
    else if (result.status === 'unknown') {
      c.unknown++;
      this.unknownRows.push(result.row);
    } else {
      c.refused++;
      this.refusedRows.push(result.row);
    }
    if (result.kind) this.kinds.add(result.kind);
    this.finished.set(index, result);
    this.report.onProgress?.({ ...c });
    for (let r = this.finished.get(this.emitNext); r && !this.stopped; r = this.finished.get(this.emitNext)) {
      this.finished.delete(this.emitNext);
      this.emitNext++;
      this.report.onResult?.(r);
    }
  }

  /** Stops taking and reporting rows; what is owed to stdout (in row order) and what is unresolved. */
  interrupt(): BatchInterruption {
    this.stopped = true;
    const started = [...this.started.entries()];
    const inFlight = started.filter(([, s]) => s.sent);
    const owed = [...this.finished.entries()].filter(([i]) => i >= this.emitNext);
    const lost = new CardctlError('interrupted before its answer: outcome unknown.', { kind: 'outcome_unknown', code: 'interrupted' });
    for (const [i, s] of inFlight) owed.push([i, resultOf(s.row, undefined, lost)]);
    owed.sort(([a], [b]) => a - b);
    const notSent = started.filter(([, s]) => !s.sent).map(([i]) => i).concat(Array.from({ length: this.rows.length - this.next }, (_, k) => this.next + k));
    const byRow = (a: number, b: number) => a - b;
    return {
      results: owed.map(([, r]) => r),
      counts: { ...this.counts },
      inFlight: inFlight.map(([, s]) => s.row.row).sort(byRow),
      notSent: notSent.map((i) => this.rows[i]!.row).sort(byRow),
    };
  }

  summary(stats: LimiterStats): BatchSummary {
    const byRow = (a: number, b: number) => a - b;
    return { ...this.counts, kinds: [...this.kinds], unknownRows: [...this.unknownRows].sort(byRow), refusedRows: [...this.refusedRows].sort(byRow), stats: { ...stats } };
  }
}

/** One answer hook for every row: each answer tells the limiter what budget is left; a Retry-After pauses every row. */
function answerHook(limiter: BatchLimiter, now: () => number, onPause?: RunBatchOptions['onPause']): BatchClientHooks['onAnswer'] {
  return (status, headers) => {
    limiter.answered(status);
    const limit = header(headers, 'x-ratelimit-limit');
    const remaining = header(headers, 'x-ratelimit-remaining');
    if (limit !== undefined) limiter.observeLimit(Number(limit));
    if (remaining !== undefined) limiter.observeRemaining(Number(remaining));
    if (status === 429 || status === 503) {
      const s = retryAfterSeconds(headers, now());
      if (s !== undefined && limiter.pause(s)) onPause?.(limiter.pausedUntil - now(), status);
    }
  };
}

/**
 * A row refused with `kyc_not_approved` gets the single command's hint for its customer's state
 * (src/client/kyc-hint.ts): the customer is read once per batch, through the limiter.
 */
function kycExplainer(limiter: BatchLimiter): (client: ApiClient, row: BatchRow, err: unknown) => Promise<unknown> {
  const hints = new Map<string, Promise<string | undefined>>();
  return async (client, row, err) => {
    const customer = kycRefusedCustomer(row.call, err);
    if (!customer) return err;
    let hint = hints.get(customer);
    if (!hint) {
      hint = (async () => {
        await limiter.acquire(true); // part of this row's work: it does not wait behind the slow start
        try {
          return await readKycHint(client, customer);
        } finally {
          limiter.settled();
        }
      })();
      hints.set(customer, hint);
    }
    return withKycHint(err as CardctlError, await hint);
  };
}

/** Sends every row of `plan` and reports each result in row order; never throws for a row's failure. */
export async function runBatch(plan: Pick<BatchPlan, 'operation' | 'rows'>, opts: RunBatchOptions): Promise<BatchSummary> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const concurrency = Math.max(1, Math.min(MAX_CONCURRENCY, opts.concurrency ?? DEFAULT_CONCURRENCY));
  const limiter = opts.limiter ?? new BatchLimiter({ concurrency, now, sleep, windowMs: opts.windowMs });
  const ledger = new RowLedger(plan.rows, opts);
  const onAnswer = answerHook(limiter, now, opts.onPause);
  const explain = kycExplainer(limiter);
  const hooksFor = (row: BatchRow): BatchClientHooks => ({
    now,
    onAnswer,
    // every retry of the client waits for its delay, then for the limiter like a first send
    sleep: async (ms) => {
      await sleep(ms);
      await limiter.acquire(true);
    },
    log: opts.verbose ? (line) => opts.verbose!(row, line) : undefined,
    onSent: () => ledger.sent(row),
  });

  const sendRow = async (row: BatchRow): Promise<RowResult> => {
    for (let round = 1; ; round++) {
      await limiter.acquire();
      let client: ApiClient | undefined;
      let res: ApiResponse | undefined;
      let failure: unknown;
      try {
        client = opts.client(hooksFor(row), row);
        res = await callOperation(client, plan.operation, { ...row.call, idempotencyKey: row.idempotencyKey, batch: true });
      } catch (err) {
        failure = err;
        res = (err as { response?: ApiResponse }).response;
      } finally {
        limiter.settled();
      }
      const result = failure === undefined ? resultOf(row, res) : resultOf(row, res, client ? await explain(client, row, failure) : failure);
      // a 429 means nothing was processed: once the pause is over, the same key goes again
      if (result.kind === 'rate_limited' && round < MAX_RATE_LIMITED_ROUNDS) continue;
      return result;
    }
  };

  const worker = async (): Promise<void> => {
    for (let t = ledger.take(); t; t = ledger.take()) ledger.finish(t.index, await sendRow(t.row));
  };
  opts.onStart?.({ interrupt: () => ledger.interrupt() });
  await Promise.all(Array.from({ length: Math.min(concurrency, plan.rows.length) }, worker));
  return ledger.summary(limiter.stats);
}
