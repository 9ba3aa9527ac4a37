// The console's rules without a browser: which Host it answers under (no DNS rebinding), and a
// login code that works once, for 10 minutes.
import { describe, expect, it } from 'vitest';
import { hostAllowed, splitHost } from '../../src/console/guard.js';
import { CODE_LIFETIME_MS, ConsoleLogins } from '../../src/console/login.js';

describe('the Host a console answers under', () => {
  it('localhost, an IP address, or the --host name, with the mock port only', () => {
    expect(hostAllowed('127.0.0.1:4010', '127.0.0.1', 4010)).toBe(true);
    expect(hostAllowed('localhost:4010', '127.0.0.1', 4010)).toBe(true);
    expect(hostAllowed('[::1]:4010', '::1', 4010)).toBe(true);
    expect(hostAllowed('192.168.1.20:4010', '0.0.0.0', 4010)).toBe(true);
    expect(hostAllowed('devbox.lan:4010', 'devbox.lan', 4010)).toBe(true);
    expect(hostAllowed('DEVBOX.lan:4010', 'devbox.lan', 4010)).toBe(true);
  });

  it('refuses a name an attacker points here, another port, no port, no Host', () => {
    expect(hostAllowed('attacker.example:4010', '127.0.0.1', 4010)).toBe(false);
    expect(hostAllowed('localhost.attacker.example:4010', '127.0.0.1', 4010)).toBe(false);
    expect(hostAllowed('127.0.0.1:4011', '127.0.0.1', 4010)).toBe(false);
    expect(hostAllowed('127.0.0.1', '127.0.0.1', 4010)).toBe(false);
    expect(hostAllowed(undefined, '127.0.0.1', 4010)).toBe(false);
    expect(hostAllowed('127.0.0.1:4010@evil', '127.0.0.1', 4010)).toBe(false);
    expect(splitHost('a b:1')).toBeNull();
  });
});

describe('login codes', () => {
  it('a code opens one session, once; a session is known until it ends', () => {
    const learnt: string[] = [];
    const logins = new ConsoleLogins(
      () => 1000,
      (s) => learnt.push(s),
    );
    const code = logins.newCode();
    const session = logins.exchange(code);
    expect(session).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(logins.exchange(code)).toBeNull();
    expect(logins.valid(session!)).toBe(true);
    expect(logins.valid('x')).toBe(false);
    expect(logins.valid(undefined)).toBe(false);
    expect(learnt).toEqual([code, session]); // both are secrets the mock's redactor learns
    logins.end(session!);
    expect(logins.valid(session!)).toBe(false);
  });

  it('a code expires after 10 minutes', () => {
    let now = 0;
    const logins = new ConsoleLogins(
      () => now,
      () => {},
    );
    const code = logins.newCode();
    now = CODE_LIFETIME_MS + 1;
    expect(logins.exchange(code)).toBeNull();
  });
});
