// Nonce memory per key (SIGNING.md step 5). A nonce is forgotten only once 600 s have passed on
// BOTH clocks, simulated and real (PRODUCT.md, "Readings"): moving the simulated clock forward
// must never let a captured request be replayed inside its real 300 s timestamp window.
export const NONCE_MEMORY_MS = 600_000;

/** The two clocks' readings at one moment. */
export interface NonceNow {
  sim: number;
  real: number;
}

interface Seen {
  simUntil: number;
  realUntil: number;
  /** the request that used the nonce: its id in the request log (0 when the log is off) and real time */
  seq: number;
  at: number;
}

const remembered = (s: Seen, now: NonceNow): boolean => s.simUntil > now.sim || s.realUntil > now.real;

export class NonceMemory {
  private readonly seen = new Map<string, Map<string, Seen>>();

  /** True when the nonce was seen for this key and is still remembered on either clock. */
  has(keyId: string, nonce: string, now: NonceNow): boolean {
    return this.firstUse(keyId, nonce, now) !== undefined;
  }

  /** The first use of a nonce still remembered for this key (which request, when), or undefined. */
  firstUse(keyId: string, nonce: string, now: NonceNow): { seq: number; at: number } | undefined {
    const s = this.seen.get(keyId)?.get(nonce);
    return s !== undefined && remembered(s, now) ? s : undefined;
  }

  remember(keyId: string, nonce: string, now: NonceNow, seq = 0): void {
    let m = this.seen.get(keyId);
    if (!m) this.seen.set(keyId, (m = new Map()));
    m.delete(nonce); // a nonce seen again (after it ran out) moves to the end: the map stays in time order
    m.set(nonce, { simUntil: now.sim + NONCE_MEMORY_MS, realUntil: now.real + NONCE_MEMORY_MS, seq, at: now.real });
    if (m.size > 4096 && m.size % 1024 === 0) this.prune(now);
  }

  /**
   * Forgets what has run out on both clocks. A Map iterates in insertion order, and the real clock
   * only moves forward, so once an entry is still remembered every later one is too (or it waits a
   * little longer behind one kept by the simulated clock): the cost is what is forgotten, not the
   * 600 s of nonces held.
   */
  prune(now: NonceNow): void {
    for (const [key, m] of this.seen) {
      for (const [nonce, s] of m) {
        if (remembered(s, now)) break;
        m.delete(nonce);
      }
      if (m.size === 0) this.seen.delete(key);
    }
  }

  clear(): void {
    this.seen.clear();
  }
}
