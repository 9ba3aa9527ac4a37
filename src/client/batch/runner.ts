// Running a batch: a small pool of workers sends the rows through the limiter; sending, retries
// and the journal stay the client's; the clock, the sleep and the client are injectable (tests
// drive a virtual clock).
import type { CardctlError } from '../../errors.js';
import type { ApiClient, ApiResponse } from '../client.js';
import { header, retryAfterSeconds } from '../errors.js';
import { kycRefusedCustomer, readKycHint, withKycHint } from '../kyc-hint.js';
import { callOperation } from '../operations.js';
import { BatchLimiter } from './limiter.js';
import { RowLedger, resultOf, type RowAnswer } from './ledger.js';
import {
  DEFAULT_CONCURRENCY,
  MAX_CONCURRENCY,
  MAX_RATE_LIMITED_ROUNDS,
  type BatchClientHooks,
  type BatchCounts,
  type BatchInterruption,
  type BatchPlan,
  type BatchRow,
  type BatchSummary,
  type RowResult,
} from './types.js';

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
  onProgress?: (counts: Readonly<BatchCounts>) => void;
  /** every worker now waits this long (a 429, or a 503 with Retry-After): a batch never goes quiet unexplained */
  onPause?: (ms: number, status: number) => void;
  windowMs?: number;
  limiter?: BatchLimiter;
  /** the journal's answers for a chunk of rows, read in bulk (a rerun): a row answered here is not sent; undefined: send it */
  fromJournal?: (rows: BatchRow[]) => Promise<Array<KnownAnswer | undefined>>;
  /** the results' reader is behind (a pipe to a slower program): a promise to wait for before taking another row, else undefined; so memory does not grow with what it has not read */
  outputRoom?: () => Promise<void> | undefined;
  /** called once, before any row: `interrupt()` stops the in-order reporting and says where the batch stands */
  onStart?: (control: { interrupt: () => BatchInterruption }) => void;
}

const defaultSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** One answer hook for every row: each answer tells the limiter what budget is left; a Retry-After pauses every row. */
function answerHook(
  limiter: BatchLimiter,
  now: () => number,
  onPause?: RunBatchOptions['onPause'],
): BatchClientHooks['onAnswer'] {
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

/** Rows that may finish ahead of the first one still running (held back for row order): the bound on memory. */
export const WINDOW = 4096;
/** Rows whose journal verdicts are read at once (one read of their slots): small, so that a chunk's rows are not alive long enough to be promoted to the old generation. */
export const JOURNAL_CHUNK = 256;

/** A row's answer without a request: the journal resolved it (its answer, or its error). `res` holds what a row's result reads of an answer. */
export type KnownAnswer = { res: RowAnswer } | { err: unknown };

/** A chunk of rows and the journal's answers for them (undefined: send the row). */
type Asked = { rows: BatchRow[]; answers: Array<KnownAnswer | undefined> };

/**
 * The rows in chunks; each chunk is asked of the journal first, and the rows it resolved come with
 * their answer. The next chunk is asked while this one's rows are taken (a shared journal answers
 * over the network: its round trip overlaps the rows' work instead of adding to it); two chunks
 * at most are alive.
 */
async function* chunks(rows: BatchSource['rows'], known: RunBatchOptions['fromJournal']): AsyncGenerator<Asked> {
  const ask = (chunk: BatchRow[]): { rows: BatchRow[]; answers: Promise<Array<KnownAnswer | undefined>> } => {
    const answers = known ? known(chunk) : Promise.resolve([]);
    answers.catch(() => {}); // awaited below, in its turn (a batch stopped before it leaves it unread)
    return { rows: chunk, answers };
  };
  let ahead: ReturnType<typeof ask> | undefined;
  for await (const chunk of rowChunks(rows)) {
    const next = ask(chunk);
    if (ahead) yield { rows: ahead.rows, answers: await ahead.answers };
    ahead = next;
  }
  if (ahead) yield { rows: ahead.rows, answers: await ahead.answers };
}

/** The rows JOURNAL_CHUNK at a time; rows read at once (the checked rows' file) without a promise a row. */
async function* rowChunks(rows: BatchSource['rows']): AsyncGenerator<BatchRow[]> {
  let chunk: BatchRow[] = [];
  if (Symbol.iterator in rows)
    for (const row of rows) {
      chunk.push(row);
      if (chunk.length < JOURNAL_CHUNK) continue;
      yield chunk;
      chunk = [];
    }
  else
    for await (const row of rows) {
      chunk.push(row);
      if (chunk.length < JOURNAL_CHUNK) continue;
      yield chunk;
      chunk = [];
    }
  if (chunk.length) yield chunk;
}

/**
 * The rows for the workers, in file order: a row of the chunk at hand is taken at once (no promise
 * a row: a rerun answers a million from the journal), the next chunk awaited by whichever worker
 * finds this one done, the others waiting for that same chunk.
 */
class Feed {
  private at: Asked = { rows: [], answers: [] };
  private i = 0;
  private coming: Promise<void> | undefined;
  done = false;

  constructor(private readonly source: AsyncGenerator<Asked>) {}

  /** The next row and its answer; undefined when the chunk at hand is done (then await more()). */
  take(): { row: BatchRow; known: KnownAnswer | undefined } | undefined {
    const i = this.i;
    if (i >= this.at.rows.length) return undefined;
    this.i = i + 1;
    return { row: this.at.rows[i]!, known: this.at.answers[i] };
  }

  /** The next chunk in hand (done set when there is none). */
  more(): Promise<void> {
    this.coming ??= this.source.next().then(
      (next) => {
        this.coming = undefined;
        if (next.done) this.done = true;
        else (this.at = next.value), (this.i = 0);
      },
      (err: unknown) => {
        this.coming = undefined;
        throw err;
      },
    );
    return this.coming;
  }
}

/** What runBatch sends: the operation, and the rows (an array, or a stream read once). */
export interface BatchSource {
  operation: BatchPlan['operation'];
  /** rows in all (the progress line and an interruption count from it); the rows' length when absent */
  total?: number;
  rows: AsyncIterable<BatchRow> | Iterable<BatchRow>;
}

/** Sends every row and reports each result in row order; never throws for a row's failure. Memory stays bounded (WINDOW). */
export async function runBatch(plan: BatchSource, opts: RunBatchOptions): Promise<BatchSummary> {
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? defaultSleep;
  const concurrency = Math.max(1, Math.min(MAX_CONCURRENCY, opts.concurrency ?? DEFAULT_CONCURRENCY));
  const limiter = opts.limiter ?? new BatchLimiter({ concurrency, now, sleep, windowMs: opts.windowMs });
  const total = plan.total ?? (Array.isArray(plan.rows) ? plan.rows.length : 0);
  const ledger = new RowLedger(total, opts, WINDOW);
  const send = rowSender(plan.operation, limiter, ledger, { ...opts, now, sleep });
  const feed = new Feed(chunks(plan.rows, opts.fromJournal));
  const worker = async (): Promise<void> => {
    for (;;) {
      if (!ledger.hasRoom()) await ledger.room();
      const behind = opts.outputRoom?.();
      if (behind) await behind;
      if (ledger.stopped || ledger.halted) return;
      const next = feed.take();
      if (next === undefined) {
        if (feed.done) return;
        await feed.more();
        continue;
      }
      const { row, known } = next;
      const index = ledger.take(row);
      ledger.finish(
        index,
        known
          ? 'res' in known
            ? resultOf(row, known.res)
            : resultOf(row, undefined, known.err)
          : await send(row, index),
      );
    }
  };
  opts.onStart?.({ interrupt: () => ledger.interrupt() });
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total || concurrency)) }, worker));
  return ledger.summary(limiter.stats);
}

/** Sends one row through the limiter (a 429 goes round again with the same key, after the pause). */
function rowSender(
  operation: BatchPlan['operation'],
  limiter: BatchLimiter,
  ledger: RowLedger,
  opts: RunBatchOptions & { now: () => number; sleep: (ms: number) => Promise<void> },
): (row: BatchRow, index: number) => Promise<RowResult> {
  const { now, sleep } = opts;
  const onAnswer = answerHook(limiter, now, opts.onPause);
  const explain = kycExplainer(limiter);
  const hooksFor = (row: BatchRow, index: number): BatchClientHooks => ({
    now,
    onAnswer,
    // every retry of the client waits for its delay, then for the limiter like a first send
    sleep: async (ms) => {
      await sleep(ms);
      await limiter.acquire(true);
    },
    log: opts.verbose ? (line) => opts.verbose!(row, line) : undefined,
    onSent: () => ledger.sent(index),
  });
  return async (row, index) => {
    for (let round = 1; ; round++) {
      await limiter.acquire();
      let client: ApiClient | undefined;
      let res: ApiResponse | undefined;
      let failure: unknown;
      try {
        client = opts.client(hooksFor(row, index), row);
        res = await callOperation(client, operation, { ...row.call, idempotencyKey: row.idempotencyKey, batch: true });
      } catch (err) {
        failure = err;
        res = (err as { response?: ApiResponse }).response;
      } finally {
        limiter.settled();
      }
      const result =
        failure === undefined
          ? resultOf(row, res)
          : resultOf(row, res, client ? await explain(client, row, failure) : failure);
      // a 429 means nothing was processed: once the pause is over, the same key goes again
      if (result.kind === 'rate_limited' && round < MAX_RATE_LIMITED_ROUNDS) continue;
      return result;
    }
  };
}
