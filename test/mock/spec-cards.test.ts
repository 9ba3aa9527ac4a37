// Cards: each row of the response tables of POST /cards, GET /cards/{card}, recharge, freeze,
// unfreeze, terminate and transactions, and each transition of the card status table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  advance,
  apiCall,
  approvedCustomer,
  createCustomer,
  control,
  ctl,
  events,
  expectError,
  expectNotFound,
  expectOk,
  expectValidation,
  fault,
  fundLive,
  issueCard,
  newIdemKey,
  newMerchant,
  UNKNOWN_ULID,
  wallet,
  walletImbalance,
  type KeyPair,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 21, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

const HOUR = 3600;
const defaultProduct = () => mock.products.find((p) => p.default)!;

/** The card after a signed GET. */
async function readCard(id: string, mode: 'test' | 'live' = 'test', key?: KeyPair) {
  return expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${id}`, mode, key }));
}

/** A merchant of its own (so wallet deltas are not disturbed by other tests), with an approved customer. */
async function isolated() {
  const m = await newMerchant(mock);
  const customer = await approvedCustomer(mock, m.test);
  return { ...m, customer };
}

describe('POST /cards', () => {
  it('201 Card, active; wallet charged initial load plus the issue fee; event card.issued', async () => {
    const m = await isolated();
    const before = await wallet(mock, 'test', m.merchantId);
    const res = await issueCard(mock, { customerId: m.customer.id, amount: 2500, key: m.test });
    const card = expectOk(res, 201);
    expect(card).toMatchObject({ status: 'active', mode: 'test', balance_minor: 2500, customer_id: m.customer.id });
    expect(card.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(card.last4).toMatch(/^\d{4}$/);
    expect(card).not.toHaveProperty('pan');
    expect(card).not.toHaveProperty('cvv');
    const after = await wallet(mock, 'test', m.merchantId);
    expect(before.balance_minor - after.balance_minor).toBe(2500 + defaultProduct().issue_fee_minor);
    expect(after.cards_balance_minor - before.cards_balance_minor).toBe(2500);
    expect(walletImbalance(after)).toBe(0);
    const ev = (await events(mock, m.merchantId)).filter((e) => e.type === 'card.issued');
    expect(ev.map((e) => e.data.card_id)).toEqual([card.id]);
  });

  it('test mode issues whatever product is named', async () => {
    const m = await isolated();
    const disabled = mock.products.find((p) => !p.enabled)!;
    expectOk(await issueCard(mock, { customerId: m.customer.id, productId: disabled.id, key: m.test }), 201);
    expectOk(await issueCard(mock, { customerId: m.customer.id, productId: UNKNOWN_ULID, key: m.test }), 201);
  });

  it('202 (async_202 fault): pending card, then provisioning completes -> active, event card.issued, replay answers 201', async () => {
    const m = await isolated();
    await fault(mock, 'issue', 'async_202', 1, m.merchantId);
    const key = newIdemKey();
    const body = { customerId: m.customer.id, amount: 700, key: m.test, idempotencyKey: key };
    const first = await issueCard(mock, body);
    expect(first.status, first.raw.toString()).toBe(202);
    expect(first.body.success).toBe(true);
    expect(first.body.data.status).toBe('pending');
    // The 202 may carry no id: replaying the key finds the card in its current state.
    const replay = await issueCard(mock, body);
    expect(replay.status).toBe(202);
    const id = replay.body.data.id ?? first.body.data.id;
    expect(id, 'a replay of a pending issue names the card').toBeTypeOf('string');
    const pending = await readCard(id, 'test', m.test);
    expect(pending.status).toBe('pending');
    expect(pending.masked_pan).toBe('');
    expect((await events(mock, m.merchantId)).filter((e) => e.type === 'card.issued')).toHaveLength(0);
    const provisioned = await ctl(mock, 'POST', `/cards/${id}/provision`, { outcome: 'active' });
    expect(provisioned.status).toBe('active');
    expect((await readCard(id, 'test', m.test)).status).toBe('active');
    expect(
      (await events(mock, m.merchantId)).filter((e) => e.type === 'card.issued').map((e) => e.data.card_id),
    ).toEqual([id]);
    const after = await issueCard(mock, body);
    expect(expectOk(after, 201).id).toBe(id);
    expect(walletImbalance(await wallet(mock, 'test', m.merchantId))).toBe(0);
  });

  it('202 then provisioning fails -> failed, nothing charged', async () => {
    const m = await isolated();
    const before = await wallet(mock, 'test', m.merchantId);
    await fault(mock, 'issue', 'async_202', 1, m.merchantId);
    const key = newIdemKey();
    const first = await issueCard(mock, { customerId: m.customer.id, amount: 900, key: m.test, idempotencyKey: key });
    expect(first.status).toBe(202);
    const id =
      first.body.data.id ??
      (await issueCard(mock, { customerId: m.customer.id, amount: 900, key: m.test, idempotencyKey: key })).body.data
        .id;
    const failed = await ctl(mock, 'POST', `/cards/${id}/provision`, { outcome: 'failed' });
    expect(failed.status).toBe('failed');
    expect((await readCard(id, 'test', m.test)).status).toBe('failed');
    const after = await wallet(mock, 'test', m.merchantId);
    expect(after.balance_minor).toBe(before.balance_minor);
    expect(after.fees_collected_minor).toBe(before.fees_collected_minor);
    expect(after.reserved_minor).toBe(before.reserved_minor);
    expect(walletImbalance(after)).toBe(0);
    expect((await events(mock, m.merchantId)).filter((e) => e.type === 'card.issued')).toHaveLength(0);
  });

  it('404 for an unknown customer', async () => {
    expectNotFound(await issueCard(mock, { customerId: UNKNOWN_ULID }));
  });

  it('404 for a customer of another merchant', async () => {
    const m = await newMerchant(mock);
    const foreign = await approvedCustomer(mock, m.test);
    expectNotFound(await issueCard(mock, { customerId: foreign.id }));
  });

  it('404 for a product not enabled for the merchant (live key)', async () => {
    await fundLive(mock);
    const c = await approvedCustomer(mock);
    const disabled = mock.products.find((p) => !p.enabled)!;
    const before = await wallet(mock, 'live');
    expectNotFound(await issueCard(mock, { customerId: c.id, productId: disabled.id, mode: 'live' }));
    expectNotFound(await issueCard(mock, { customerId: c.id, productId: UNKNOWN_ULID, mode: 'live' }));
    expect((await wallet(mock, 'live')).balance_minor).toBe(before.balance_minor);
  });

  it('409 customer kyc_not_approved; the same request (same key) succeeds unchanged after approval', async () => {
    const c = await createCustomer(mock, { mode: 'live' });
    await fundLive(mock);
    const key = newIdemKey();
    const refused = await issueCard(mock, { customerId: c.id, mode: 'live', amount: 500, idempotencyKey: key });
    expectError(refused, 409, 'customer', 'kyc_not_approved');
    await ctl(mock, 'POST', `/customers/${c.id}/kyc`, { verdict: 'approved' });
    expectOk(await issueCard(mock, { customerId: c.id, mode: 'live', amount: 500, idempotencyKey: key }), 201);
  });

  it('422 validation: amount_minor missing, negative, over 100,000,000, not an integer; customer_id wrong length', async () => {
    const c = await approvedCustomer(mock);
    for (const [body, field] of [
      [{ customer_id: c.id }, 'amount_minor'],
      [{ customer_id: c.id, amount_minor: -1 }, 'amount_minor'],
      [{ customer_id: c.id, amount_minor: 100_000_001 }, 'amount_minor'],
      [{ customer_id: c.id, amount_minor: 10.5 }, 'amount_minor'],
      [{ customer_id: c.id, amount_minor: '100' }, 'amount_minor'],
      [{ customer_id: 'short', amount_minor: 100 }, 'customer_id'],
      [{ amount_minor: 100 }, 'customer_id'],
      [{ customer_id: c.id, amount_minor: 100, product_id: 'x' }, 'product_id'],
    ] as const) {
      expectValidation(
        await apiCall(mock, { method: 'POST', path: '/cards', body, idempotencyKey: newIdemKey() }),
        field,
      );
    }
  });

  it('422 for an amount_minor literal JSON parsing would round (0.99999999999999999 -> 1); nothing charged; exact spellings issue', async () => {
    const m = await isolated();
    const before = await wallet(mock, 'test', m.merchantId);
    for (const literal of ['0.99999999999999999', '99999999.99999999999', '9007199254740993', '1e400']) {
      const body = `{"customer_id":"${m.customer.id}","amount_minor":${literal}}`;
      const res = await apiCall(mock, {
        method: 'POST',
        path: '/cards',
        body,
        key: m.test,
        idempotencyKey: newIdemKey(),
      });
      expectValidation(res, 'amount_minor');
      expect(res.body.errors.amount_minor[0]).toMatch(/^The amount minor must be an integer number of minor units/);
    }
    // a number elsewhere in the body is refused too (under `body`): the client refuses to send such bodies
    const extra = await apiCall(mock, {
      method: 'POST',
      path: '/cards',
      body: `{"customer_id":"${m.customer.id}","amount_minor":100,"note":1.00000000000000001}`,
      key: m.test,
      idempotencyKey: newIdemKey(),
    });
    expectValidation(extra, 'body');
    const after = await wallet(mock, 'test', m.merchantId);
    expect(after).toEqual(before);
    // exact integers written as decimals or with an exponent stay accepted
    const big = await apiCall(mock, {
      method: 'POST',
      path: '/cards',
      body: `{"customer_id":"${m.customer.id}","amount_minor":100000000.0}`,
      key: m.test,
      idempotencyKey: newIdemKey(),
    });
    expect(expectOk(big, 201).balance_minor).toBe(100_000_000);
    const exp = await apiCall(mock, {
      method: 'POST',
      path: '/cards',
      body: `{"customer_id":"${m.customer.id}","amount_minor":1e2}`,
      key: m.test,
      idempotencyKey: newIdemKey(),
    });
    expect(expectOk(exp, 201).balance_minor).toBe(100);
  });

  it('404 in test mode too for a product_id that is not a well-formed ULID; nothing charged, nothing issued', async () => {
    const m = await isolated();
    const before = await wallet(mock, 'test', m.merchantId);
    for (const productId of [
      'xxxxxxxxxxxxxxxxxxxxxxxxxx',
      '01jd2qzzzzzzzzzzzzzzzzzzzz',
      '01JD2QZZZZZZZZZZZZZZZZZZZU',
    ]) {
      expectNotFound(await issueCard(mock, { customerId: m.customer.id, productId, key: m.test }));
    }
    expect(await wallet(mock, 'test', m.merchantId)).toEqual(before);
    expect((await events(mock, m.merchantId)).filter((e) => e.type === 'card.issued')).toHaveLength(0);
  });

  it('422 for a body that is not JSON', async () => {
    const res = await apiCall(mock, {
      method: 'POST',
      path: '/cards',
      body: '{"customer_id":',
      idempotencyKey: newIdemKey(),
    });
    expectError(res, 422);
  });

  it('422 product unavailable (live key, product without a route to an issuer); nothing charged', async () => {
    await fundLive(mock);
    const c = await approvedCustomer(mock);
    const unavailable =
      mock.products.find((p) => p.enabled && !p.available) ?? mock.products.find((p) => !p.available)!;
    const before = await wallet(mock, 'live');
    expectError(
      await issueCard(mock, { customerId: c.id, productId: unavailable.id, mode: 'live' }),
      422,
      'product',
      'unavailable',
    );
    expect((await wallet(mock, 'live')).balance_minor).toBe(before.balance_minor);
  });

  it('422 product no_default when no product is named and none is the default (mock products set); nothing charged', async () => {
    // products are the platform's configuration, shared by every merchant: use a mock of its own
    const own = (await startMock({ port: 0, seed: 22, providerLatencyMs: 0 })) as unknown as MockHandle;
    try {
      const c = await approvedCustomer(own);
      const def = own.products.find((p) => p.default)!;
      expect((await ctl(own, 'PATCH', `/products/${def.id}`, { default: false })).default).toBe(false);
      expect((await ctl<Array<{ default: boolean }>>(own, 'GET', '/products')).some((p) => p.default)).toBe(false);
      const before = await wallet(own, 'test');
      expectError(await issueCard(own, { customerId: c.id }), 422, 'product', 'no_default');
      expect((await wallet(own, 'test')).balance_minor).toBe(before.balance_minor);
      await ctl(own, 'PATCH', `/products/${def.id}`, { default: true });
      expect(expectOk(await issueCard(own, { customerId: c.id }), 201).product_id).toBe(def.id);
      expect((await control(own, 'PATCH', `/products/${def.id}`, { default: 'no' })).status).toBe(422);
    } finally {
      await own.close();
    }
  });

  it('422 balance insufficient_funds when the live wallet cannot cover load plus fee; nothing charged', async () => {
    const m = await newMerchant(mock);
    const c = await approvedCustomer(mock, m.test);
    const res = await issueCard(mock, {
      customerId: c.id,
      key: m.live,
      amount: Math.max(defaultProduct().min_initial_load_minor, 100),
    });
    expectError(res, 422, 'balance', 'insufficient_funds');
    const w = await wallet(mock, 'live', m.merchantId);
    expect(w.balance_minor).toBe(0);
    expect(w.cards_balance_minor).toBe(0);
  });

  it('422 amount_minor below_minimum (live key, under the product minimum)', async () => {
    await fundLive(mock);
    const c = await approvedCustomer(mock);
    const product = mock.products.find((p) => p.enabled && p.available && p.min_initial_load_minor > 0);
    expect(product, 'the seeded products include one with a minimum initial load').toBeDefined();
    const res = await issueCard(mock, {
      customerId: c.id,
      productId: product!.id,
      amount: product!.min_initial_load_minor - 1,
      mode: 'live',
    });
    expectError(res, 422, 'amount_minor', 'below_minimum');
  });

  it('422 customer invalid for a disabled customer', async () => {
    const c = await approvedCustomer(mock);
    expectOk(await apiCall(mock, { method: 'PATCH', path: `/customers/${c.id}`, body: { status: 'disabled' } }));
    expectError(await issueCard(mock, { customerId: c.id }), 422, 'customer', 'invalid');
  });

  it('422 card issue_failed (issuer refusal): nothing charged; a new idempotency key then succeeds', async () => {
    const m = await isolated();
    const before = await wallet(mock, 'test', m.merchantId);
    await fault(mock, 'issue', 'issue_failed', 1, m.merchantId);
    expectError(await issueCard(mock, { customerId: m.customer.id, key: m.test }), 422, 'card', 'issue_failed');
    const mid = await wallet(mock, 'test', m.merchantId);
    expect(mid.balance_minor).toBe(before.balance_minor);
    expect(mid.fees_collected_minor).toBe(before.fees_collected_minor);
    expectOk(await issueCard(mock, { customerId: m.customer.id, key: m.test }), 201);
  });

  it('422 idempotency_key when the header is missing or longer than 255', async () => {
    const c = await approvedCustomer(mock);
    const missing = await apiCall(mock, {
      method: 'POST',
      path: '/cards',
      body: { customer_id: c.id, amount_minor: 100 },
    });
    expectError(missing, 422, 'idempotency_key');
    const long = await issueCard(mock, { customerId: c.id, idempotencyKey: 'k'.repeat(256) });
    expectError(long, 422, 'idempotency_key');
    expectOk(await issueCard(mock, { customerId: c.id, idempotencyKey: 'k'.repeat(255) }), 201);
  });

  it('503 (fault): nothing charged; retry with the same key succeeds', async () => {
    const m = await isolated();
    const before = await wallet(mock, 'test', m.merchantId);
    await fault(mock, 'issue', '503', 1, m.merchantId);
    const key = newIdemKey();
    const res = await issueCard(mock, { customerId: m.customer.id, key: m.test, idempotencyKey: key });
    expectError(res, 503);
    expect((await wallet(mock, 'test', m.merchantId)).balance_minor).toBe(before.balance_minor);
    expectOk(await issueCard(mock, { customerId: m.customer.id, key: m.test, idempotencyKey: key }), 201);
  });
});

describe('GET /cards/{card}', () => {
  it('200 the card in its current state', async () => {
    const card = await activeCard(mock);
    expect(await readCard(card.id)).toMatchObject({ id: card.id, status: 'active', balance_minor: card.balance_minor });
  });
  it('404 for an unknown card', async () => {
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}` }));
  });
  it('404 for a card of another merchant', async () => {
    const m = await newMerchant(mock);
    const card = await activeCard(mock, { key: m.test });
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` }));
  });
  it('active -> expired by the passage of time (3 years)', async () => {
    const card = await activeCard(mock);
    await advance(mock, 3 * 366 * 24 * HOUR);
    expect((await readCard(card.id)).status).toBe('expired');
  });
});

describe('POST /cards/{card}/recharge', () => {
  it('200 Card recharged: card balance up, wallet down by the amount', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test, amount: 1000 });
    const before = await wallet(mock, 'test', m.merchantId);
    const res = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/recharge`,
      body: { amount: 250 },
      key: m.test,
      idempotencyKey: newIdemKey(),
    });
    expect(expectOk(res).balance_minor).toBe(1250);
    const after = await wallet(mock, 'test', m.merchantId);
    expect(before.balance_minor - after.balance_minor).toBeGreaterThanOrEqual(250);
    expect(after.cards_balance_minor - before.cards_balance_minor).toBe(250);
    expect(walletImbalance(after)).toBe(0);
  });
  it('202 (async_202 fault) answers the Processing envelope', async () => {
    const card = await activeCard(mock);
    await fault(mock, 'recharge', 'async_202', 1);
    const res = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/recharge`,
      body: { amount: 5 },
      idempotencyKey: newIdemKey(),
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ success: true, message: expect.any(String), data: { status: 'pending' } });
  });
  it('422 for an amount literal JSON parsing would round (4.9999999999999999 -> 5); nothing charged; 1e2 is exact', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test, amount: 1000 });
    const before = await wallet(mock, 'test', m.merchantId);
    for (const literal of ['4.9999999999999999', '9007199254740993', '1e999']) {
      const res = await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: `{"amount":${literal}}`,
        key: m.test,
        idempotencyKey: newIdemKey(),
      });
      expectValidation(res, 'amount');
      expect(res.body.errors.amount[0]).toMatch(/^The amount must be an integer number of minor units/);
    }
    expect(await wallet(mock, 'test', m.merchantId)).toEqual(before);
    expect((await readCard(card.id, 'test', m.test)).balance_minor).toBe(1000);
    const exact = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/recharge`,
      body: '{"amount":1e2}',
      key: m.test,
      idempotencyKey: newIdemKey(),
    });
    expect(expectOk(exact).balance_minor).toBe(1100);
  });
  it('422 "The amount is required." for a missing amount; "must be an integer" for one of another type', async () => {
    const card = await activeCard(mock);
    const missing = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/recharge`,
      body: {},
      idempotencyKey: newIdemKey(),
    });
    expectValidation(missing, 'amount');
    expect(missing.body.errors.amount).toEqual(['The amount is required.']);
    const text = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/recharge`,
      body: { amount: '5' },
      idempotencyKey: newIdemKey(),
    });
    expect(text.body.errors.amount).toEqual(['The amount must be an integer number of minor units.']);
  });
  it('404 for an unknown card', async () => {
    expectNotFound(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${UNKNOWN_ULID}/recharge`,
        body: { amount: 5 },
        idempotencyKey: newIdemKey(),
      }),
    );
  });
  it('422 validation for amount 0, missing, or amount_minor instead of amount', async () => {
    const card = await activeCard(mock);
    for (const body of [{ amount: 0 }, {}, { amount_minor: 5 }, { amount: 1.5 }]) {
      expectValidation(
        await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/recharge`, body, idempotencyKey: newIdemKey() }),
        'amount',
      );
    }
  });
  it('422 balance insufficient_funds; card and wallet unchanged', async () => {
    const m = await newMerchant(mock);
    const c = await approvedCustomer(mock, m.test);
    const dep = await fundLive(mock, '1000', m.merchantId);
    const credited = dep.credited_amount_minor as number;
    expect(credited).toBeGreaterThan(2 * defaultProduct().issue_fee_minor + 100);
    const card = await activeCard(mock, {
      customerId: c.id,
      key: m.live,
      mode: 'live',
      amount: Math.max(defaultProduct().min_initial_load_minor, 100),
    });
    const before = await wallet(mock, 'live', m.merchantId);
    const res = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/recharge`,
      body: { amount: before.balance_minor + 1 },
      key: m.live,
      idempotencyKey: newIdemKey(),
    });
    expectError(res, 422, 'balance', 'insufficient_funds');
    expect((await wallet(mock, 'live', m.merchantId)).balance_minor).toBe(before.balance_minor);
    expect(expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}`, key: m.live })).balance_minor).toBe(
      card.balance_minor,
    );
  });
  it('422 card invalid_state for a terminated card', async () => {
    const card = await activeCard(mock);
    await advance(mock, HOUR + 1);
    expectOk(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/terminate`,
        body: {},
        idempotencyKey: newIdemKey(),
      }),
    );
    const res = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/recharge`,
      body: { amount: 5 },
      idempotencyKey: newIdemKey(),
    });
    expectError(res, 422, 'card', 'invalid_state');
  });
  it('422 idempotency_key when the header is missing', async () => {
    const card = await activeCard(mock);
    expectError(
      await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/recharge`, body: { amount: 5 } }),
      422,
      'idempotency_key',
    );
  });
});

describe('freeze and unfreeze', () => {
  it('active -> frozen -> active, balance and wallet unchanged', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test, amount: 400 });
    const before = await wallet(mock, 'test', m.merchantId);
    const frozen = expectOk(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/freeze`, key: m.test }));
    expect(frozen).toMatchObject({ status: 'frozen', balance_minor: 400 });
    const active = expectOk(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/unfreeze`, key: m.test }));
    expect(active).toMatchObject({ status: 'active', balance_minor: 400 });
    expect(await wallet(mock, 'test', m.merchantId)).toEqual(before);
  });
  it('422 invalid_state: freezing a frozen card, unfreezing an active card', async () => {
    const card = await activeCard(mock);
    expectError(
      await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/unfreeze` }),
      422,
      'card',
      'invalid_state',
    );
    expectOk(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/freeze` }));
    expectError(
      await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/freeze` }),
      422,
      'card',
      'invalid_state',
    );
    expect((await readCard(card.id)).status).toBe('frozen');
  });
  it('422 invalid_state: freezing a pending card', async () => {
    const c = await approvedCustomer(mock);
    await fault(mock, 'issue', 'async_202', 1);
    const key = newIdemKey();
    await issueCard(mock, { customerId: c.id, idempotencyKey: key });
    const id = (await issueCard(mock, { customerId: c.id, idempotencyKey: key })).body.data.id;
    expectError(await apiCall(mock, { method: 'POST', path: `/cards/${id}/freeze` }), 422, 'card', 'invalid_state');
  });
  it('404 for an unknown card', async () => {
    expectNotFound(await apiCall(mock, { method: 'POST', path: `/cards/${UNKNOWN_ULID}/freeze` }));
    expectNotFound(await apiCall(mock, { method: 'POST', path: `/cards/${UNKNOWN_ULID}/unfreeze` }));
  });
});

describe('POST /cards/{card}/terminate', () => {
  it('422 termination_blocked for a card issued less than an hour ago', async () => {
    const card = await activeCard(mock);
    const res = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/terminate`,
      body: {},
      idempotencyKey: newIdemKey(),
    });
    expectError(res, 422, 'card', 'termination_blocked');
    expect((await readCard(card.id)).status).toBe('active');
  });
  it('active -> terminated when old enough: balance refunded to the wallet, event card.terminated', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test, amount: 1234 });
    await advance(mock, HOUR + 1);
    const before = await wallet(mock, 'test', m.merchantId);
    const res = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/terminate`,
      body: { reason: 'lost' },
      key: m.test,
      idempotencyKey: newIdemKey(),
    });
    expect(expectOk(res).status).toBe('terminated');
    const after = await wallet(mock, 'test', m.merchantId);
    expect(after.balance_minor - before.balance_minor).toBe(1234);
    expect(before.cards_balance_minor - after.cards_balance_minor).toBe(1234);
    expect(walletImbalance(after)).toBe(0);
    const ev = (await events(mock, m.merchantId)).filter((e) => e.type === 'card.terminated');
    expect(ev).toHaveLength(1);
    expect(ev[0]!.data).toMatchObject({ card_id: card.id, refunded_amount_minor: 1234 });
  });
  it('frozen -> terminated when old enough', async () => {
    const card = await activeCard(mock);
    expectOk(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/freeze` }));
    await advance(mock, HOUR + 1);
    const res = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/terminate`,
      idempotencyKey: newIdemKey(),
    });
    expect(expectOk(res).status).toBe('terminated');
  });
  it('terminated is final: freeze, unfreeze and a new terminate answer 422 invalid_state', async () => {
    const card = await activeCard(mock);
    await advance(mock, HOUR + 1);
    expectOk(
      await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/terminate`, idempotencyKey: newIdemKey() }),
    );
    expectError(
      await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/freeze` }),
      422,
      'card',
      'invalid_state',
    );
    expectError(
      await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/unfreeze` }),
      422,
      'card',
      'invalid_state',
    );
    expectError(
      await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/terminate`, idempotencyKey: newIdemKey() }),
      422,
      'card',
      'invalid_state',
    );
    expect((await readCard(card.id)).status).toBe('terminated');
  });
  it('202 (async_202 fault) answers the Processing envelope', async () => {
    const card = await activeCard(mock);
    await advance(mock, HOUR + 1);
    await fault(mock, 'terminate', 'async_202', 1);
    const res = await apiCall(mock, {
      method: 'POST',
      path: `/cards/${card.id}/terminate`,
      idempotencyKey: newIdemKey(),
    });
    expect(res.status).toBe(202);
    expect(res.body.success).toBe(true);
  });
  it('422 validation for a reason outside the vocabulary', async () => {
    const card = await activeCard(mock);
    expectValidation(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/terminate`,
        body: { reason: 'bored' },
        idempotencyKey: newIdemKey(),
      }),
      'reason',
    );
  });
  it('404 for an unknown card; 422 idempotency_key without the header', async () => {
    expectNotFound(
      await apiCall(mock, { method: 'POST', path: `/cards/${UNKNOWN_ULID}/terminate`, idempotencyKey: newIdemKey() }),
    );
    const card = await activeCard(mock);
    expectError(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/terminate` }), 422, 'idempotency_key');
  });
});

describe('GET /cards/{card}/transactions', () => {
  it('200 page newest-first by occurred_at, with meta; no event emitted', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test });
    const before = (await events(mock, m.merchantId)).length;
    const times = ['2025-01-01T10:00:00Z', '2025-01-03T10:00:00Z', '2025-01-02T10:00:00Z'];
    for (const [i, t] of times.entries()) {
      const tx = await ctl(mock, 'POST', `/cards/${card.id}/transactions`, {
        type: 'capture',
        status: 'completed',
        amount_minor: 10 + i,
        occurred_at: t,
      });
      expect(tx).toMatchObject({ type: 'capture', status: 'completed', amount_minor: 10 + i });
    }
    const res = await apiCall(mock, { method: 'GET', path: `/cards/${card.id}/transactions`, key: m.test });
    const page = expectOk(res);
    expect(page.map((t: any) => t.amount_minor)).toEqual([11, 12, 10]);
    expect(res.body.meta).toMatchObject({ per_page: 20, has_more: false });
    expect((await events(mock, m.merchantId)).length).toBe(before);
  });
  it('404 for an unknown or foreign card', async () => {
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}/transactions` }));
    const m = await newMerchant(mock);
    const card = await activeCard(mock, { key: m.test });
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}/transactions` }));
  });
});
