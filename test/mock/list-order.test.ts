// GET /customers finds its page in each merchant's customers kept in order (src/mock/customer-order.ts)
// instead of looking at them all. The order must stay right as customers are added, per merchant,
// and across the ways a state is replaced: snapshot restore, reset, restart from a --state file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMock, type MockServer } from '../../src/mock/index.js';
import { apiCall, createCustomer, ctl, newMerchant, type KeyPair } from '../helpers/api.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-list-order-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every customer id the list gives, page by page (per_page 2), newest first. */
async function listAll(mock: MockServer, key?: KeyPair): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (;;) {
    const res = await apiCall(mock, {
      method: 'GET',
      path: '/customers',
      query: { per_page: '2', ...(cursor ? { cursor } : {}) },
      key,
    });
    expect(res.status).toBe(200);
    const page = res.body as { data: Array<{ id: string }>; meta: { next_cursor: string | null } };
    ids.push(...page.data.map((c) => c.id));
    cursor = page.meta.next_cursor;
    if (!cursor) return ids;
  }
}

describe('GET /customers order', () => {
  it('newest first, per merchant, as customers are added, after a restore, a reset and a restart', async () => {
    const stateFile = join(dir, 'state.json');
    let mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0 });
    try {
      const other = await newMerchant(mock);
      const mine: string[] = [];
      const theirs: string[] = [];
      for (let i = 0; i < 3; i++) mine.unshift((await createCustomer(mock)).id);
      expect(await listAll(mock)).toEqual(mine); // the order is built here
      for (let i = 0; i < 2; i++) theirs.unshift((await createCustomer(mock, { key: other.test })).id);
      for (let i = 0; i < 2; i++) mine.unshift((await createCustomer(mock)).id); // added to a built order
      expect(await listAll(mock)).toEqual(mine);
      expect(await listAll(mock, other.test)).toEqual(theirs);

      await mock.saveSnapshot('five');
      const sixth = (await createCustomer(mock)).id;
      expect(await listAll(mock)).toEqual([sixth, ...mine]);
      await mock.restoreSnapshot('five');
      expect(await listAll(mock)).toEqual(mine);
      await ctl(mock, 'POST', '/reset');
      expect(await listAll(mock)).toEqual([]);
      await mock.restoreSnapshot('five');
      expect(await listAll(mock)).toEqual(mine);

      await mock.close();
      mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0 });
      expect(await listAll(mock)).toEqual(mine);
      const afterRestart = (await createCustomer(mock)).id;
      expect(await listAll(mock)).toEqual([afterRestart, ...mine]);
    } finally {
      await mock.close();
    }
  });
});
