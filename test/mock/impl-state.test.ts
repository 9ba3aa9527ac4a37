// Step 3: seeded start, reset, and the --state file (atomic snapshot, reloaded on start).
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, apiCall, ctl, expectOk, walletImbalance, wallets, type MockHandle } from '../helpers/api.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-mock-impl-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const start = async (opts: Parameters<typeof startMock>[0]) => (await startMock({ port: 0, providerLatencyMs: 0, ...opts })) as unknown as MockHandle;

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
    await expect(startMock({ port: 0, stateFile: file })).rejects.toThrow(/not a cardctl mock state: move it away or delete it/);
  });
});
