// Steps 4, 5 and 9: cards and money, idempotency under overlap, the KYC rules this mock
// decided (reject trigger, image dropped after a verdict), and the events they record.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  advance,
  apiCall,
  approvedCustomer,
  createCustomer,
  ctl,
  events,
  expectError,
  expectOk,
  issueCard,
  newIdemKey,
  TINY_IMAGE,
  wallet,
  walletImbalance,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 103, providerLatencyMs: 150 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

describe('cards and money', () => {
  it('issue, recharge, terminate: the wallet pays load + fee, gets the refund back, fees stay collected', async () => {
    const fee = mock.products.find((p) => p.default)!.issue_fee_minor;
    const c = await approvedCustomer(mock);
    const w0 = await wallet(mock);
    const card = expectOk(await issueCard(mock, { customerId: c.id, amount: 5000 }), 201);
    expectOk(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount: 700 },
        idempotencyKey: newIdemKey(),
      }),
    );
    await advance(mock, 3601);
    const done = expectOk(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/terminate`,
        body: { reason: 'lost' },
        idempotencyKey: newIdemKey(),
      }),
    );
    expect(done).toMatchObject({ status: 'terminated', balance_minor: 0 });
    const w1 = await wallet(mock);
    expect(w1.balance_minor).toBe(w0.balance_minor - fee);
    expect(w1.fees_collected_minor).toBe(w0.fees_collected_minor + fee);
    expect(walletImbalance(w1)).toBe(0);
    const mine = (await events(mock))
      .filter((e) => e.data.card_id === card.id)
      .map((e) => [e.type, e.data.refunded_amount_minor]);
    expect(mine).toEqual([
      ['card.issued', undefined],
      ['card.terminated', 5700],
    ]);
  });

  it('two overlapping issues with one key: one 201, one 409 in_flight, one card charged once', async () => {
    const c = await approvedCustomer(mock);
    const before = await wallet(mock);
    const key = newIdemKey();
    const [a, b] = await Promise.all([
      issueCard(mock, { customerId: c.id, amount: 1000, idempotencyKey: key }),
      issueCard(mock, { customerId: c.id, amount: 1000, idempotencyKey: key }),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    expectError(a.status === 409 ? a : b, 409, 'idempotency', 'in_flight');
    const replay = expectOk(await issueCard(mock, { customerId: c.id, amount: 1000, idempotencyKey: key }), 201);
    expect(replay.id).toBe((a.status === 201 ? a : b).body.data.id);
    expect((await wallet(mock)).cards_balance_minor - before.cards_balance_minor).toBe(1000);
  });
});

describe('KYC rules of this mock', () => {
  it('last_name "Reject" is rejected after the document delay; the image is gone, so resubmitting needs a new one', async () => {
    const c = await createCustomer(mock, {
      mode: 'live',
      overrides: { last_name: 'Reject', id_type: 'passport', country: 'GBR', id_front_image: TINY_IMAGE },
    });
    await advance(mock, 601);
    const read = expectOk(await apiCall(mock, { method: 'GET', path: `/customers/${c.id}`, mode: 'live' }));
    expect(read).toMatchObject({ kyc_status: 'rejected', kyc_failure_reason: 'identity_mismatch' });
    expect((await events(mock)).filter((e) => e.data.customer_id === c.id).map((e) => e.type)).toEqual([
      'customer.kyc.pending',
      'customer.kyc.rejected',
    ]);

    expectOk(
      await apiCall(mock, { method: 'PATCH', path: `/customers/${c.id}`, body: { last_name: 'Okafor' }, mode: 'live' }),
    );
    const incomplete = await apiCall(mock, { method: 'POST', path: `/customers/${c.id}/kyc`, mode: 'live' });
    expectError(incomplete, 422, 'customer', 'kyc_incomplete');
    expect(incomplete.body.message).toMatch(/id_front_image/);

    expectOk(
      await apiCall(mock, {
        method: 'PATCH',
        path: `/customers/${c.id}`,
        body: { id_front_image: TINY_IMAGE },
        mode: 'live',
      }),
    );
    expect(
      expectOk(await apiCall(mock, { method: 'POST', path: `/customers/${c.id}/kyc`, mode: 'live' }), 202).kyc_status,
    ).toBe('pending');
    await ctl(mock, 'POST', `/customers/${c.id}/kyc`, { verdict: 'approved' });
    expect(expectOk(await apiCall(mock, { method: 'GET', path: `/customers/${c.id}`, mode: 'live' })).kyc_status).toBe(
      'approved',
    );
  });
});
