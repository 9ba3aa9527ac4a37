// The simulated clock: real time plus an offset that only moves forward. Everything but the
// gateway's 300 s window and the rate limit reads it (PRODUCT.md, "Time").

export class SimClock {
  constructor(
    public offsetMs = 0,
    private readonly real: () => number = Date.now,
  ) {}

  now(): number {
    return this.real() + this.offsetMs;
  }

  advance(seconds: number): void {
    this.offsetMs += Math.round(seconds * 1000);
  }

  view(): { now: string; unix: number; offset_seconds: number } {
    const ms = this.now();
    return { now: isoTime(ms), unix: Math.floor(ms / 1000), offset_seconds: Math.round(this.offsetMs / 1000) };
  }
}

/** ISO 8601 with an explicit offset, to the second. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : isoTime(ms);
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
