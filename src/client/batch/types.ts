// The types and limits every part of a batch shares (PRODUCT.md, "Bulk"): the reader
// (reader.ts), the planner (planner.ts), the limiter (limiter.ts) and the runner (runner.ts).
import type { ErrorKind } from '../../errors.js';
import type { CheckedRows } from './checked-rows.js';
import type { RowDigests } from './digests.js';
import type { BatchRow } from './row.js';
import type { Headers, VerboseLog } from '../verbose.js';

export type BatchOperation = 'cards.issue' | 'cards.recharge';
export type BatchFormat = 'csv' | 'ndjson';

/** Problems named when a batch is refused before anything is sent (the rest are counted). */
export const MAX_PROBLEMS_KEPT = 100;
export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 16;
/** The window `X-RateLimit-Limit` counts over (the spec: requests per minute per key). */
export const RATE_WINDOW_MS = 60_000;
/** A Retry-After longer than this is honoured only this long per pause. */
export const MAX_PAUSE_MS = 600_000;
/** A row still refused with 429 after the client's own retries goes round again (after the pause) this many times in all. */
export const MAX_RATE_LIMITED_ROUNDS = 5;
/** Longest `--idempotency-prefix`: the key adds `-<16 hex>-<occurrence>` (src/client/batch/row-keys.ts) and must stay within 255 characters. */
export const MAX_PREFIX_LENGTH = 200;

/** A record of the file: its fields by (lower-cased) name, or why it could not be read. */
export interface RawRecord {
  /** 1-based data row (the header and blank lines are not rows) */
  row: number;
  /** the line of the file where it starts */
  line: number;
  fields?: Record<string, unknown>;
  error?: string;
}

export type { BatchRow } from './row.js';

export interface RowProblem {
  /** 0 for the header */
  row: number;
  line: number;
  /** field -> messages, as the API's 422 would give them */
  errors: Record<string, string[]>;
}

/** What the first reading of a batch found (nothing per row is kept). */
export interface BatchPlan {
  operation: BatchOperation;
  format: BatchFormat;
  /** rows in the file */
  total: number;
  /** the first MAX_PROBLEMS_KEPT problems (a bad header, bad rows, identical rows), in file order */
  problems: RowProblem[];
  /** rows with a problem, all of them */
  problemRows: number;
  /** the header or the file itself is not valid */
  fileProblem: boolean;
  /** rows identical to an earlier row (refused unless --allow-duplicates) */
  duplicates: number;
  /** the sum of the amounts (a live batch's confirmation says it) */
  amountTotal: number;
  /** the part of every key before `-<digest>-<occurrence>`: `batch` or `--idempotency-prefix` */
  keyPrefix: string;
  /** the part of every key before `-ROW` in the version before (`batch-<hash of every row>`, or `--idempotency-prefix`) */
  legacyPrefix: string;
  /** each row's digest and occurrence (a rerun's pass and the repeat check find a key's row here); dropped once they are done (16 MB at a million rows), before the rows are sent */
  digests?: RowDigests;
  /** the rows as the first reading checked them, for the second (closed once it has read them, or by whoever ends the batch) */
  checked: CheckedRows;
  /** a regular file whose last row has no line end (accepted): that row, said on stderr before the first row is sent */
  unendedLastRow?: { row: number; line: number };
}

export interface LimiterStats {
  /** attempts sent (first sends and the client's retries) */
  requests: number;
  /** 429 answers */
  throttled: number;
  /** times every worker was paused for a Retry-After */
  pauses: number;
}

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
  /** the first rows (up to 11) whose outcome is unknown, and the first refused ones */
  unknownRows: number[];
  refusedRows: number[];
  /** unknown rows whose key was first sent over 23 h ago (the API forgot it: no rerun settles them): how many, and the first ones */
  unknownPastLimit: number;
  unknownPastLimitRows: number[];
  /** refused rows that were never sent (refused here: the journal could not be written, a damaged bucket...): how many, and the first ones; then the first of the others (refused by the API, or by the journal's record of its answer) */
  refusedUnsent: number;
  refusedUnsentRows: number[];
  refusedSentRows: number[];
  /** rows answered from the journal (already done: not sent) */
  fromJournal: number;
  /** rows refused because another cardctl process held their key (`key_in_use`) */
  keyInUse: number;
  /** rows never sent because the API could not be reached (connection refused, a name that does not resolve, a proxy that refused): nothing was charged */
  unreachable: number;
  /** the journal could not be written (its server stopped, a full disk): the batch stopped there, the rows after it were not sent */
  stoppedBy?: { row: number; message: string; notSent: number };
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
  /** rows never sent: the first ones (up to 11), and how many in all */
  notSent: number[];
  notSentCount: number;
}
