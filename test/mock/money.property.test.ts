// Property: whatever sequence of money operations, faults and clock moves a merchant goes
// through, every wallet row keeps balance + cards + fees + reserved == initial + deposits
// credited, and only credited deposits change that total.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  advance,
  apiCall,
  approvedCustomer,
  ctl,
  issueCard,
  newIdemKey,
  newMerchant,
  wallets,
  walletImbalance,
  type KeyPair,
  type MockHandle,
  type WalletRow,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 111, providerLatencyMs: 0, rateLimit: 1_000_000 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

const mode = fc.constantFrom<'test' | 'live'>('test', 'live');
const op = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('issue' as const), mode, amount: fc.integer({ min: 0, max: 50_000 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('recharge' as const), card: fc.nat(), amount: fc.integer({ min: 1, max: 30_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('freeze' as const), card: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unfreeze' as const), card: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('terminate' as const), card: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replay' as const), nth: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('provision' as const), card: fc.nat(), outcome: fc.constantFrom('active', 'failed') }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deposit' as const),
      status: fc.constantFrom('pending', 'credited', 'flagged'),
      amount: fc.integer({ min: 1, max: 900 }).map((n) => `${n}.${n % 100}`),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('fault' as const),
      operation: fc.constantFrom('issue', 'recharge', 'terminate', 'any'),
      fault: fc.constantFrom('503', '500_after_commit', 'async_202', 'issue_failed'),
    }),
  },
);
type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

interface Sent {
  mode: 'test' | 'live';
  path: string;
  body: object;
  key: string;
}

/** status tally per operation, to show (PROPERTY_VERBOSE=1) that the runs reach every outcome */
const seen = new Map<string, number>();
const total = (w: WalletRow) => w.balance_minor + w.cards_balance_minor + w.fees_collected_minor + w.reserved_minor;

async function runSequence(ops: Op[]): Promise<void> {
  const m = await newMerchant(mock);
  const keyOf = (md: 'test' | 'live'): KeyPair => (md === 'test' ? m.test : m.live);
  const customer = await approvedCustomer(mock, m.test);
  const rowsOf = async () => (await wallets(mock)).filter((w) => w.merchant_id === m.merchantId);
  const before = await rowsOf();
  const cards: Array<{ id: string; mode: 'test' | 'live' }> = [];
  const sent: Sent[] = [];
  const remember = (id: unknown, md: 'test' | 'live') => {
    if (typeof id === 'string' && !cards.some((c) => c.id === id)) cards.push({ id, mode: md });
  };
  const money = async (s: Sent) => {
    const res = await apiCall(mock, { method: 'POST', path: s.path, body: s.body, key: keyOf(s.mode), idempotencyKey: s.key });
    expect(res.status, `${s.path} ${res.raw.toString().slice(0, 300)}`).toBeLessThan(600);
    const tag = `${s.mode} ${s.path.split('/').pop()} ${res.status}`;
    seen.set(tag, (seen.get(tag) ?? 0) + 1);
    if (s.path === '/cards') remember(res.body?.data?.id, s.mode);
    return res;
  };
  for (const o of ops) {
    const card = 'card' in o && cards.length ? cards[o.card % cards.length]! : undefined;
    switch (o.kind) {
      case 'issue': {
        const s = { mode: o.mode, path: '/cards', body: { customer_id: customer.id, amount_minor: o.amount }, key: newIdemKey() };
        sent.push(s);
        await money(s);
        break;
      }
      case 'recharge':
      case 'terminate': {
        if (!card) break;
        if (o.kind === 'terminate') await advance(mock, 3601);
        const s = { mode: card.mode, path: `/cards/${card.id}/${o.kind}`, body: o.kind === 'recharge' ? { amount: o.amount } : {}, key: newIdemKey() };
        sent.push(s);
        await money(s);
        break;
      }
      case 'freeze':
      case 'unfreeze':
        if (card) await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/${o.kind}`, key: keyOf(card.mode) });
        break;
      case 'replay':
        if (sent.length) await money(sent[o.nth % sent.length]!);
        break;
      case 'provision':
        if (card) await ctl(mock, 'POST', `/cards/${card.id}/provision`, { outcome: o.outcome }).catch(() => undefined); // only pending cards accept it
        break;
      case 'deposit':
        await ctl(mock, 'POST', '/deposits', { merchant_id: m.merchantId, network: mock.networks[0], asset_amount: o.amount, status: o.status });
        break;
      case 'fault':
        // issue_failed is refused (422) on recharge and terminate: it means something for issue only
        await ctl(mock, 'POST', '/faults', { operation: o.fault === 'issue_failed' && (o.operation === 'recharge' || o.operation === 'terminate') ? 'issue' : o.operation, kind: o.fault, count: 1, merchant_id: m.merchantId });
        break;
    }
  }
  // Leftover faults are scoped to this sequence's merchant, so they cannot leak into the next one.
  const after = await rowsOf();
  expect(after.length).toBe(before.length);
  for (const w of after) {
    const b = before.find((x) => x.mode === w.mode)!;
    expect(walletImbalance(w), JSON.stringify(w)).toBe(0);
    expect(w.initial_balance_minor).toBe(b.initial_balance_minor);
    expect(w.balance_minor).toBeGreaterThanOrEqual(0);
    expect(w.cards_balance_minor).toBeGreaterThanOrEqual(0);
    expect(w.reserved_minor).toBeGreaterThanOrEqual(0);
    expect(total(w) - total(b), `only deposits change the ${w.mode} total`).toBe(w.deposits_credited_minor - b.deposits_credited_minor);
    if (w.mode === 'test') expect(w.deposits_credited_minor).toBe(b.deposits_credited_minor);
  }
  // The card balances the API shows add up to the wallet's cards_balance_minor.
  for (const md of ['test', 'live'] as const) {
    let sum = 0;
    for (const c of cards.filter((x) => x.mode === md)) {
      const res = await apiCall(mock, { method: 'GET', path: `/cards/${c.id}`, key: keyOf(md) });
      const status = res.body?.data?.status;
      // a pending card's money sits in reserved_minor until it is provisioned
      if (res.status === 200 && !['terminated', 'failed', 'pending'].includes(status)) sum += res.body.data.balance_minor;
    }
    const row = after.find((w) => w.mode === md)!;
    expect(sum, `${md} card balances`).toBe(row.cards_balance_minor);
  }
}

describe('money is conserved', () => {
  it('for 25 random sequences of up to 15 operations', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 8, maxLength: 15 }), runSequence), {
      numRuns: 25,
      seed: Number(process.env.PROPERTY_SEED ?? 4242),
      endOnFailure: true,
    });
    if (process.env.PROPERTY_VERBOSE) console.log(Object.fromEntries([...seen].sort()));
    // the runs did move money: cards were issued and recharged
    expect([...seen.keys()].some((k) => k.endsWith('cards 201'))).toBe(true);
  });
});
