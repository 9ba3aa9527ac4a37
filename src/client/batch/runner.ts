// Running a batch: a small pool of workers sends the rows through the limiter; sending, retries
// and the journal stay the client's; the clock, the sleep and the client are injectable (tests
// drive a virtual clock).
import type { CardctlError } from '../../errors.js';
import type { ApiClient, ApiResponse } from '../client.js';
import { header, retryAfterSeconds } from '../errors.js';
import { kycRefusedCustomer, readKycHint, withKycHint } from '../kyc-hint.js';
import { callOperation } from '../operations.js';
import { BatchLimiter } from './limiter.js';
import { RowLedger, resultOf } from './ledger.js';
import { DEFAULT_CONCURRENCY, MAX_CONCURRENCY, MAX_RATE_LIMITED_ROUNDS, type BatchClientHooks, type BatchCounts, type BatchInterruption, type BatchPlan, type BatchRow, type BatchSummary, type RowResult } from './types.js';

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
