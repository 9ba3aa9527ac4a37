// Test and live modes, and merchant isolation (spec "General rules" 6 and 8, "Endpoints").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  apiCall,
  approvedCustomer,
  createCustomer,
  expectError,
  expectNotFound,
  expectOk,
  fundLive,
  getCustomer,
  issueCard,
  newIdemKey,
  newMerchant,
  wallet,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 61, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

describe('seeded start', () => {
  it('a pre-funded test wallet (1,000,000,000) and a live wallet at 0, USD', async () => {
    const test = await wallet(mock, 'test');
    const live = await wallet(mock, 'live');
    expect(test).toMatchObject({ balance_minor: 1_000_000_000, initial_balance_minor: 1_000_000_000, currency: 'USD' });
    expect(live).toMatchObject({ balance_minor: 0, currency: 'USD' });
  });
  it('four products: a default one, another enabled one, one not enabled, one unavailable', async () => {
    expect(mock.products.filter((p) => p.default)).toHaveLength(1);
    expect(mock.products.find((p) => p.default)).toMatchObject({ enabled: true, available: true });
    expect(mock.products.filter((p) => p.enabled && !p.default).length).toBeGreaterThanOrEqual(1);
    expect(mock.products.some((p) => !p.enabled)).toBe(true);
    expect(mock.products.some((p) => !p.available)).toBe(true);
  });
});

describe('cross-mode 404', () => {
  it('a test card is not found with a live key, for every card route', async () => {
    const card = await activeCard(mock, { mode: 'test' });
    expect(card.mode).toBe('test');
    const live = { mode: 'live' as const };
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}`, ...live }));
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}/transactions`, ...live }));
    expectNotFound(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/freeze`, ...live }));
    expectNotFound(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/unfreeze`, ...live }));
    expectNotFound(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount: 1 },
        idempotencyKey: newIdemKey(),
        ...live,
      }),
    );
    expectNotFound(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/terminate`,
        idempotencyKey: newIdemKey(),
        ...live,
      }),
    );
    expect(expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}`, mode: 'test' })).status).toBe(
      'active',
    );
  });
  it('a live card is not found with a test key', async () => {
    await fundLive(mock);
    const card = await activeCard(mock, { mode: 'live' });
    expect(card.mode).toBe('live');
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}`, mode: 'test' }));
    expectNotFound(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/freeze`, mode: 'test' }));
    expect(expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}`, mode: 'live' })).status).toBe(
      'active',
    );
  });
  it('a live issue charges the live wallet, not the test wallet', async () => {
    await fundLive(mock);
    const c = await approvedCustomer(mock);
    const [t0, l0] = [await wallet(mock, 'test'), await wallet(mock, 'live')];
    expectOk(await issueCard(mock, { customerId: c.id, amount: 300, mode: 'live' }), 201);
    const [t1, l1] = [await wallet(mock, 'test'), await wallet(mock, 'live')];
    expect(t1.balance_minor).toBe(t0.balance_minor);
    expect(l0.balance_minor - l1.balance_minor).toBeGreaterThanOrEqual(300);
  });
});

describe('another merchant', () => {
  it('its cards and customers are 404 to this merchant, in both modes', async () => {
    const other = await newMerchant(mock);
    const c = await approvedCustomer(mock, other.test);
    const card = await activeCard(mock, { customerId: c.id, key: other.test });
    for (const mode of ['test', 'live'] as const) {
      expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}`, mode }));
      expectNotFound(await apiCall(mock, { method: 'GET', path: `/customers/${c.id}`, mode }));
      expectNotFound(await apiCall(mock, { method: 'PATCH', path: `/customers/${c.id}`, body: { city: 'X' }, mode }));
    }
    expectNotFound(await issueCard(mock, { customerId: c.id }));
  });
  it('has its own wallets', async () => {
    const other = await newMerchant(mock);
    expect(await wallet(mock, 'test', other.merchantId)).toMatchObject({ balance_minor: 1_000_000_000 });
    expect(await wallet(mock, 'live', other.merchantId)).toMatchObject({ balance_minor: 0 });
  });
});

describe('the customer registry is shared by both modes', () => {
  it('a customer registered with a test key is visible to a live key and may be issued a live card', async () => {
    await fundLive(mock);
    const c = await createCustomer(mock, { mode: 'test' });
    expect((await getCustomer(mock, c.id, 'live')).id).toBe(c.id);
    const listed = expectOk(
      await apiCall(mock, { method: 'GET', path: '/customers', query: { per_page: 100 }, mode: 'live' }),
    );
    expect(listed.map((x: any) => x.id)).toContain(c.id);
    const card = expectOk(await issueCard(mock, { customerId: c.id, mode: 'live', amount: 100 }), 201);
    expect(card).toMatchObject({ mode: 'live', customer_id: c.id });
  });
  it('a customer registered with a live key is visible to a test key', async () => {
    const c = await createCustomer(mock, { mode: 'live' });
    expect((await getCustomer(mock, c.id, 'test')).id).toBe(c.id);
  });
});

describe('live-only funding endpoints answer 403 to a test key', () => {
  for (const [method, path, body] of [
    ['POST', '/deposit-addresses', { network: 'trc20' }],
    ['GET', '/deposit-addresses', undefined],
    ['GET', '/deposits', undefined],
  ] as const) {
    it(`${method} ${path}`, async () => {
      const res = await apiCall(mock, { method, path, body, mode: 'test' });
      expectError(res, 403);
      expect(res.body.errors).toEqual({});
      expect(res.body.message).toMatch(/live/i);
      expect(res.status).toBe(403);
    });
  }
  it('and answer 2xx to a live key', async () => {
    expectOk(await apiCall(mock, { method: 'GET', path: '/deposits', mode: 'live' }));
    expectOk(await apiCall(mock, { method: 'GET', path: '/deposit-addresses', mode: 'live' }));
  });
});
