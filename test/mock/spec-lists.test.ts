// Lists: per_page (1 to 100, default 20, clamped), opaque cursors, newest-first, signed queries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  advance,
  apiCall,
  createCustomer,
  ctl,
  expectOk,
  newMerchant,
  type KeyPair,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
let m: { merchantId: string; test: KeyPair; live: KeyPair };
const created: string[] = [];
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 51, providerLatencyMs: 0 })) as unknown as MockHandle;
  m = await newMerchant(mock);
  for (let i = 0; i < 23; i++) {
    created.push((await createCustomer(mock, { key: m.test })).id);
    await advance(mock, 1); // distinct creation times
  }
});
afterAll(async () => mock?.close());

const list = (query: Record<string, string | number> | string) =>
  apiCall(mock, { method: 'GET', path: '/customers', query, key: m.test });

describe('GET /customers pagination', () => {
  it('default page of 20, newest-first, meta with has_more and next_cursor', async () => {
    const res = await list({});
    const page = expectOk(res);
    expect(page).toHaveLength(20);
    expect(page.map((c: any) => c.id)).toEqual([...created].reverse().slice(0, 20));
    expect(res.body.meta).toMatchObject({ per_page: 20, has_more: true });
    expect(typeof res.body.meta.next_cursor).toBe('string');
    expect(res.body.meta).toHaveProperty('previous_cursor');
  });
  it('following next_cursor visits every row once, then has_more false and next_cursor null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 20; i++) {
      const res = await list(cursor ? { per_page: 7, cursor } : { per_page: 7 });
      const page = expectOk(res);
      seen.push(...page.map((c: any) => c.id));
      expect(res.body.meta.per_page).toBe(7);
      if (!res.body.meta.has_more) {
        expect(res.body.meta.next_cursor).toBeNull();
        break;
      }
      cursor = res.body.meta.next_cursor;
    }
    expect(seen).toEqual([...created].reverse());
  });
  it('previous_cursor leads back to the previous page', async () => {
    const first = await list({ per_page: 5 });
    const second = await list({ per_page: 5, cursor: first.body.meta.next_cursor });
    expect(typeof second.body.meta.previous_cursor).toBe('string');
    const back = await list({ per_page: 5, cursor: second.body.meta.previous_cursor });
    expect(expectOk(back).map((c: any) => c.id)).toEqual(expectOk(first).map((c: any) => c.id));
  });
  it('per_page is clamped: 500 -> 100, 0 -> 1', async () => {
    const big = await list({ per_page: 500 });
    expect(big.body.meta.per_page).toBe(100);
    expect(expectOk(big)).toHaveLength(23);
    const small = await list({ per_page: 0 });
    expect(small.body.meta.per_page).toBe(1);
    expect(expectOk(small)).toHaveLength(1);
  });
  it('per_page of any length is clamped (huge -> 100, very negative -> 1); non-integers stay 422', async () => {
    for (const [raw, expected] of [
      ['1000000000000000000000', 100],
      ['9'.repeat(400), 100],
      ['%2B150', 100],
      ['-1000000000000000000000', 1],
      ['-5', 1],
      ['0000', 1],
      ['007', 7],
    ] as const) {
      const res = await list(`per_page=${raw}`);
      expect(res.status, `per_page=${raw.slice(0, 30)}: ${res.raw.toString().slice(0, 200)}`).toBe(200);
      expect(res.body.meta.per_page, raw.slice(0, 30)).toBe(expected);
    }
    for (const raw of ['1.5', '1e3', 'abc', '--1', '12a']) {
      const res = await list(`per_page=${encodeURIComponent(raw)}`);
      expect(res.status, raw).toBe(422);
      expect(res.body.errors.per_page).toBeDefined();
    }
  });
  it('unknown query parameters are ignored', async () => {
    expect(expectOk(await list({ per_page: 3, colour: 'blue' }))).toHaveLength(3);
  });
  it('the query may be sent in any valid encoding (cursor characters percent-encoded or not)', async () => {
    const first = await list({ per_page: 2 });
    const cursor: string = first.body.meta.next_cursor;
    const a = await list(`cursor=${encodeURIComponent(cursor)}&per_page=2`);
    const b = await list(`per_page=2&cursor=${encodeURIComponent(cursor).replace(/%3D/g, '%3d')}`);
    expect(expectOk(a).map((c: any) => c.id)).toEqual(expectOk(b).map((c: any) => c.id));
  });
  it("a customer list shows only the merchant's customers", async () => {
    const other = await newMerchant(mock);
    expect(expectOk(await apiCall(mock, { method: 'GET', path: '/customers', key: other.test }))).toEqual([]);
  });
});

describe('GET /cards/{card}/transactions pagination', () => {
  it('pages newest-first by occurred_at through the cursor', async () => {
    const card = await activeCard(mock, { key: m.test });
    for (let i = 0; i < 5; i++) {
      await ctl(mock, 'POST', `/cards/${card.id}/transactions`, {
        type: 'authorization',
        status: 'pending',
        amount_minor: i + 1,
        occurred_at: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(),
      });
    }
    const one = await apiCall(mock, {
      method: 'GET',
      path: `/cards/${card.id}/transactions`,
      query: { per_page: 3 },
      key: m.test,
    });
    expect(expectOk(one).map((t: any) => t.amount_minor)).toEqual([5, 4, 3]);
    expect(one.body.meta).toMatchObject({ per_page: 3, has_more: true });
    const two = await apiCall(mock, {
      method: 'GET',
      path: `/cards/${card.id}/transactions`,
      query: { per_page: 3, cursor: one.body.meta.next_cursor },
      key: m.test,
    });
    expect(expectOk(two).map((t: any) => t.amount_minor)).toEqual([2, 1]);
    expect(two.body.meta.has_more).toBe(false);
  });
});
