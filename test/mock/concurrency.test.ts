// 50 concurrent identical issue requests (same Idempotency-Key and body): exactly one card and
// one charge; every other answer is a replay of that card or 409 in_flight.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  approvedCustomer,
  ctl,
  issueCard,
  newIdemKey,
  wallet,
  walletImbalance,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  // a little provider latency so that the requests really overlap
  mock = (await startMock({ port: 0, seed: 101, providerLatencyMs: 100 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

describe('concurrent identical issues', () => {
  it('50 at once: one card, one charge, the rest replay it or answer 409 in_flight', async () => {
    const customer = await approvedCustomer(mock);
    const fee = mock.products.find((p) => p.default)!.issue_fee_minor;
    const before = await wallet(mock, 'test');
    const cardsBefore = (await ctl(mock, 'GET', '/state')).cards;
    const key = newIdemKey();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => issueCard(mock, { customerId: customer.id, amount: 4321, idempotencyKey: key })),
    );

    const created = answers.filter((a) => a.status === 201);
    const inFlight = answers.filter((a) => a.status === 409);
    const other = answers.filter((a) => a.status !== 201 && a.status !== 409);
    expect(other.map((a) => `${a.status} ${a.raw.toString().slice(0, 200)}`)).toEqual([]);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.data.id)).size).toBe(1);
    for (const a of inFlight) expect(a.body.errors.idempotency).toContain('in_flight');

    const after = await wallet(mock, 'test');
    expect(before.balance_minor - after.balance_minor).toBe(4321 + fee);
    expect(after.cards_balance_minor - before.cards_balance_minor).toBe(4321);
    expect(walletImbalance(after)).toBe(0);
    expect((await ctl(mock, 'GET', '/state')).cards).toBe(cardsBefore + 1);
  });

  it('50 different keys at once: 50 cards, each charged once', async () => {
    const customer = await approvedCustomer(mock);
    const fee = mock.products.find((p) => p.default)!.issue_fee_minor;
    const before = await wallet(mock, 'test');
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        issueCard(mock, { customerId: customer.id, amount: 10, idempotencyKey: newIdemKey() }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201));
    expect(new Set(answers.map((a) => a.body.data.id)).size).toBe(50);
    const after = await wallet(mock, 'test');
    expect(before.balance_minor - after.balance_minor).toBe(50 * (10 + fee));
    expect(walletImbalance(after)).toBe(0);
  });
});
