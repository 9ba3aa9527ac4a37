// The client-side rate limiter every attempt of a batch goes through.
import { MAX_PAUSE_MS, RATE_WINDOW_MS, type LimiterStats } from './types.js';

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

  constructor(
    private readonly opts: {
      concurrency: number;
      now: () => number;
      sleep: (ms: number) => Promise<void>;
      windowMs?: number;
    },
  ) {}

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
