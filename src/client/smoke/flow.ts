// The smoke test's cases after setup: signing, customers, cards, funding. Each case is one
// step of an integration a merchant would run, checked against what the spec promises.
import { check, dataOf, expectData, expectRefusal, CaseFailure, type Harness, type Outcome } from './harness.js';
import { smokeCustomer } from './customer.js';

interface Customer {
  id: string;
  kyc_status?: string;
}
interface Card {
  id: string;
  status?: string;
  balance_minor?: number;
}

/** Polls after a customer is created: test mode approves at the next read; bounded. */
const KYC_POLL_DELAYS_MS = [0, 500, 1_000, 2_000];
/** Replays of an issue answered 202 (the sandbox's occasional asynchronous issue); bounded. */
const ISSUE_202_DELAYS_MS = [1_000, 2_000];

export async function runSigning(h: Harness): Promise<void> {
  await h.run('signing', 'wrong signature', '401 invalid_signature', async () => {
    const o = await h.call({ method: 'GET', path: '/customers', query: [['per_page', '1']] }, 'wrong-secret');
    return expectRefusal(o, 401, 'invalid_signature', 'auth');
  });
  await h.run('signing', 'nonce sent twice', 'the first accepted, the second 409 replay_detected', async () => {
    const first = await h.call({ method: 'GET', path: '/customers', query: [['per_page', '1']] }, 'fixed-nonce');
    if (first.err)
      throw new CaseFailure(
        `the first request: ${first.err.status ?? ''} ${first.err.code ?? first.err.message}`.trim(),
        first.err.kind,
      );
    const second = await h.call({ method: 'GET', path: '/customers', query: [['per_page', '1']] }, 'fixed-nonce');
    return `${first.res!.status}, then ${expectRefusal(second, 409, 'replay_detected', 'auth')}`;
  });
}

/** Creates a customer and checks it reads back and lists; answers its id, or undefined. */
export async function runCustomers(h: Harness, runId: string): Promise<string | undefined> {
  let id: string | undefined;
  await h.run(
    'customers',
    'create',
    `202 (or 201), then kyc_status approved within ${KYC_POLL_DELAYS_MS.length} reads`,
    async () => {
      const created = expectData<Customer>(
        await h.call({ method: 'POST', path: '/customers', json: smokeCustomer(runId) }),
        'customer',
      );
      id = created.id;
      let status = created.kyc_status;
      let reads = 0;
      for (const delay of KYC_POLL_DELAYS_MS) {
        if (status === 'approved' || status === 'rejected') break;
        await h.sleep(delay);
        status = expectData<Customer>(await h.call({ method: 'GET', path: `/customers/${id}` }), 'customer').kyc_status;
        reads++;
      }
      check(
        status === 'approved',
        `customer ${id}: kyc_status ${status} after ${reads} reads`,
        status === 'rejected' ? 'business' : 'outcome_unknown',
      );
      return `customer ${id}, approved after ${reads} read${reads === 1 ? '' : 's'}`;
    },
  );
  if (!id) return undefined;
  const customerId = id;
  await h.run('customers', 'get', '200, the same customer', async () => {
    const got = expectData<Customer>(await h.call({ method: 'GET', path: `/customers/${customerId}` }), 'customer');
    check(got.id === customerId, `customer ${got.id}, expected ${customerId}`);
    return `200, customer ${got.id} (${got.kyc_status})`;
  });
  await h.run(
    'customers',
    'list',
    'per_page=1 gives one customer; its next_cursor, followed once, another one',
    async () => {
      const page = await h.call({ method: 'GET', path: '/customers', query: [['per_page', '1']] });
      const first = expectData<Customer[]>(page, 'list');
      check(
        Array.isArray(first) && first.length === 1,
        `${Array.isArray(first) ? first.length : 'no'} customers on a page of 1`,
      );
      const next = (page.res?.body as { meta?: { next_cursor?: string | null } } | undefined)?.meta?.next_cursor;
      if (!next) return '1 customer and no next_cursor: the account has one customer, nothing to follow';
      const second = expectData<Customer[]>(
        await h.call({
          method: 'GET',
          path: '/customers',
          query: [
            ['per_page', '1'],
            ['cursor', next],
          ],
        }),
        'list',
      );
      check(
        second.length === 1 && second[0]!.id !== first[0]!.id,
        `the next page holds ${second.length} customers${second[0]?.id === first[0]!.id ? ', the same as the first page' : ''}`,
      );
      return `${first[0]!.id}, then ${second[0]!.id} after next_cursor`;
    },
  );
  return customerId;
}

export interface CardsResult {
  cardId?: string;
  /** the card's status when the smoke test ended */
  status?: string;
}

async function issueWithKey(h: Harness, key: string, body: Record<string, unknown>): Promise<Outcome> {
  let o = await h.call({ method: 'POST', path: '/cards', json: body, idempotencyKey: key });
  // 202: not final; replaying the same key and body reveals the card (as `cards issue --wait` does)
  for (const delay of ISSUE_202_DELAYS_MS) {
    if (o.err?.status !== 202) break;
    await h.sleep(delay);
    o = await h.call({ method: 'POST', path: '/cards', json: body, idempotencyKey: key });
  }
  return o;
}

export async function runCards(h: Harness, customerId: string, amount: number, runId: string): Promise<CardsResult> {
  const key = `smoke-${runId}-issue`;
  const body = { customer_id: customerId, amount_minor: amount };
  const result: CardsResult = {};
  await h.run(
    'cards',
    'issue',
    `201, an active card loaded with ${amount} (default product, fresh Idempotency-Key)`,
    async () => {
      const card = expectData<Card>(await issueWithKey(h, key, body), 'card');
      result.cardId = card.id;
      result.status = card.status;
      check(card.status === 'active', `card ${card.id} is ${card.status}`, 'outcome_unknown');
      return `card ${card.id}, active, balance ${card.balance_minor}`;
    },
  );
  const id = result.cardId;
  if (!id || result.status !== 'active') {
    for (const name of [
      'issue replayed',
      'issue, another body',
      'recharge 1',
      'freeze',
      'unfreeze',
      'transactions',
      'terminate',
      'left frozen',
    ])
      h.skip('cards', name, '-', 'no active card was issued');
    return result;
  }
  let balance = 0;
  await h.run('cards', 'issue replayed', 'the same card: same key and body replay the first answer', async () => {
    const card = expectData<Card>(await issueWithKey(h, key, body), 'card');
    check(card.id === id, `card ${card.id}, expected ${id}: a second card was issued`, 'business');
    balance = card.balance_minor ?? 0;
    return `card ${card.id} again`;
  });
  await h.run('cards', 'issue, another body', '422 payload_mismatch: same key, another amount', async () =>
    expectRefusal(
      await h.call({
        method: 'POST',
        path: '/cards',
        json: { ...body, amount_minor: amount + 1 },
        idempotencyKey: key,
      }),
      422,
      'payload_mismatch',
      'business',
    ),
  );
  await h.run('cards', 'recharge 1', `balance ${'+'}1`, async () => {
    const card = expectData<Card>(
      await h.call({
        method: 'POST',
        path: `/cards/${id}/recharge`,
        json: { amount: 1 },
        idempotencyKey: `smoke-${runId}-recharge`,
      }),
      'card',
    );
    check(card.balance_minor === balance + 1, `balance ${card.balance_minor}, expected ${balance + 1}`, 'business');
    return `balance ${balance} -> ${card.balance_minor}`;
  });
  const setStatus = (name: string, action: 'freeze' | 'unfreeze', want: string) =>
    h.run('cards', name, `status ${want}`, async () => {
      const card = expectData<Card>(await h.call({ method: 'POST', path: `/cards/${id}/${action}` }), 'card');
      result.status = card.status;
      check(card.status === want, `status ${card.status}`, 'business');
      return `status ${card.status}`;
    });
  await setStatus('freeze', 'freeze', 'frozen');
  await setStatus('unfreeze', 'unfreeze', 'active');
  await h.run('cards', 'transactions', '200, a page of transactions', async () => {
    const page = expectData<unknown[]>(
      await h.call({ method: 'GET', path: `/cards/${id}/transactions`, query: [['per_page', '5']] }),
      'page',
    );
    check(Array.isArray(page), 'the answer holds no list');
    return `${page.length} transaction${page.length === 1 ? '' : 's'}`;
  });
  await h.run(
    'cards',
    'terminate',
    '422 termination_blocked while the card is new, or terminated where the account allows it',
    async () => {
      const o = await h.call({
        method: 'POST',
        path: `/cards/${id}/terminate`,
        json: { reason: 'no_longer_needed' },
        idempotencyKey: `smoke-${runId}-terminate`,
      });
      const card = dataOf<Card>(o);
      if (!o.err && card?.status === 'terminated') {
        result.status = 'terminated';
        return 'terminated (the account allows it)';
      }
      return expectRefusal(o, 422, 'termination_blocked', 'business');
    },
  );
  if ((result.status as string | undefined) === 'terminated')
    h.skip('cards', 'left frozen', 'status frozen', 'the card was terminated');
  else await setStatus('left frozen', 'freeze', 'frozen');
  return result;
}

export async function runFunding(h: Harness): Promise<void> {
  for (const [name, path] of [
    ['deposit addresses refused', '/deposit-addresses'],
    ['deposits refused', '/deposits'],
  ] as const) {
    await h.run('funding', name, '403: funding is live-only', async () =>
      expectRefusal(await h.call({ method: 'GET', path }), 403, undefined, 'auth'),
    );
  }
}
