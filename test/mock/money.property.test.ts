// Property: whatever sequence of money operations, faults and clock moves a merchant goes
// through, every wallet row keeps balance + cards + fees + reserved == initial + deposits
// credited, and only credited deposits change that total; a key that answered a success answers
// the same success when replayed. Faults of every kind: 503, 500, 500_after_commit, drop, slow,
// async_202, issue_failed. The second property drives the built CLI through the same faults.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  advance,
  apiCall,
  approvedCustomer,
  ctl,
  events,
  issueCard,
  newIdemKey,
  newMerchant,
  wallets,
  walletImbalance,
  type KeyPair,
  type MockHandle,
  type WalletRow,
} from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 111, providerLatencyMs: 0, rateLimit: 1_000_000 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

const mode = fc.constantFrom<'test' | 'live'>('test', 'live');
const op = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('issue' as const), mode, amount: fc.integer({ min: 0, max: 50_000 }) }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('recharge' as const),
      card: fc.nat(),
      amount: fc.integer({ min: 1, max: 30_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('freeze' as const), card: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('unfreeze' as const), card: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('terminate' as const), card: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replay' as const), nth: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('provision' as const),
      card: fc.nat(),
      outcome: fc.constantFrom('active', 'failed'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('deposit' as const),
      status: fc.constantFrom('pending', 'credited', 'flagged'),
      amount: fc.integer({ min: 1, max: 900 }).map((n) => `${n}.${n % 100}`),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('fault' as const),
      operation: fc.constantFrom('issue', 'recharge', 'terminate', 'any'),
      // every kind: 503 and 500 (nothing done), 500_after_commit and drop (done, then a 500 or the
      // connection closed without an answer), slow (done, answered after ms), async_202, issue_failed
      fault: fc.constantFrom('503', '500', '500_after_commit', 'drop', 'slow', 'async_202', 'issue_failed'),
      ms: fc.integer({ min: 1, max: 40 }),
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

/**
 * Every card of a merchant that was ever active, from the mock's `card.issued` events: also one
 * whose issue answered a 500 or dropped the connection (its id never came back). A pending card's
 * money sits in reserved_minor, a failed one's went back to the wallet: neither is in cards_balance.
 */
async function issuedCards(merchantId: string, md: 'test' | 'live'): Promise<string[]> {
  const ids = (await events(mock, merchantId))
    .filter((e) => e.type === 'card.issued' && e.mode === md)
    .map((e) => String(e.data.card_id));
  return [...new Set(ids)];
}

/** GET /cards/ID through the leftover faults on `any` (each 500, 503 or drop uses one up). */
async function readCard(id: string, key: KeyPair): Promise<{ status: string; balance_minor: number }> {
  for (let i = 0; i < 50; i++) {
    const res = await apiCall(mock, { method: 'GET', path: `/cards/${id}`, key }).catch(() => undefined);
    if (res?.status === 200) return res.body.data;
    if (res) expect([500, 503], res.raw.toString().slice(0, 300)).toContain(res.status);
  }
  throw new Error(`GET /cards/${id} never answered 200`);
}

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
  // the first success each key answered: a replay must answer the same (no operation applied twice)
  const succeeded = new Map<string, { status: number; id: unknown; balance: unknown }>();
  const money = async (s: Sent) => {
    const res = await apiCall(mock, {
      method: 'POST',
      path: s.path,
      body: s.body,
      key: keyOf(s.mode),
      idempotencyKey: s.key,
    }).catch((err: Error) => {
      // an injected `drop`: done, but the connection closed without an answer (a replay reveals it)
      expect(err.message, s.path).toMatch(/socket hang up|ECONNRESET/);
      return undefined;
    });
    const tag = `${s.mode} ${s.path.split('/').pop()} ${res?.status ?? 'dropped'}`;
    seen.set(tag, (seen.get(tag) ?? 0) + 1);
    if (!res) return undefined;
    expect(res.status, `${s.path} ${res.raw.toString().slice(0, 300)}`).toBeLessThan(600);
    if (s.path === '/cards') remember(res.body?.data?.id, s.mode);
    if (res.status === 200 || res.status === 201) {
      const answer = { status: res.status, id: res.body?.data?.id, balance: res.body?.data?.balance_minor };
      const first = succeeded.get(s.key);
      if (first) expect(answer, `replay of ${s.key} ${s.path}`).toEqual(first);
      else succeeded.set(s.key, answer);
    }
    return res;
  };
  for (const o of ops) {
    const card = 'card' in o && cards.length ? cards[o.card % cards.length]! : undefined;
    switch (o.kind) {
      case 'issue': {
        const s = {
          mode: o.mode,
          path: '/cards',
          body: { customer_id: customer.id, amount_minor: o.amount },
          key: newIdemKey(),
        };
        sent.push(s);
        await money(s);
        break;
      }
      case 'recharge':
      case 'terminate': {
        if (!card) break;
        if (o.kind === 'terminate') await advance(mock, 3601);
        const s = {
          mode: card.mode,
          path: `/cards/${card.id}/${o.kind}`,
          body: o.kind === 'recharge' ? { amount: o.amount } : {},
          key: newIdemKey(),
        };
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
        await ctl(mock, 'POST', '/deposits', {
          merchant_id: m.merchantId,
          network: mock.networks[0],
          asset_amount: o.amount,
          status: o.status,
        });
        break;
      case 'fault':
        // issue_failed is refused (422) on recharge and terminate: it means something for issue only
        await ctl(mock, 'POST', '/faults', {
          operation:
            o.fault === 'issue_failed' && (o.operation === 'recharge' || o.operation === 'terminate')
              ? 'issue'
              : o.operation,
          kind: o.fault,
          count: 1,
          merchant_id: m.merchantId,
          ...(o.fault === 'slow' ? { ms: o.ms } : {}),
        });
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
    expect(total(w) - total(b), `only deposits change the ${w.mode} total`).toBe(
      w.deposits_credited_minor - b.deposits_credited_minor,
    );
    if (w.mode === 'test') expect(w.deposits_credited_minor).toBe(b.deposits_credited_minor);
  }
  // The card balances the API shows add up to the wallet's cards_balance_minor: every card it
  // lists, also one whose issue answered a 500 or dropped the connection (its id never came back).
  for (const md of ['test', 'live'] as const) {
    let sum = 0;
    for (const id of await issuedCards(m.merchantId, md)) {
      const card = await readCard(id, keyOf(md));
      if (card.status !== 'terminated') sum += card.balance_minor;
    }
    const row = after.find((w) => w.mode === md)!;
    expect(sum, `${md} card balances`).toBe(row.cards_balance_minor);
  }
}

describe('money is conserved', () => {
  it('for 60 random sequences of up to 15 operations', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 8, maxLength: 15 }), runSequence), {
      numRuns: 60,
      seed: Number(process.env.PROPERTY_SEED ?? 4242),
      endOnFailure: true,
    });
    if (process.env.PROPERTY_VERBOSE) console.log(Object.fromEntries([...seen].sort()));
    // the runs did move money: cards were issued and recharged
    expect([...seen.keys()].some((k) => k.endsWith('cards 201'))).toBe(true);
    // and some connections were dropped after the operation was done
    expect([...seen.keys()].some((k) => k.endsWith('dropped'))).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// The same faults through the built CLI (`cards issue`, `recharge`, `terminate`, the same command
// again, `ops replay`): what cardctl reports must be what the API did. After every command the
// wallet says how many times its operation was applied (the commands run one at a time):
// - never more than once per idempotency key;
// - exit 0 means applied once; exit 5 (refused) and 8 (nothing charged) mean not applied;
// - exit 7 (outcome unknown) is resolvable: `ops replay KEY` ends in 0 or 5 once the faults are
//   used up (pending cards provisioned), and the journal then lists nothing unresolved.

/** Past the CLI's per-attempt timeout (CARDCTL_TIMEOUT_MS below): a `slow` answer of 1.5 s times out. */
const CLI_TIMEOUT_MS = 1_000;
const cliFault = fc.record({
  kind: fc.constantFrom('503', '500', '500_after_commit', 'drop', 'slow', 'async_202', 'issue_failed'),
  count: fc.constantFrom(1, 2),
  ms: fc.constantFrom(50, 1_500),
});
const cliOp = fc.record({
  kind: fc.constantFrom('issue', 'issue', 'recharge', 'recharge', 'terminate', 'again'),
  amount: fc.integer({ min: 1, max: 5_000 }),
  pick: fc.nat(),
  retries: fc.constantFrom(0, 0, 1, 3),
  // two in three commands run into a fault
  fault: fc.option(cliFault, { freq: 3, nil: undefined }),
});
type CliOp = typeof cliOp extends fc.Arbitrary<infer T> ? T : never;

interface CliSend {
  kind: 'issue' | 'recharge' | 'terminate';
  key: string;
  args: string[];
  amount: number;
  card?: string;
}

const cliSeen = new Map<string, number>();

async function runCliSequence(sb: Sandbox, ops: CliOp[]): Promise<void> {
  const m = await newMerchant(mock);
  const customer = await approvedCustomer(mock, m.test);
  const fee = mock.products.find((p) => p.default)!.issue_fee_minor;
  const env = {
    CARDCTL_API_KEY: m.test.keyId,
    CARDCTL_API_SECRET: m.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
    CARDCTL_TIMEOUT_MS: String(CLI_TIMEOUT_MS),
  };
  const cli = (args: string[]) => sb.run(args, { env, timeoutMs: 60_000 });
  const balance = async () =>
    (await wallets(mock)).find((w) => w.merchant_id === m.merchantId && w.mode === 'test')!.balance_minor;
  const cardCount = async () => ((await ctl(mock, 'GET', '/state')) as { cards: number }).cards;
  const before = (await wallets(mock)).filter((w) => w.merchant_id === m.merchantId);
  const applied = new Map<string, number>();
  const unresolved = new Set<string>();
  const pending = new Set<string>();
  const sends: CliSend[] = [];

  /** Runs one command of `s` and counts, from the books, how often it applied s's operation. */
  const runCounted = async (s: CliSend, args: string[]) => {
    const card = s.card ? await readCard(s.card, m.test) : undefined;
    const [bal0, cards0] = [await balance(), await cardCount()];
    const r = await cli(args);
    const [bal1, cards1] = [await balance(), await cardCount()];
    let n: number;
    if (s.kind === 'issue') {
      n = cards1 - cards0;
      expect(bal0 - bal1, `issue ${s.key}: the wallet paid ${n} card(s)`).toBe(n * (s.amount + fee));
    } else if (s.kind === 'recharge') {
      n = (bal0 - bal1) / s.amount;
    } else {
      n = card!.status !== 'terminated' && (await readCard(s.card!, m.test)).status === 'terminated' ? 1 : 0;
      expect(bal1 - bal0, `terminate ${s.key}: the refund`).toBe(n * card!.balance_minor);
    }
    const total = (applied.get(s.key) ?? 0) + n;
    applied.set(s.key, total);
    const what = `${args.join(' ')} -> exit ${r.code}\n${r.stdout.slice(0, 400)}\n${r.stderr.slice(0, 600)}`;
    const tag = `${args[0] === 'ops' ? 'replay' : s.kind} exit ${r.code}`;
    cliSeen.set(tag, (cliSeen.get(tag) ?? 0) + 1);
    expect(total, `applied at most once: ${what}`).toBeLessThanOrEqual(1);
    expect([0, 5, 7, 8], what).toContain(r.code);
    if (r.code === 0) expect(total, `exit 0 means done: ${what}`).toBe(1);
    if (r.code === 5 || r.code === 8) expect(total, `exit ${r.code} means not done: ${what}`).toBe(0);
    // exit 8 ("nothing charged") is about this send: an earlier unknown send of the key stays unknown
    if (r.code === 7) unresolved.add(s.key);
    else if (r.code !== 8) unresolved.delete(s.key);
    const out = (() => {
      try {
        return JSON.parse(r.stdout);
      } catch {
        return undefined;
      }
    })();
    const data = out?.error?.data ?? out?.data ?? out;
    if (data?.status === 'pending' && typeof data.id === 'string') pending.add(data.id);
    return r;
  };

  for (const o of ops) {
    const known = await issuedCards(m.merchantId, 'test');
    let s: CliSend | undefined;
    if (o.kind === 'again') s = sends.length ? sends[o.pick % sends.length] : undefined;
    else if (o.kind === 'issue')
      s = {
        kind: 'issue',
        key: newIdemKey(),
        amount: o.amount,
        args: ['cards', 'issue', '--customer', customer.id, '--amount', String(o.amount)],
      };
    else if (known.length) {
      const card = known[o.pick % known.length]!;
      const args =
        o.kind === 'recharge'
          ? ['cards', 'recharge', card, '--amount', String(o.amount)]
          : ['cards', 'terminate', card];
      s = { kind: o.kind, key: newIdemKey(), amount: o.amount, card, args };
    }
    if (!s) continue;
    if (o.kind !== 'again') {
      s.args.push('--idempotency-key', s.key, '--retries', String(o.retries), '--json');
      sends.push(s);
    }
    if (s.kind === 'terminate') await advance(mock, 3601); // a card under an hour old is not terminated
    if (o.fault) {
      const kind = o.fault.kind === 'issue_failed' && s.kind !== 'issue' ? '503' : o.fault.kind;
      await ctl(mock, 'POST', '/faults', {
        operation: s.kind,
        kind,
        count: o.fault.count,
        merchant_id: m.merchantId,
        ...(kind === 'slow' ? { ms: o.fault.ms } : {}),
      });
    }
    await runCounted(s, s.args);
  }

  // Every unknown outcome resolves by replaying its key, once the faults left are used up.
  for (const key of [...unresolved]) {
    const s = sends.find((x) => x.key === key)!;
    let r;
    for (let i = 0; i < 12 && unresolved.has(key); i++) {
      for (const id of pending)
        await ctl(mock, 'POST', `/cards/${id}/provision`, { outcome: 'active' }).catch(() => undefined);
      pending.clear();
      r = await runCounted(s, ['ops', 'replay', key, '--json']);
    }
    expect(unresolved.has(key), `${key} resolved by ops replay (last exit ${r?.code}): ${r?.stderr}`).toBe(false);
  }
  const left = JSON.parse((await cli(['ops', 'list', '--unresolved', '--all', '--json'])).stdout).data as Array<{
    idempotency_key: string;
  }>;
  expect(left.filter((e) => sends.some((s) => s.key === e.idempotency_key))).toEqual([]);

  // and the books balance, as in the property above
  for (const w of (await wallets(mock)).filter((x) => x.merchant_id === m.merchantId)) {
    expect(walletImbalance(w), JSON.stringify(w)).toBe(0);
    const b = before.find((x) => x.mode === w.mode)!;
    expect(total(w), `${w.mode}: no deposits here, so the total stays`).toBe(total(b));
  }
}

describe('what the CLI reports is what happened, under every fault kind', () => {
  let sb: Sandbox;
  beforeAll(() => {
    sb = makeSandbox();
  });
  afterAll(() => sb?.cleanup());

  it('for random sequences of issue, recharge, terminate, the same command again and ops replay', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cliOp, { minLength: 5, maxLength: 9 }), (ops) => runCliSequence(sb, ops)),
      {
        numRuns: Number(process.env.PROPERTY_CLI_RUNS ?? 4),
        seed: Number(process.env.PROPERTY_SEED ?? 4242),
        endOnFailure: true,
      },
    );
    if (process.env.PROPERTY_VERBOSE) console.log(Object.fromEntries([...cliSeen].sort()));
    // the runs reached the outcomes that matter: done, refused, unknown and resolved by a replay
    expect([...cliSeen.keys()]).toEqual(expect.arrayContaining(['issue exit 0', 'issue exit 7', 'replay exit 0']));
  }, 180_000);
});
