// The control plane (notes/mock-interface.md): bearer auth on every call, and each call's effect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  apiCall,
  control,
  createCustomer,
  ctl,
  events,
  expectError,
  expectOk,
  fault,
  issueCard,
  approvedCustomer,
  newIdemKey,
  newMerchant,
  UNKNOWN_ULID,
  wallet,
  wallets,
  walletImbalance,
  type ApiResponse,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 81, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

const CALLS: Array<[string, string, unknown?]> = [
  ['GET', '/state'],
  ['POST', '/reset'],
  ['POST', '/merchants', {}],
  ['POST', '/keys', { mode: 'test' }],
  ['POST', `/keys/${UNKNOWN_ULID}/roll`],
  ['POST', `/keys/${UNKNOWN_ULID}/rotate`],
  ['POST', `/keys/${UNKNOWN_ULID}/revoke`],
  ['GET', '/clock'],
  ['POST', '/clock/advance', { seconds: 1 }],
  ['POST', `/customers/${UNKNOWN_ULID}/kyc`, { verdict: 'approved' }],
  ['POST', `/cards/${UNKNOWN_ULID}/provision`, { outcome: 'active' }],
  ['POST', `/cards/${UNKNOWN_ULID}/transactions`, { type: 'capture', status: 'completed', amount_minor: 1 }],
  ['POST', '/deposits', { network: 'trc20', asset_amount: '1' }],
  ['POST', '/withdrawals', { amount_minor: 1, fee_minor: 0, outcome: 'completed' }],
  ['PUT', '/networks', { enabled: ['trc20'] }],
  ['POST', '/faults', { operation: 'issue', kind: '503', count: 1 }],
  ['GET', '/wallets'],
  ['POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook' }],
  ['GET', '/webhook-deliveries'],
  ['GET', '/events'],
  ['POST', '/events', { type: 'withdrawal.requested', data: {} }],
];

describe('control plane authentication', () => {
  for (const [method, path, body] of CALLS) {
    it(`${method} /_mock${path.replace(UNKNOWN_ULID, '{id}')}: 401 without the token and with a wrong one, nothing done`, async () => {
      // the clock reads real time too, so compare the counts only
      const counts = async () => {
        const { clock: _clock, ...rest } = await ctl(mock, 'GET', '/state');
        return rest;
      };
      const before = await counts();
      for (const token of [null, 'wrong-token', `${mock.controlToken}x`]) {
        const res = await control(mock, method, path, body, token);
        expectError(res, 401);
      }
      expect(await counts()).toEqual(before);
    });
  }
  it('API keys are not accepted on the control plane, and the control token is not an API key', async () => {
    const res = await control(mock, 'GET', '/state', undefined, mock.keys.test.secret);
    expectError(res, 401);
    const api = await apiCall(mock, {
      method: 'GET',
      path: '/customers',
      headers: { Authorization: `Bearer ${mock.controlToken}`, 'X-Signature': 'x' },
    });
    expectError(api, 401, 'gateway', 'invalid_signature');
  });
});

describe('control calls', () => {
  it('GET /state: counts and clock', async () => {
    const s = await ctl(mock, 'GET', '/state');
    for (const k of ['merchants', 'keys', 'customers', 'cards', 'deposits', 'events'])
      expect(typeof s[k], k).toBe('number');
    expect(s.clock).toBeDefined();
  });
  it('POST /reset: back to the seeded start, seeded keys still work', async () => {
    const seeded = await ctl(mock, 'GET', '/state');
    await newMerchant(mock);
    await createCustomer(mock);
    await ctl(mock, 'POST', '/clock/advance', { seconds: 5000 });
    const reset = await ctl(mock, 'POST', '/reset');
    expect(reset.merchants).toBe(seeded.merchants);
    expect(reset.customers).toBe(seeded.customers);
    expect(reset.cards).toBe(seeded.cards);
    expect(await wallet(mock, 'test')).toMatchObject({ balance_minor: 1_000_000_000, cards_balance_minor: 0 });
    expect(expectOk(await apiCall(mock, { method: 'GET', path: '/customers' }))).toEqual([]);
  });
  it('POST /merchants: a merchant with its own keys and webhook secret', async () => {
    const d = await ctl(mock, 'POST', '/merchants', {});
    expect(d.merchant_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(d.keys.test.key_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(d.keys.test.secret).toHaveLength(44);
    expect(d.keys.live.key_id).not.toBe(d.keys.test.key_id);
    expect(typeof d.webhook_secret).toBe('string');
    expectOk(
      await apiCall(mock, {
        method: 'GET',
        path: '/customers',
        key: { keyId: d.keys.live.key_id, secret: d.keys.live.secret },
      }),
    );
  });
  it('POST /keys: a key with the given mode, scopes and allowlist', async () => {
    const d = await ctl(mock, 'POST', '/keys', { mode: 'live', scopes: ['cards.read'], ip_allowlist: ['127.0.0.1'] });
    expect(d).toMatchObject({
      mode: 'live',
      merchant_id: mock.merchantId,
      scopes: ['cards.read'],
      ip_allowlist: ['127.0.0.1'],
    });
    expect(d.secret).toHaveLength(44);
  });
  it('POST /keys/{key}/roll, /rotate and /revoke answer the documented shapes', async () => {
    const k = await ctl(mock, 'POST', '/keys', { mode: 'test' });
    expect(await ctl(mock, 'POST', `/keys/${k.key_id}/roll`)).toMatchObject({
      key_id: k.key_id,
      secret: expect.any(String),
    });
    const rotated = await ctl(mock, 'POST', `/keys/${k.key_id}/rotate`);
    expect(rotated.key_id).not.toBe(k.key_id);
    expect(await ctl(mock, 'POST', `/keys/${k.key_id}/revoke`)).toEqual({ key_id: k.key_id, revoked: true });
  });
  it('GET /clock and POST /clock/advance', async () => {
    const c0 = await ctl(mock, 'GET', '/clock');
    expect(Date.parse(c0.now)).not.toBeNaN();
    expect(Number.isInteger(c0.unix)).toBe(true);
    const c1 = await ctl(mock, 'POST', '/clock/advance', { seconds: 3600 });
    expect(c1.offset_seconds - c0.offset_seconds).toBe(3600);
    expect(c1.unix - c0.unix).toBeGreaterThanOrEqual(3600);
    expect(c1.unix - c0.unix).toBeLessThan(3600 + 30);
  });
  it('POST /clock/advance refuses to move past 9999-12-31T23:59:59Z (ids and dates keep working up to there)', async () => {
    const own = (await startMock({ port: 0, seed: 82, providerLatencyMs: 0 })) as unknown as MockHandle;
    try {
      const step = 20 * 365 * 24 * 3600; // the per-call maximum
      let refused: ApiResponse | undefined;
      for (let i = 0; i < 1000 && !refused; i++) {
        const res = await control(own, 'POST', '/clock/advance', { seconds: step });
        if (res.status !== 200) refused = res;
      }
      expect(refused, 'the clock stops before year 10000').toBeDefined();
      expectError(refused!, 422, 'seconds');
      expect(refused!.body.errors.seconds[0]).toContain('9999-12-31T23:59:59Z');
      const now = await ctl(own, 'GET', '/clock');
      expect(now.now).toMatch(/^99\d\d-/);
      // the rest of the room can still be used, to the end of year 9999 and not a second more
      const room = Math.floor((Date.UTC(9999, 11, 31, 23, 59, 59) - Date.parse(now.now)) / 1000) - 5;
      expect((await ctl(own, 'POST', '/clock/advance', { seconds: room })).now).toMatch(/^9999-12-31T23:59:/);
      expectError(await control(own, 'POST', '/clock/advance', { seconds: 3600 }), 422, 'seconds');
      // the API still answers with four-digit years and well-formed ids
      const customer = await createCustomer(own);
      expect(customer.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(customer.created_at).toMatch(/^9999-12-31T/);
    } finally {
      await own.close();
    }
  });
  it('POST /clock/advance refuses a negative or non-numeric amount (time only moves forward)', async () => {
    const c0 = await ctl(mock, 'GET', '/clock');
    for (const seconds of [-10, 'x']) {
      const res = await control(mock, 'POST', '/clock/advance', { seconds });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.body.success).toBe(false);
    }
    expect((await ctl(mock, 'GET', '/clock')).offset_seconds).toBe(c0.offset_seconds);
  });
  it('POST /withdrawals: events only, the wallet does not move', async () => {
    const before = await wallets(mock);
    const d = await ctl(mock, 'POST', '/withdrawals', { amount_minor: 5000, fee_minor: 100, outcome: 'completed' });
    expect(typeof d.withdrawal_id).toBe('string');
    expect(d.events[0]).toBe('withdrawal.requested');
    expect(d.events.at(-1)).toBe('withdrawal.completed');
    const recorded = (await events(mock)).filter((e) => e.data.withdrawal_id === d.withdrawal_id);
    expect(recorded.map((e) => e.type)).toEqual(d.events);
    const done = recorded.find((e) => e.type === 'withdrawal.completed')!;
    expect(done.data).toMatchObject({ amount_minor: 5000, fee_minor: 100, net_amount_minor: 4900 });
    expect(await wallets(mock)).toEqual(before);
    for (const outcome of ['rejected', 'failed', 'cancelled']) {
      const w = await ctl(mock, 'POST', '/withdrawals', { amount_minor: 10, fee_minor: 1, outcome });
      expect(w.events.at(-1)).toBe(`withdrawal.${outcome}`);
    }
  });
  it('PUT /networks sets the enabled networks', async () => {
    const all = mock.networks;
    expect(await ctl(mock, 'PUT', '/networks', { enabled: [all[0]] })).toEqual({ enabled: [all[0]] });
    expect(await ctl(mock, 'PUT', '/networks', { enabled: all })).toMatchObject({
      enabled: expect.arrayContaining(all),
    });
  });
  it('POST /faults: the next `count` calls fail, then calls work again; `any` covers recharge', async () => {
    const c = await approvedCustomer(mock);
    await fault(mock, 'issue', '503', 2);
    expectError(await issueCard(mock, { customerId: c.id }), 503);
    expectError(await issueCard(mock, { customerId: c.id }), 503);
    const card = expectOk(await issueCard(mock, { customerId: c.id }), 201);
    await fault(mock, 'any', '503', 1);
    expectError(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount: 1 },
        idempotencyKey: newIdemKey(),
      }),
      503,
    );
    expectOk(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount: 1 },
        idempotencyKey: newIdemKey(),
      }),
    );
  });
  it('POST /faults with merchant_id leaves other merchants alone', async () => {
    const other = await newMerchant(mock);
    const c = await approvedCustomer(mock);
    await fault(mock, 'issue', '503', 1, other.merchantId);
    expectOk(await issueCard(mock, { customerId: c.id }), 201);
    const oc = await approvedCustomer(mock, other.test);
    expectError(await issueCard(mock, { customerId: oc.id, key: other.test }), 503);
  });
  it('GET /wallets: one row per merchant and mode, each balanced', async () => {
    await activeCard(mock);
    const rows = await wallets(mock);
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const r of rows) expect(walletImbalance(r), JSON.stringify(r)).toBe(0);
  });
  it('POST /webhook-endpoints and GET /webhook-deliveries', async () => {
    const ep = await ctl(mock, 'POST', '/webhook-endpoints', { url: 'http://127.0.0.1:9/hook' });
    expect(ep).toMatchObject({ url: 'http://127.0.0.1:9/hook', merchant_id: mock.merchantId });
    expect(typeof ep.id).toBe('string');
    expect(Array.isArray(await ctl(mock, 'GET', '/webhook-deliveries'))).toBe(true);
  });
  it('POST /webhook-endpoints refuses a URL outside the rules (https, or loopback http)', async () => {
    for (const url of [
      'ftp://example.com/x',
      'http://example.com/hook',
      'https://user:pw@example.com/x',
      'not a url',
    ]) {
      const res = await control(mock, 'POST', '/webhook-endpoints', { url });
      expect(res.status, url).toBeGreaterThanOrEqual(400);
      expect(res.status, url).toBeLessThan(500);
      expect(res.body.success).toBe(false);
    }
  });
  it('POST /events records an event of any of the 12 types; GET /events lists it oldest first', async () => {
    const before = await events(mock);
    const e = await ctl(mock, 'POST', '/events', {
      type: 'withdrawal.approved',
      data: { withdrawal_id: UNKNOWN_ULID, amount_minor: 5 },
    });
    expect(e).toMatchObject({ type: 'withdrawal.approved', merchant_id: mock.merchantId });
    const after = await events(mock);
    expect(after).toHaveLength(before.length + 1);
    expect(after.at(-1)!.id).toBe(e.id);
    const bad = await control(mock, 'POST', '/events', { type: 'card.exploded' });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
  });
  it("GET /events?merchant_id= lists only that merchant's events", async () => {
    const other = await newMerchant(mock);
    expect(await events(mock, other.merchantId)).toEqual([]);
    await ctl(mock, 'POST', '/events', {
      type: 'withdrawal.failed',
      data: { withdrawal_id: UNKNOWN_ULID, amount_minor: 1 },
      merchant_id: other.merchantId,
    });
    const mine = await events(mock, other.merchantId);
    expect(mine.map((e) => e.type)).toEqual(['withdrawal.failed']);
    expect((await events(mock)).some((e) => e.merchant_id === other.merchantId)).toBe(false);
  });
  it('control answers use the API envelopes; unknown control routes answer 404', async () => {
    const res = await control(mock, 'GET', '/nothing');
    expectError(res, 404);
  });
  it('kyc, provision and transactions answer 404 for unknown ids', async () => {
    expectError(await control(mock, 'POST', `/customers/${UNKNOWN_ULID}/kyc`, { verdict: 'approved' }), 404);
    expectError(await control(mock, 'POST', `/cards/${UNKNOWN_ULID}/provision`, { outcome: 'active' }), 404);
    expectError(
      await control(mock, 'POST', `/cards/${UNKNOWN_ULID}/transactions`, {
        type: 'capture',
        status: 'completed',
        amount_minor: 1,
      }),
      404,
    );
  });
});
