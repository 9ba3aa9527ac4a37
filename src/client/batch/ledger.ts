// The rows of a running batch: which to send next, which went out, their results counted and
// reported in row order, and where the batch stands when it is interrupted.
import { CardctlError, type ErrorKind } from '../../errors.js';
import type { ApiResponse } from '../client.js';
import type { JournalReport } from '../money-rules.js';
import type { BatchCounts, BatchInterruption, BatchRow, BatchSummary, LimiterStats, RowResult } from './types.js';

export interface LedgerReport {
  onResult?: (result: RowResult) => void;
  onProgress?: (counts: BatchCounts) => void;
}

type CardData = { id?: unknown; balance_minor?: unknown };
const dataOf = (res: ApiResponse | undefined): CardData | undefined => {
  const data = (res?.body as { data?: unknown } | undefined)?.data;
  return data && typeof data === 'object' && !Array.isArray(data) ? (data as CardData) : undefined;
};

export function resultOf(row: BatchRow, res: ApiResponse | undefined, err?: unknown): RowResult {
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
export class RowLedger {
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

  constructor(private readonly rows: readonly BatchRow[], private readonly report: LedgerReport) {
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

