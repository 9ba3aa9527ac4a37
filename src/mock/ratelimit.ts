// Sliding 60 s window per key over the real clock (SIGNING.md step 6). Only requests that
// passed checks 1 to 5 are counted, and a refused request does not count.
export const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** seconds until a request would pass, on refusal */
  retryAfter?: number;
}

export class RateLimiter {
  private readonly log = new Map<string, number[]>();

  constructor(public limit: number) {}

  private window(keyId: string, now: number): number[] {
    let times = this.log.get(keyId);
    if (!times) this.log.set(keyId, (times = []));
    let drop = 0;
    while (drop < times.length && times[drop]! <= now - WINDOW_MS) drop++;
    if (drop) times.splice(0, drop);
    return times;
  }

  take(keyId: string, now: number): RateDecision {
    const times = this.window(keyId, now);
    if (times.length >= this.limit) {
      const retryMs = times[0]! + WINDOW_MS - now;
      return { allowed: false, limit: this.limit, remaining: 0, retryAfter: Math.max(1, Math.ceil(retryMs / 1000)) };
    }
    times.push(now);
    return { allowed: true, limit: this.limit, remaining: this.limit - times.length };
  }

  /** The headers' view without counting a request (answers refused before step 6). */
  peek(keyId: string, now: number): RateDecision {
    const times = this.window(keyId, now);
    return { allowed: times.length < this.limit, limit: this.limit, remaining: Math.max(0, this.limit - times.length) };
  }

  clear(): void {
    this.log.clear();
  }
}
