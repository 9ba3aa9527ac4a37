// Logging in to the console: a one-time code (printed on stderr by `mock start --console`, or
// answered to `cardctl mock console`) is exchanged once for a session, kept in an HttpOnly,
// SameSite=Strict cookie. Neither the code nor the session is the control token, and the token
// never reaches the browser: the console's server side adds it to the calls it makes.
import { randomBytes } from 'node:crypto';
import { safeEqual } from '../signing/compare.js';

/** Decided: a code is good for 10 minutes (real clock), once. */
export const CODE_LIFETIME_MS = 10 * 60 * 1000;

export class ConsoleLogins {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Set<string>();

  constructor(
    private readonly now: () => number,
    /** every code and session is a secret: the mock's redactor learns it (never in a record) */
    private readonly learn: (secret: string) => void,
  ) {}

  newCode(): string {
    const code = randomBytes(18).toString('base64url');
    this.codes.set(code, this.now() + CODE_LIFETIME_MS);
    this.learn(code);
    return code;
  }

  /** The session a code opens (the code is spent), or null for a code unknown, used or expired. */
  exchange(code: string): string | null {
    let found: string | null = null;
    for (const [known, expires] of this.codes) {
      if (expires < this.now()) this.codes.delete(known);
      else if (safeEqual(known, code)) found = known;
    }
    if (found === null) return null;
    this.codes.delete(found);
    const session = randomBytes(24).toString('base64url');
    this.sessions.add(session);
    this.learn(session);
    return session;
  }

  valid(session: string | undefined): boolean {
    if (!session) return false;
    for (const s of this.sessions) if (safeEqual(s, session)) return true;
    return false;
  }

  end(session: string | undefined): void {
    if (session) this.sessions.delete(session);
  }
}
