// Idempotency of issue, recharge and terminate (spec "Idempotency" table and the 500 rule).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  advance,
  apiCall,
  approvedCustomer,
  ctl,
  expectError,
  expectOk,
  fault,
  issueCard,
  newIdemKey,
  newMerchant,
  wallet,
  walletImbalance,
  type KeyPair,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 71, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

async function isolated() {
  const m = await newMerchant(mock);
  const customer = await approvedCustomer(mock, m.test);
  return { ...m, customer };
}
const cardsCount = async () => (await ctl(mock, 'GET', '/state')).cards as number;
const rawIssue = (key: KeyPair, idempotencyKey: string, body: string) =>
  apiCall(mock, { method: 'POST', path: '/cards', body, key, idempotencyKey });

describe('issue', () => {
  it('same key, same body: the original response is replayed, no second card or charge', async () => {
    const m = await isolated();
    const key = newIdemKey();
    const first = await issueCard(mock, { customerId: m.customer.id, amount: 600, key: m.test, idempotencyKey: key });
    const card = expectOk(first, 201);
    const w1 = await wallet(mock, 'test', m.merchantId);
    const n = await cardsCount();
    const second = await issueCard(mock, { customerId: m.customer.id, amount: 600, key: m.test, idempotencyKey: key });
    expect(second.status).toBe(201);
    expect(second.body.data.id).toBe(card.id);
    expect(await wallet(mock, 'test', m.merchantId)).toEqual(w1);
    expect(await cardsCount()).toBe(n);
  });
  it('same key, same JSON with keys reordered: 422 payload_mismatch (raw bytes compared), nothing charged', async () => {
    const m = await isolated();
    const key = newIdemKey();
    expectOk(await rawIssue(m.test, key, `{"customer_id":"${m.customer.id}","amount_minor":100}`), 201);
    const w1 = await wallet(mock, 'test', m.merchantId);
    const res = await rawIssue(m.test, key, `{"amount_minor":100,"customer_id":"${m.customer.id}"}`);
    expectError(res, 422, 'idempotency', 'payload_mismatch');
    expect(await wallet(mock, 'test', m.merchantId)).toEqual(w1);
  });
  it('same key, different amount: 422 payload_mismatch', async () => {
    const m = await isolated();
    const key = newIdemKey();
    expectOk(await issueCard(mock, { customerId: m.customer.id, amount: 100, key: m.test, idempotencyKey: key }), 201);
    expectError(
      await issueCard(mock, { customerId: m.customer.id, amount: 101, key: m.test, idempotencyKey: key }),
      422,
      'idempotency',
      'payload_mismatch',
    );
  });
  it('after 24 h (simulated) the same key is a fresh request', async () => {
    const m = await isolated();
    const key = newIdemKey();
    const first = expectOk(
      await issueCard(mock, { customerId: m.customer.id, amount: 100, key: m.test, idempotencyKey: key }),
      201,
    );
    await advance(mock, 24 * 3600 + 60);
    const w1 = await wallet(mock, 'test', m.merchantId);
    const again = expectOk(
      await issueCard(mock, { customerId: m.customer.id, amount: 100, key: m.test, idempotencyKey: key }),
      201,
    );
    expect(again.id).not.toBe(first.id);
    expect((await wallet(mock, 'test', m.merchantId)).cards_balance_minor - w1.cards_balance_minor).toBe(100);
  });
  it('keys are scoped to the account: another merchant may use the same key with another body', async () => {
    const a = await isolated();
    const b = await isolated();
    const key = newIdemKey();
    const ca = expectOk(
      await issueCard(mock, { customerId: a.customer.id, amount: 100, key: a.test, idempotencyKey: key }),
      201,
    );
    const cb = expectOk(
      await issueCard(mock, { customerId: b.customer.id, amount: 200, key: b.test, idempotencyKey: key }),
      201,
    );
    expect(cb.id).not.toBe(ca.id);
  });
  it('500 after commit: the card exists; replaying the key reveals it (201), charged once', async () => {
    const m = await isolated();
    const w0 = await wallet(mock, 'test', m.merchantId);
    await fault(mock, 'issue', '500_after_commit', 1, m.merchantId);
    const key = newIdemKey();
    const res = await issueCard(mock, { customerId: m.customer.id, amount: 800, key: m.test, idempotencyKey: key });
    expectError(res, 500);
    expect(res.body.errors).toEqual({});
    const replay = expectOk(
      await issueCard(mock, { customerId: m.customer.id, amount: 800, key: m.test, idempotencyKey: key }),
      201,
    );
    expect(replay.balance_minor).toBe(800);
    const w1 = await wallet(mock, 'test', m.merchantId);
    expect(w1.cards_balance_minor - w0.cards_balance_minor).toBe(800);
    expect(walletImbalance(w1)).toBe(0);
  });
});

describe('409 in_flight', () => {
  let slow: MockHandle;
  beforeAll(async () => {
    slow = (await startMock({ port: 0, seed: 72, providerLatencyMs: 600 })) as unknown as MockHandle;
  });
  afterAll(async () => slow?.close());
  it('the same key still running answers 409 idempotency in_flight; one card', async () => {
    const c = await approvedCustomer(slow);
    const key = newIdemKey();
    // Two at once: whichever arrives second finds the first still running (600 ms of provider latency).
    const both = await Promise.all([
      issueCard(slow, { customerId: c.id, amount: 100, idempotencyKey: key }),
      new Promise((r) => setTimeout(r, 100)).then(() =>
        issueCard(slow, { customerId: c.id, amount: 100, idempotencyKey: key }),
      ),
    ]);
    const done = both.filter((r) => r.status === 201);
    const busy = both.filter((r) => r.status !== 201);
    expect(done).toHaveLength(1);
    expect(busy).toHaveLength(1);
    expectError(busy[0]!, 409, 'idempotency', 'in_flight');
    const card = done[0]!.body.data;
    expect(expectOk(await issueCard(slow, { customerId: c.id, amount: 100, idempotencyKey: key }), 201).id).toBe(
      card.id,
    );
  });
  it('recharge and terminate have the provider latency too: the same key still running answers 409 in_flight; loaded once', async () => {
    const c = await approvedCustomer(slow);
    const card = await activeCard(slow, { customerId: c.id, amount: 100 });
    const key = newIdemKey();
    const call = () =>
      apiCall(slow, { method: 'POST', path: `/cards/${card.id}/recharge`, body: { amount: 40 }, idempotencyKey: key });
    const both = await Promise.all([call(), new Promise((r) => setTimeout(r, 100)).then(call)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expectError(both.find((r) => r.status === 409)!, 409, 'idempotency', 'in_flight');
    expect(expectOk(await call()).balance_minor).toBe(140);
  });
});

describe('recharge', () => {
  it('same key, same body: replayed, loaded once', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test, amount: 100 });
    const key = newIdemKey();
    const call = (amount: number) =>
      apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount },
        key: m.test,
        idempotencyKey: key,
      });
    expect(expectOk(await call(50)).balance_minor).toBe(150);
    const w1 = await wallet(mock, 'test', m.merchantId);
    expect(expectOk(await call(50)).balance_minor).toBe(150);
    expect(await wallet(mock, 'test', m.merchantId)).toEqual(w1);
    expectError(await call(51), 422, 'idempotency', 'payload_mismatch');
  });
  it('500 after commit: replay reveals the recharge, loaded once', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test, amount: 100 });
    await fault(mock, 'recharge', '500_after_commit', 1, m.merchantId);
    const key = newIdemKey();
    const call = () =>
      apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount: 40 },
        key: m.test,
        idempotencyKey: key,
      });
    expectError(await call(), 500);
    expect(expectOk(await call()).balance_minor).toBe(140);
    expect(walletImbalance(await wallet(mock, 'test', m.merchantId))).toBe(0);
  });
});

describe('terminate', () => {
  it('same key: replayed, refunded once; different body: payload_mismatch', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test, amount: 321 });
    await advance(mock, 3601);
    const key = newIdemKey();
    const call = (reason: string) =>
      apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/terminate`,
        body: { reason },
        key: m.test,
        idempotencyKey: key,
      });
    expect(expectOk(await call('lost')).status).toBe('terminated');
    const w1 = await wallet(mock, 'test', m.merchantId);
    expect(expectOk(await call('lost')).status).toBe('terminated');
    expect(await wallet(mock, 'test', m.merchantId)).toEqual(w1);
    expectError(await call('fraud'), 422, 'idempotency', 'payload_mismatch');
  });
  it('500 after commit: replay reveals the termination, refunded once', async () => {
    const m = await isolated();
    const card = await activeCard(mock, { customerId: m.customer.id, key: m.test, amount: 77 });
    await advance(mock, 3601);
    const w0 = await wallet(mock, 'test', m.merchantId);
    await fault(mock, 'terminate', '500_after_commit', 1, m.merchantId);
    const key = newIdemKey();
    const call = () =>
      apiCall(mock, { method: 'POST', path: `/cards/${card.id}/terminate`, key: m.test, idempotencyKey: key });
    expectError(await call(), 500);
    expect(expectOk(await call()).status).toBe('terminated');
    const w1 = await wallet(mock, 'test', m.merchantId);
    expect(w1.balance_minor - w0.balance_minor).toBe(77);
  });
});
