// A real Squid between cardctl and the mock (issue 36): its refusals are the proxy's, not the
// API's. Plain-HTTP 403 ERR_ACCESS_DENIED and 407: exit 8 naming the proxy, one attempt, never a
// hint about the API key, never an HTML page on stdout; a refused CONNECT is not retried either.
// Skipped (and named at the end) where squid is not installed; CI installs it (.ci/run).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, cardBalance, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/programs.js';
import { startSquid, type Squid } from '../helpers/squid.js';

let mock: MockHandle;
let sb: Sandbox;
let denyAll: Squid | undefined;
let needsAuth: Squid | undefined;
let keys: Record<string, string>;
const attempts = (r: CliResult): number => r.stderr.split('\n').filter((l) => l.startsWith('> attempt ')).length;
const withSquid = needs('squid');

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 37, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  keys = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
    CARDCTL_BASE_URL: mock.baseUrl,
  };
  if (!withSquid) return;
  [denyAll, needsAuth] = await Promise.all([startSquid('all'), startSquid('unauthenticated')]);
  // the key's mode learned directly from the API, as any first command would
  const learned = await sb.run(['cards', 'get', (await activeCard(mock)).id], { env: keys });
  expect(learned.code, learned.stderr).toBe(0);
});
afterAll(async () => {
  await denyAll?.close();
  await needsAuth?.close();
  await mock?.close();
  sb?.cleanup();
});

describe('through a real Squid', () => {
  it.runIf(withSquid)(
    '403 ERR_ACCESS_DENIED: exit 8 naming the proxy, one attempt, nothing charged, no page on stdout',
    async () => {
      const card = await activeCard(mock, { amount: 1000 });
      const env = { ...keys, HTTP_PROXY: denyAll!.url };
      const r = await sb.run(
        ['cards', 'recharge', card.id, '--amount', '10', '--idempotency-key', 'squid-403', '--verbose'],
        { env },
      );
      expect(r.code, r.stderr).toBe(8);
      expect(attempts(r)).toBe(1);
      expect(r.stderr).toContain(`the proxy ${denyAll!.url} (server: squid/`);
      expect(r.stderr).toContain('x-squid-error: ERR_ACCESS_DENIED');
      expect(r.stderr).not.toMatch(/CARDCTL_API_KEY|forbidden\.|replay it/);
      expect(await cardBalance(mock, card.id)).toBe(1000);

      const req = await sb.run(['request', 'GET', `/cards/${card.id}`], { env });
      expect(req.code, req.stderr).toBe(8);
      expect(req.stdout).toBe('');
      expect(req.stdout + req.stderr).not.toMatch(/<html|<!DOCTYPE/i);
      const doctor = await sb.run(['doctor'], { env });
      expect(doctor.stdout + doctor.stderr).not.toContain('key forbidden');

      // the same operation through no proxy: it was never sent, so it goes now, charged once
      const direct = await sb.run(['cards', 'recharge', card.id, '--amount', '10', '--idempotency-key', 'squid-403'], {
        env: keys,
      });
      expect(direct.code, direct.stderr).toBe(0);
      expect(await cardBalance(mock, card.id)).toBe(1010);
    },
  );

  it.runIf(withSquid)('407 Proxy Authentication Required: exit 8 naming the proxy, one attempt', async () => {
    const card = await activeCard(mock, { amount: 500 });
    // credentials in the proxy URL (a canary: never shown) that the proxy does not accept
    const withPassword = needsAuth!.url.replace('http://', 'http://bob:canary-pw-7f3a@');
    const r = await sb.run(['cards', 'recharge', card.id, '--amount', '5', '--verbose'], {
      env: { ...keys, HTTP_PROXY: withPassword },
    });
    expect(r.stdout + r.stderr).not.toContain('canary-pw-7f3a');
    expect(r.code, r.stderr).toBe(8);
    expect(attempts(r)).toBe(1);
    expect(r.stderr).toContain(`the proxy ${needsAuth!.url} (with credentials) (server: squid/`);
    expect(r.stderr).toContain('(407 text/html)');
    expect(r.stderr).not.toContain('CARDCTL_API_KEY');
    expect(await cardBalance(mock, card.id)).toBe(500);
  });

  it.runIf(withSquid)('a refused CONNECT (https through the proxy): exit 8 naming the proxy, not retried', async () => {
    const r = await sb.run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--verbose'], {
      env: { ...keys, CARDCTL_BASE_URL: 'https://127.0.0.1:9/api/v1', HTTPS_PROXY: denyAll!.url },
    });
    expect(r.code, r.stderr).toBe(8);
    expect(attempts(r)).toBe(1);
    expect(r.stderr).toContain(
      `the proxy ${denyAll!.url} refused the tunnel to 127.0.0.1:9 (403 Forbidden; server: squid/`,
    );
  });
});
