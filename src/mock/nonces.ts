// Nonce memory per key, 600 s of simulated time (SIGNING.md step 5).
export const NONCE_MEMORY_MS = 600_000;

export class NonceMemory {
  private readonly seen = new Map<string, Map<string, number>>();

  /** True when the nonce was seen for this key within the memory window. */
  has(keyId: string, nonce: string, now: number): boolean {
    const until = this.seen.get(keyId)?.get(nonce);
    return until !== undefined && until > now;
  }

  remember(keyId: string, nonce: string, now: number): void {
    let m = this.seen.get(keyId);
    if (!m) this.seen.set(keyId, (m = new Map()));
    m.set(nonce, now + NONCE_MEMORY_MS);
    if (m.size > 4096 && m.size % 1024 === 0) this.prune(now);
  }

  prune(now: number): void {
    for (const [key, m] of this.seen) {
      for (const [nonce, until] of m) if (until <= now) m.delete(nonce);
      if (m.size === 0) this.seen.delete(key);
    }
  }

  clear(): void {
    this.seen.clear();
  }
}
