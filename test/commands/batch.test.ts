// `cards issue --batch` and `cards recharge --batch`: the built CLI against the embedded mock,
// checked against the mock's own books (wallet, cards, counts). The rate limit case runs the
// batch runner in-process against a real mock on a fast clock shared by the mock and the
// client (the mock's window is 60 s), so Retry-After is honoured without a minute of waiting.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { ApiClient } from '../../src/client/client.js';
import { Journal } from '../../src/client/journal.js';
import { BatchLimiter, loadBatch, runBatch, type BatchClientHooks, type RowResult } from '../../src/client/batch.js';
import {
  activeCard,
  apiCall,
  approvedCustomer,
  createCustomer,
  ctl,
  customerInput,
  getCustomer,
  newKey,
  wallet,
  type MockHandle,
} from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { batchFiles, jsonLines } from '../helpers/batch-files.js';

let mock: MockHandle;
let sb: Sandbox;
let testEnv: Record<string, string>;
let fee: number;
const run = (args: string[], input?: string) => sb.run(args, { env: testEnv, input });
const lines = jsonLines;
const file = batchFiles(() => sb.dir);

/** The mock's counts of everything (customers, cards, idempotency keys, ...), without the clock. */
async function counts(m: MockHandle = mock): Promise<Record<string, unknown>> {
  const { clock: _clock, ...rest } = (await ctl(m, 'GET', '/state')) as Record<string, unknown>;
  return rest;
}

async function cardBalance(id: string): Promise<number> {
  const res = await apiCall(mock, { method: 'GET', path: `/cards/${id}` });
  expect(res.status).toBe(200);
  return res.body.data.balance_minor;
}

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 23, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  testEnv = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  fee = mock.products.find((p) => p.default)!.issue_fee_minor;
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('cards issue --batch', () => {
  it('a CSV of 6 rows issues 6 cards, charging the wallet once per row; the same file again replays them (same ids, nothing charged)', async () => {
    const customers = await Promise.all([1, 2, 3].map(() => approvedCustomer(mock)));
    const amounts = [1000, 2000, 0, 1500, 700, 50];
    const product = mock.products.find((p) => p.default)!.id;
    const csv =
      [
        'customer_id,amount_minor,product_id',
        ...amounts.map((a, i) => `${customers[i % 3]!.id},${a},${i === 1 ? product : ''}`),
      ].join('\r\n') + '\r\n';
    const path = file('cards.csv', csv);
    const before = await wallet(mock, 'test');
    const cardsBefore = (await counts()).cards as number;

    const first = await run(['cards', 'issue', '--batch', path, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const rows = lines(first);
    expect(rows.map((r) => r.row)).toEqual([1, 2, 3, 4, 5, 6]); // in row order
    for (const [i, r] of rows.entries()) {
      expect(r).toMatchObject({ status: 'ok', http_status: 201, balance_minor: amounts[i], error: null });
      // from what the row asks, not its place: each row its own digest, the first of its kind
      expect(r.idempotency_key).toMatch(/^batch-[0-9a-f]{16}-1$/);
    }
    expect(new Set(rows.map((r) => r.id)).size).toBe(6);
    expect(new Set(rows.map((r) => r.idempotency_key)).size).toBe(6);
    expect(first.stderr).toContain('6 rows: 6 ok, 0 refused, 0 unknown.');
    expect(first.stderr).not.toMatch(/\x1b\[/); // no progress escapes when stderr is not a terminal
    const spent = amounts.reduce((s, a) => s + a + fee, 0);
    expect(before.balance_minor - (await wallet(mock, 'test')).balance_minor).toBe(spent);
    expect((await counts()).cards).toBe(cardsBefore + 6);
    const card = await apiCall(mock, { method: 'GET', path: `/cards/${rows[3].id}` });
    expect(card.body.data).toMatchObject({ customer_id: customers[0]!.id, balance_minor: 1500 });

    const stateAfter = await counts();
    const again = await run(['cards', 'issue', '--batch', path, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(lines(again).map((r) => r.id)).toEqual(rows.map((r) => r.id));
    // resolved rows are answered by the journal: not sent again (no request, no rate-limit budget)
    expect(lines(again).every((r) => r.from_journal === true && r.status === 'ok' && r.http_status === 201)).toBe(true);
    expect(before.balance_minor - (await wallet(mock, 'test')).balance_minor).toBe(spent);
    expect(await counts()).toEqual(stateAfter);

    // the same rows saved differently (a BOM, LF, no final newline, columns reordered) keep their keys
    const resaved =
      '\ufeff' +
      [
        'amount_minor,product_id,customer_id',
        ...amounts.map((a, i) => `${a},${i === 1 ? product : ''},${customers[i % 3]!.id}`),
      ].join('\n');
    const third = await run(['cards', 'issue', '--batch', file('cards-resaved.csv', resaved), '--json']);
    expect(third.code, third.stderr).toBe(0);
    expect(lines(third).map((r) => r.idempotency_key)).toEqual(rows.map((r) => r.idempotency_key));
    expect(lines(third).map((r) => r.id)).toEqual(rows.map((r) => r.id));
    expect(await counts()).toEqual(stateAfter);

    // every row is in the journal once (the reruns sent nothing), resolved with its card
    const journal = JSON.parse((await run(['ops', 'list', '--all', '--json'])).stdout).data as Array<{
      idempotency_key: string;
      outcome: string;
      resource_id: string;
    }>;
    for (const r of rows) {
      const entries = journal.filter((e) => e.idempotency_key === r.idempotency_key);
      expect(entries).toHaveLength(1);
      expect(entries.every((e) => e.outcome === 'resolved' && e.resource_id === r.id)).toBe(true);
    }
  });

  it('refuses the whole file when any row is invalid (exit 2), naming each bad line and field; nothing reaches the mock', async () => {
    const customer = await approvedCustomer(mock);
    const csv = `customer,amount\n${customer.id},1000\ncard_123,1000\n${customer.id},500\n${customer.id},-5\n`;
    const path = file('bad.csv', csv);
    const before = await counts();
    const r = await run(['cards', 'issue', '--batch', path]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('nothing was sent: 2 rows of 4 are not valid');
    expect(r.stderr).toMatch(/line 3 \(row 2\): customer_id: "card_123" is not a customer id/);
    expect(r.stderr).toMatch(/line 5 \(row 4\): amount_minor: The amount minor must be at least 0\./);
    expect(r.stderr).not.toMatch(/line [24] /);
    const asJson = JSON.parse((await run(['cards', 'issue', '--batch', path, '--json'])).stdout);
    expect(Object.keys(asJson.error.errors)).toEqual(['line 3 (row 2)', 'line 5 (row 4)']);
    // a header with an unknown column, and usage errors of the flags
    expect(
      (await run(['cards', 'issue', '--batch', file('typo.csv', `customer_id,amout\n${customer.id},5\n`)])).stderr,
    ).toContain('"amout" is not a column');
    const neither = await run(['cards', 'issue']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('--batch FILE');
    expect((await run(['cards', 'issue', '--batch', path, '--customer', customer.id])).code).toBe(2);
    expect((await run(['cards', 'recharge', customer.id, '--batch', path])).code).toBe(2);
    expect((await run(['cards', 'issue', '--customer', customer.id, '--amount', '5', '--concurrency', '2'])).code).toBe(
      2,
    );
    expect(await counts()).toEqual(before);
  });

  it('a row the API refuses (409 kyc_not_approved) exits 5 and the other rows are done', async () => {
    const good = await Promise.all([1, 2, 3].map(() => approvedCustomer(mock)));
    const rejected = await createCustomer(mock);
    await ctl(mock, 'POST', `/customers/${rejected.id}/kyc`, { verdict: 'rejected', reason: 'document_expired' });
    expect((await getCustomer(mock, rejected.id)).kyc_status).toBe('rejected');
    const ndjson = [good[0], rejected, good[1], good[2]]
      .map((c, i) => JSON.stringify({ customer: c.id, amount: 100 * (i + 1) }))
      .join('\n');
    const before = await wallet(mock, 'test');
    const r = await run(['cards', 'issue', '--batch', file('mixed.jsonl', ndjson), '--json', '--concurrency', '2']);
    expect(r.code, r.stderr).toBe(5);
    const rows = lines(r);
    expect(rows.map((x) => x.status)).toEqual(['ok', 'error', 'ok', 'ok']);
    expect(rows[1]).toMatchObject({ row: 2, http_status: 409, id: null, error: { code: 'kyc_not_approved' } });
    expect(r.stderr).toContain('4 rows: 3 ok, 1 refused, 0 unknown.');
    expect(r.stderr).toMatch(/Refused row 2: not charged/);
    expect(before.balance_minor - (await wallet(mock, 'test')).balance_minor).toBe(100 + 300 + 400 + 3 * fee);
  });

  it("a row refused with kyc_not_approved carries the single command's hint for the customer's state (rejected, pending), reading each customer once", async () => {
    const good = await approvedCustomer(mock);
    const rejected = await createCustomer(mock);
    await ctl(mock, 'POST', `/customers/${rejected.id}/kyc`, { verdict: 'rejected', reason: 'document_expired' });
    const rows = [good, rejected, rejected]
      .map((c, i) => JSON.stringify({ customer: c.id, amount: 100 + i }))
      .join('\n');
    const r = await run([
      'cards',
      'issue',
      '--batch',
      file('kyc.jsonl', rows),
      '--json',
      '--verbose',
      '--concurrency',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(5);
    const out = lines(r);
    expect(out.map((x) => x.status)).toEqual(['ok', 'error', 'error']);
    // the single command, for the same customer: its hint is the row's
    const single = await run(['cards', 'issue', '--customer', rejected.id, '--amount', '100', '--json']);
    expect(single.code).toBe(5);
    const singleError = JSON.parse(single.stdout).error as { message: string; hint: string };
    for (const row of out.slice(1)) {
      expect(row.error).toMatchObject({ code: 'kyc_not_approved' });
      expect(row.error.hint).toContain(`verification was rejected (document_expired)`);
      expect(row.error.hint).toContain(`cardctl customers kyc ${rejected.id}`);
      expect(row.error.hint).not.toMatch(/wait for approval/i);
      expect(singleError).toMatchObject({ message: row.error.message, hint: row.error.hint });
    }
    expect(r.stderr.match(new RegExp(`GET \\S*/customers/${rejected.id}`, 'g'))).toHaveLength(1); // read once for both rows

    // the table for people: the hint in the row's DETAIL
    const text = await run(['cards', 'issue', '--batch', file('kyc-again.jsonl', rows)]);
    expect(text.code).toBe(5);
    const line2 = text.stdout.split('\n').find((l) => /^2\s+error/.test(l));
    expect(line2).toContain('kyc_not_approved');
    expect(line2).toContain(`Customer ${rejected.id}'s verification was rejected (document_expired)`);

    // live: a customer still pending is told to wait for the verdict
    const pending = await createCustomer(mock, { mode: 'live' });
    expect((await getCustomer(mock, pending.id, 'live')).kyc_status).toBe('pending');
    const liveEnv = {
      CARDCTL_BASE_URL: mock.baseUrl,
      CARDCTL_API_KEY: mock.keys.live.keyId,
      CARDCTL_API_SECRET: mock.keys.live.secret,
      CARDCTL_MODE: 'live',
    };
    const live = await sb.run(
      [
        'cards',
        'issue',
        '--batch',
        file('kyc-live.jsonl', JSON.stringify({ customer: pending.id, amount: 100 })),
        '--json',
        '--yes',
      ],
      { env: liveEnv },
    );
    expect(live.code, live.stderr).toBe(5);
    expect(lines(live)[0].error.hint).toContain(`Customer ${pending.id} is pending verification: wait for the verdict`);
  });

  it('a 500 after commit leaves a row unknown (exit 7); running the same file again resolves it without charging twice', async () => {
    const customers = await Promise.all([1, 2, 3].map(() => approvedCustomer(mock)));
    const path = file('faulty.csv', `customer_id,amount_minor\n${customers.map((c) => `${c.id},900`).join('\n')}\n`);
    const before = await wallet(mock, 'test');
    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: '500_after_commit', count: 1 });
    const first = await run(['cards', 'issue', '--batch', path, '--retries', '0', '--json']);
    expect(first.code, first.stderr).toBe(7);
    const rows = lines(first);
    // the first row goes alone (the limiter's slow start), so it is the one the fault hits
    expect(rows[0]).toMatchObject({ row: 1, status: 'unknown', http_status: 500, id: null });
    expect(rows.slice(1).map((x) => x.status)).toEqual(['ok', 'ok']);
    expect(first.stderr).toContain('3 rows: 2 ok, 0 refused, 1 unknown.');
    expect(first.stderr).toContain('run the same command again');
    expect(first.stderr).toContain(
      "Each row's idempotency key comes from what the row asks, not from the file: it replays the row instead of charging twice",
    );
    const charged = 3 * (900 + fee); // the 500 came after the commit: all three are charged
    expect(before.balance_minor - (await wallet(mock, 'test')).balance_minor).toBe(charged);
    const unresolved = JSON.parse((await run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout)
      .data as Array<{ idempotency_key: string }>;
    expect(unresolved.map((e) => e.idempotency_key)).toContain(rows[0].idempotency_key);

    const again = await run(['cards', 'issue', '--batch', path, '--retries', '0']);
    expect(again.code, again.stderr).toBe(0);
    const table = again.stdout.trim().split('\n');
    expect(table[0]).toMatch(/^ROW\s+STATUS\s+HTTP\s+ID\s+BALANCE_MINOR\s+DETAIL$/);
    expect(table.slice(1).map((l) => l.split(/\s+/).slice(0, 3).join(' '))).toEqual([
      '1 ok 201',
      '2 ok 201',
      '3 ok 201',
    ]);
    expect(table[2]).toContain(rows[1].id);
    expect(before.balance_minor - (await wallet(mock, 'test')).balance_minor).toBe(charged);
    expect(JSON.parse((await run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout).data).toEqual([]);
  });
});

describe('cards recharge --batch', () => {
  it('NDJSON on stdin recharges 3 cards; balances and wallet move by the amounts', async () => {
    const cards = await Promise.all([1, 2, 3].map(() => activeCard(mock, { amount: 1000 })));
    const ndjson = `{"card": "${cards[0].id}", "amount": 100}\n\n{"card_id": "${cards[1].id.toLowerCase()}", "amount": "250"}\r\n{"card": "${cards[2].id}", "amount": 5}\n`;
    const before = await wallet(mock, 'test');
    const r = await run(['cards', 'recharge', '--batch', '-'], ndjson);
    expect(r.code, r.stderr).toBe(0);
    const table = r.stdout.trim().split('\n');
    expect(table).toHaveLength(4);
    expect(table[1]).toMatch(new RegExp(`^1\\s+ok\\s+200\\s+${cards[0].id}\\s+1100$`));
    expect(r.stderr).toContain('3 rows (NDJSON), idempotency keys batch-');
    expect(await Promise.all(cards.map((c) => cardBalance(c.id)))).toEqual([1100, 1250, 1005]);
    expect(before.balance_minor - (await wallet(mock, 'test')).balance_minor).toBe(355);
    // the same bytes again: replayed, nothing moves
    expect((await run(['cards', 'recharge', '--batch', '-', '--json'], ndjson)).code).toBe(0);
    expect(await Promise.all(cards.map((c) => cardBalance(c.id)))).toEqual([1100, 1250, 1005]);
  });

  it('refuses a live batch without --yes when nobody can confirm, sending nothing', async () => {
    const id = '01JD2QZZZZZZZZZZZZZZZZZZZZ';
    // everything but events: the earlier tests' operations may still emit theirs (their webhooks' schedule)
    const counted = async (): Promise<Record<string, unknown>> => {
      const { events: _events, ...rest } = await counts();
      return rest;
    };
    const before = await counted();
    const r = await sb.run(['cards', 'recharge', '--batch', file('live.csv', `card,amount\n${id},10\n`)], {
      env: {
        ...testEnv,
        CARDCTL_API_KEY: mock.keys.live.keyId,
        CARDCTL_API_SECRET: mock.keys.live.secret,
        CARDCTL_MODE: 'live',
      },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('LIVE batch of 1 recharge');
    expect(r.stderr).toContain('--yes');
    expect(await counted()).toEqual(before);
  });
});

describe('the rate limiter', () => {
  it('under a 5-a-minute key, 12 rows all go through: a 429 pauses every worker for its Retry-After, then the same keys go again', async () => {
    // One clock for the mock's rate window and the client, running 100x real time.
    const SCALE = 100;
    const start = Date.now();
    const now = () => start + (Date.now() - start) * SCALE;
    const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms / SCALE));
    const limited = (await startMock({
      port: 0,
      seed: 29,
      providerLatencyMs: 0,
      rateLimit: 5,
      now,
    })) as unknown as MockHandle;
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-batch-'));
    try {
      // customers made with another key of the merchant (on the same clock): the batch key's window stays empty
      const setupKey = await newKey(limited, { mode: 'test' });
      const creds = (k: { keyId: string; secret: string }) => ({
        name: 'env',
        source: 'env' as const,
        mode: 'test' as const,
        baseUrl: limited.baseUrl,
        keyId: k.keyId,
        secret: k.secret,
      });
      const setup = new ApiClient({ credentials: creds(setupKey), now });
      const customers: any[] = [];
      for (let i = 0; i < 4; i++) {
        const c = (await setup.send({ method: 'POST', path: '/customers', json: customerInput() })).body as {
          data: { id: string };
        };
        await ctl(limited, 'POST', `/customers/${c.data.id}/kyc`, { verdict: 'approved' });
        customers.push(c.data);
      }
      const csv = `customer,amount\n${Array.from({ length: 12 }, (_, i) => `${customers[i % 4].id},${100 + i}`).join('\n')}\n`;
      const plan = await loadBatch('cards.issue', Buffer.from(csv));
      expect(plan.problems).toEqual([]);

      // records every pause and every slot granted, to check that none is granted during a pause
      const granted: number[] = [];
      const pauses: Array<[number, number]> = [];
      class Recording extends BatchLimiter {
        override async acquire(retry = false): Promise<void> {
          await super.acquire(retry);
          granted.push(now());
        }
        override pause(seconds: number): boolean {
          const from = now();
          const started = super.pause(seconds);
          pauses.push([from, this.pausedUntil]);
          return started;
        }
      }
      const limiter = new Recording({ concurrency: 4, now, sleep });
      const journal = new Journal(join(dir, 'journal.db'));
      const credentials = creds(limited.keys.test);
      const client = (hooks: BatchClientHooks) =>
        new ApiClient({
          credentials,
          journal,
          retries: 3,
          yes: true,
          log: hooks.log,
          sleep: hooks.sleep,
          now: hooks.now,
          onAnswer: hooks.onAnswer,
        });

      // another user of the key spends its whole minute first
      const other = new ApiClient({ credentials, now });
      for (let i = 0; i < 5; i++)
        await other.send({ method: 'GET', path: '/cards/01JD2QZZZZZZZZZZZZZZZZZZZZ' }).catch(() => undefined);

      const before = await wallet(limited, 'test');
      const results: RowResult[] = [];
      const told: Array<[number, number]> = [];
      const summary = await runBatch(plan, {
        concurrency: 4,
        client,
        now,
        sleep,
        limiter,
        onResult: (r) => results.push(r),
        onPause: (ms, status) => told.push([ms, status]),
      });

      expect(results.map((r) => r.row)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      expect(results.map((r) => r.status)).toEqual(Array(12).fill('ok'));
      expect(summary).toMatchObject({ total: 12, ok: 12, refused: 0, unknown: 0 });
      expect(summary.stats.throttled).toBeGreaterThanOrEqual(1);
      expect(summary.stats.pauses).toBeGreaterThanOrEqual(1);
      // every pause is told (the CLI prints it on stderr): a 429 with its wait
      expect(told).toHaveLength(summary.stats.pauses);
      for (const [ms, status] of told) {
        expect(status).toBe(429);
        expect(ms).toBeGreaterThan(0);
      }
      // no stampede: a 429 costs about one refused request, not one per worker and retry
      expect(summary.stats.throttled).toBeLessThanOrEqual(summary.stats.pauses + 1);
      for (const [from, until] of pauses) expect(granted.filter((t) => t > from && t < until)).toEqual([]);
      const limitedFee = limited.products.find((p) => p.default)!.issue_fee_minor;
      const spent = results.reduce((s, _r, i) => s + 100 + i + limitedFee, 0);
      expect(before.balance_minor - (await wallet(limited, 'test')).balance_minor).toBe(spent);
      expect(new Set(results.map((r) => r.id)).size).toBe(12);
    } finally {
      await limited.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('spaces requests as X-RateLimit-Remaining approaches 0, up to window / limit at 0', () => {
    const limiter = new BatchLimiter({ concurrency: 4, now: () => 0, sleep: async () => {} });
    expect(limiter.gapMs()).toBe(0); // nothing known yet
    limiter.observeLimit(600);
    limiter.observeRemaining(500);
    expect(limiter.gapMs()).toBe(0);
    limiter.observeRemaining(30); // below the low-water mark (60): spaced
    expect(limiter.gapMs()).toBe(50);
    limiter.observeRemaining(0);
    expect(limiter.gapMs()).toBe(100); // 60 s / 600
  });
});
