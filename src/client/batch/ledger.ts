// The rows of a running batch: which to send next, which went out, their results counted and
// reported in row order, and where the batch stands when it is interrupted.
import { CardctlError, type ErrorKind } from '../../errors.js';
import type { ApiResponse } from '../client.js';
import type { JournalReport } from '../money-rules.js';
import {
  MAX_CONCURRENCY,
  type BatchCounts,
  type BatchInterruption,
  type BatchRow,
  type BatchSummary,
  type LimiterStats,
  type RowResult,
} from './types.js';

export interface LedgerReport {
  onResult?: (result: RowResult) => void;
  onProgress?: (counts: BatchCounts) => void;
}

type CardData = { id?: unknown; balance_minor?: unknown };

/** What a row's result reads of an answer (a journal's answer has no more to say). */
export type RowAnswer = Pick<ApiResponse, 'status' | 'body' | 'fromJournal'>;

const dataOf = (res: RowAnswer | undefined): CardData | undefined => {
  const data = (res?.body as { data?: unknown } | undefined)?.data;
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as CardData) : undefined;
};

export function resultOf(row: BatchRow, res: RowAnswer | undefined, err?: unknown): RowResult {
  const data = dataOf(res);
  const e =
    err === undefined
      ? undefined
      : err instanceof CardctlError
        ? err
        : new CardctlError(err instanceof Error ? err.message : String(err), { kind: 'unexpected' });
  // the journal's answer instead of a request: on a success (res) or a failure (the error's data)
  const reported = e?.data as Partial<JournalReport> | undefined;
  const journal = res?.fromJournal ?? (reported?.from_journal ? (reported as JournalReport) : undefined);
  const httpStatus = journal ? journal.status : (res?.status ?? null);
  const id = journal ? journal.id : typeof data?.id === 'string' ? data.id : null;
  const balance = journal
    ? (journal.balance_minor ?? null)
    : typeof data?.balance_minor === 'number'
      ? data.balance_minor
      : null;
  // literals, not `{ ...base, ... }`: V8 builds a spread followed by more fields many times slower, and a rerun reports a million rows
  if (e === undefined)
    return {
      row: row.row,
      line: row.line,
      idempotency_key: row.idempotencyKey,
      http_status: httpStatus,
      id,
      balance_minor: balance,
      from_journal: journal !== undefined,
      status: 'ok',
      error: null,
      kind: null,
    };
  return {
    row: row.row,
    line: row.line,
    idempotency_key: row.idempotencyKey,
    http_status: httpStatus ?? res?.status ?? e.status ?? null,
    id,
    balance_minor: balance,
    from_journal: journal !== undefined,
    status: e.kind === 'outcome_unknown' ? 'unknown' : 'error',
    // an unknown row's advice is the summary's rerun, but past 23 h a rerun cannot settle it: its own hint says what can
    error: {
      message: e.message,
      code: e.code ?? null,
      hint: e.kind === 'outcome_unknown' && e.code !== 'key_forgotten' ? null : (e.hint ?? null),
    },
    kind: e.kind,
  };
}

/** The first rows of a list that may grow without limit: the summary names the first 10. */
class FirstRows {
  readonly rows: number[] = [];
  /** every row added */
  count = 0;
  add(row: number): void {
    this.count++;
    if (this.rows.length > ROWS_NAMED && row > this.rows.at(-1)!) return;
    this.rows.push(row);
    this.rows.sort((a, b) => a - b);
    if (this.rows.length > ROWS_NAMED + 1) this.rows.pop();
  }
}

/** Rows named in a summary or an interruption (one more is kept, so "..." shows there were more). */
export const ROWS_NAMED = 10;

/**
 * The rows of a running batch: which went out, their results counted and reported in row
 * order (a row that finishes early waits for the ones before it, at most `window` rows), and
 * where the batch stands when it is interrupted. Nothing per row is kept once it is reported.
 * The rows between the next to report and the last taken sit in two rings indexed by row
 * index: no hash table is rebuilt as rows come and go (a rerun reports a million rows, and a
 * table's rebuilt storage outlives young collections, growing the old generation).
 */
/** The journal could not record the row (its server is down or unreachable, the disk is full): no later row could be either. */
const JOURNAL_DOWN = new Set([
  'journal_unreachable',
  'journal_unusable',
  'journal_refused',
  'journal_tls',
  'journal_busy',
  'state_folder_unwritable',
]);
export const stopsTheBatch = (r: RowResult): boolean =>
  r.http_status === null && !r.from_journal && JOURNAL_DOWN.has(r.error?.code ?? '');

export class RowLedger {
  readonly counts: BatchCounts;
  private readonly kinds = new Set<ErrorKind>();
  private readonly unknownRows = new FirstRows();
  /** unknown rows whose key was first sent over 23 h ago: no rerun can settle them */
  private readonly unknownPastLimit = new FirstRows();
  private readonly refusedRows = new FirstRows();
  /** refused before anything was sent (no answer, not from the journal): the API remembers nothing of them */
  private readonly refusedUnsentRows = new FirstRows();
  private readonly refusedSentRows = new FirstRows();
  private refusedUnsent = 0;
  private fromJournal = 0;
  private keyInUse = 0;
  private unreachable = 0;
  /** room() lets `window` rows wait; workers that passed it together may each take one more */
  private readonly capacity: number;
  private readonly finished: Array<RowResult | undefined>;
  /** by index, from the moment a worker takes the row until its result */
  private readonly started: Array<{ row: BatchRow; sent: boolean } | undefined>;
  private emitNext = 0;
  /** rows taken so far */
  taken = 0;
  stopped = false;
  /** the row whose journal could not be written: no row is taken after it (rows in flight still end) */
  halted: { row: number; message: string } | undefined;
  private advanced: Array<() => void> = [];

  constructor(
    total: number,
    private readonly report: LedgerReport,
    private readonly window = 4096,
  ) {
    this.counts = { total, done: 0, ok: 0, refused: 0, unknown: 0 };
    this.capacity = window + MAX_CONCURRENCY;
    this.finished = new Array<RowResult | undefined>(this.capacity).fill(undefined);
    this.started = new Array<{ row: BatchRow; sent: boolean } | undefined>(this.capacity).fill(undefined);
  }

  /** Whether a worker may take another row now (else await room()). */
  hasRoom(): boolean {
    return this.stopped || this.taken - this.emitNext < this.window;
  }

  /** Resolves when a worker may take another row: fewer than `window` rows wait to be reported. */
  async room(): Promise<void> {
    while (!this.stopped && this.taken - this.emitNext >= this.window)
      await new Promise<void>((r) => this.advanced.push(r));
  }

  /** A worker takes the next row (index: its place in the file, from 0). */
  take(row: BatchRow): number {
    const index = this.taken++;
    if (index - this.emitNext >= this.capacity)
      throw new CardctlError(
        `batch ledger overflow: row ${row.row} taken ${index - this.emitNext} rows ahead of the first unreported one.`,
        { kind: 'unexpected' },
      );
    this.started[index % this.capacity] = { row, sent: false };
    return index;
  }

  /** The row's request was journaled and is going out. */
  sent(index: number): void {
    const s = this.started[index % this.capacity];
    if (s) s.sent = true;
  }

  finish(index: number, result: RowResult): void {
    this.started[index % this.capacity] = undefined;
    const c = this.counts;
    c.done++;
    if (result.status === 'ok') c.ok++;
    else if (result.status === 'unknown') {
      c.unknown++;
      this.unknownRows.add(result.row);
      if (result.error?.code === 'key_forgotten') this.unknownPastLimit.add(result.row);
    } else {
      c.refused++;
      this.refusedRows.add(result.row);
      if (result.http_status === null && !result.from_journal) {
        this.refusedUnsent++;
        this.refusedUnsentRows.add(result.row);
        if (stopsTheBatch(result)) this.halted ??= { row: result.row, message: result.error!.message };
        else if (result.kind === 'unavailable') this.unreachable++;
      } else this.refusedSentRows.add(result.row);
    }
    if (result.from_journal) this.fromJournal++;
    if (result.error?.code === 'key_in_use') this.keyInUse++;
    if (result.kind) this.kinds.add(result.kind);
    this.finished[index % this.capacity] = result;
    this.report.onProgress?.(c); // the live counts, not a copy a row: read them now, keep none
    for (
      let r = this.finished[this.emitNext % this.capacity];
      r && !this.stopped;
      r = this.finished[this.emitNext % this.capacity]
    ) {
      this.finished[this.emitNext % this.capacity] = undefined;
      this.emitNext++;
      this.report.onResult?.(r);
    }
    if (this.advanced.length) for (const wake of this.advanced.splice(0)) wake();
  }

  /** The rows taken and not yet reported, by index: started (not finished) or finished (waiting for an earlier row). */
  private pending(): Array<[number, { row: BatchRow; sent: boolean } | undefined, RowResult | undefined]> {
    const out: Array<[number, { row: BatchRow; sent: boolean } | undefined, RowResult | undefined]> = [];
    for (let i = this.emitNext; i < this.taken; i++)
      out.push([i, this.started[i % this.capacity], this.finished[i % this.capacity]]);
    return out;
  }

  /** Stops taking and reporting rows; what is owed to stdout (in row order) and what is unresolved. */
  interrupt(): BatchInterruption {
    this.stopped = true;
    for (const wake of this.advanced.splice(0)) wake();
    const pending = this.pending();
    const started = pending.flatMap(([i, s]) => (s ? [[i, s] as const] : []));
    const inFlight = started.filter(([, s]) => s.sent);
    const owed: Array<[number, RowResult]> = pending.flatMap(([i, , r]) => (r ? [[i, r] as [number, RowResult]] : []));
    const lost = new CardctlError('interrupted before its answer: outcome unknown.', {
      kind: 'outcome_unknown',
      code: 'interrupted',
    });
    for (const [i, s] of inFlight) owed.push([i, resultOf(s.row, undefined, lost)]);
    owed.sort(([a], [b]) => a - b);
    const byRow = (a: number, b: number) => a - b;
    // rows are numbered in file order from 1, so the rows never taken are the ones after `taken`
    const waiting = started.filter(([, s]) => !s.sent).map(([, s]) => s.row.row);
    const later = this.counts.total - this.taken;
    const notSent = waiting
      .concat(Array.from({ length: Math.min(later, ROWS_NAMED + 1) }, (_, k) => this.taken + 1 + k))
      .sort(byRow);
    return {
      results: owed.map(([, r]) => r),
      counts: { ...this.counts },
      inFlight: inFlight.map(([, s]) => s.row.row).sort(byRow),
      notSent: notSent.slice(0, ROWS_NAMED + 1),
      notSentCount: waiting.length + later,
    };
  }

  summary(stats: LimiterStats): BatchSummary {
    return {
      ...this.counts,
      kinds: [...this.kinds],
      unknownRows: [...this.unknownRows.rows],
      unknownPastLimitRows: [...this.unknownPastLimit.rows],
      unknownPastLimit: this.unknownPastLimit.count,
      refusedRows: [...this.refusedRows.rows],
      refusedUnsent: this.refusedUnsent,
      refusedUnsentRows: [...this.refusedUnsentRows.rows],
      refusedSentRows: [...this.refusedSentRows.rows],
      fromJournal: this.fromJournal,
      keyInUse: this.keyInUse,
      unreachable: this.unreachable,
      ...(this.halted ? { stoppedBy: { ...this.halted, notSent: this.counts.total - this.taken } } : {}),
      stats: { ...stats },
    };
  }
}
