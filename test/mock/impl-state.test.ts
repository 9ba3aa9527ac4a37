// Step 3: seeded start, reset, and the --state file (atomic snapshot, reloaded on start).
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, apiCall, ctl, expectOk, walletImbalance, wallets, type MockHandle } from '../helpers/api.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-mock-impl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const start = async (opts: Parameters<typeof startMock>[0]) =>
  (await startMock({ port: 0, providerLatencyMs: 0, ...opts })) as unknown as MockHandle;

describe('seeded start', () => {
  it('the same seed gives the same merchant, keys and products; another seed does not', async () => {
    const [a, b, c] = [await start({ seed: 7 }), await start({ seed: 7 }), await start({ seed: 8 })];
    try {
      expect(b.keys).toEqual(a.keys);
      expect(b.merchantId).toBe(a.merchantId);
      expect(b.products).toEqual(a.products);
      expect(c.keys.test.keyId).not.toBe(a.keys.test.keyId);
      expect(a.products.map((p) => [p.default, p.enabled, p.available])).toEqual([
        [true, true, true],
        [false, true, true],
        [false, false, true],
        [false, true, false],
      ]);
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
    }
  });

  it('reset forgets cards and customers, keeps the seeded keys working', async () => {
    const mock = await start({ seed: 9 });
    try {
      await activeCard(mock);
      const after = await ctl(mock, 'POST', '/reset');
      expect(after).toMatchObject({ cards: 0, customers: 0, merchants: 1 });
      expect(expectOk(await apiCall(mock, { method: 'GET', path: '/customers' }))).toEqual([]);
    } finally {
      await mock.close();
    }
  });
});

describe('startMock options are checked', () => {
  it('wrong options reject with a TypeError or RangeError saying what is expected; nothing starts', async () => {
    await expect(startMock({ port: 0, rateLimit: 0 })).rejects.toThrow(RangeError);
    await expect(startMock({ port: 0, rateLimit: 0 })).rejects.toThrow(
      /rateLimit must be a whole number of requests per minute, at least 1/,
    );
    await expect(startMock({ port: 0, rateLimit: 2.5 })).rejects.toThrow(RangeError);
    await expect(startMock({ port: 0, rateLimit: '10' as unknown as number })).rejects.toThrow(TypeError);
    await expect(startMock({ port: 0, webhookUrls: ['ftp://10.0.0.1/x'] })).rejects.toThrow(RangeError);
    await expect(startMock({ port: 0, webhookUrls: ['ftp://10.0.0.1/x'] })).rejects.toThrow(
      /webhookUrls: "ftp:\/\/10\.0\.0\.1\/x": /,
    );
    await expect(startMock({ port: 0, webhookUrls: 'https://example.com/h' as unknown as string[] })).rejects.toThrow(
      TypeError,
    );
    await expect(startMock({ port: 70000 })).rejects.toThrow(/port must be a whole number from 0 to 65535/);
    await expect(startMock({ port: 0, providerLatencyMs: -1 })).rejects.toThrow(RangeError);
    await expect(startMock({ port: 0, webhookTimeoutMs: Number.NaN })).rejects.toThrow(RangeError);
    await expect(startMock({ port: 0, keys: [{ keyId: 'k', secret: 's', mode: 'prod' as 'test' }] })).rejects.toThrow(
      /mode must be one of test, live/,
    );
  });

  it('a valid rateLimit and webhook URL start a mock that answers signed requests with that limit', async () => {
    const mock = await start({
      seed: 10,
      rateLimit: 1,
      webhookUrls: ['https://hooks.example.com/cardctl'],
      lookup: async () => [{ address: '93.184.215.14', family: 4 }],
    });
    try {
      const res = await apiCall(mock, { method: 'GET', path: '/customers' });
      expectOk(res);
      expect(res.headers['x-ratelimit-limit']).toBe('1');
      expect(res.headers['x-ratelimit-remaining']).toBe('0');
      const over = await apiCall(mock, { method: 'GET', path: '/customers' });
      expect(over.status).toBe(429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect((await ctl(mock, 'GET', '/webhook-endpoints')).map((e: { url: string }) => e.url)).toEqual([
        'https://hooks.example.com/cardctl',
      ]);
    } finally {
      await mock.close();
    }
  });
});

describe('--state FILE', () => {
  it('a restart on the same file finds the same keys, cards and balanced wallets', async () => {
    const file = join(dir, 'state.json');
    const first = await start({ stateFile: file });
    const card = await activeCard(first, { amount: 4321 });
    await ctl(first, 'POST', '/clock/advance', { seconds: 3600 });
    await first.close();
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);

    const second = await start({ stateFile: file });
    try {
      expect(second.keys).toEqual(first.keys);
      const read = expectOk(await apiCall(second, { method: 'GET', path: `/cards/${card.id}` }));
      expect(read).toMatchObject({ id: card.id, balance_minor: 4321, status: 'active' });
      expect((await ctl(second, 'GET', '/clock')).offset_seconds).toBeGreaterThanOrEqual(3600);
      for (const w of await wallets(second)) expect(walletImbalance(w)).toBe(0);
    } finally {
      await second.close();
    }
  });

  it('a file that is not a mock state is refused with what to do', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{"not": "a state"}');
    await expect(startMock({ port: 0, stateFile: file })).rejects.toThrow(
      /not a complete cardctl mock state.*move it away or delete it/,
    );
  });
});
