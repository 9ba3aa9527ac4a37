// Money past the API's 24-hour memory (PRODUCT.md, "Money operations"): the built CLI against
// the embedded mock. Each test makes the journal old (its entries' times moved back on disk, as
// a day passing would) AND moves the mock's clock past 24 h, so the mock has forgotten the key:
// sent again, the same key would be a new charge. The mock's books (wallet, card count) say
// whether anything was charged twice.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, advance, approvedCustomer, ctl, fault, newKey, wallet, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { startCountingProxy, type Injected } from '../helpers/counting-proxy.js';
import { rewriteJournal } from '../helpers/journal.js';

const HOUR = 3_600_000;
let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const run = (args: string[], extra: Record<string, string> = {}) => sb.run(args, { env: { ...env, ...extra } });
const json = (r: CliResult) => JSON.parse(r.stdout);

/** Moves the first-send time of every journal entry of `key` back by `hours` (a day passing, on the client's side). */
function age(key: string, hours: number): void {
  rewriteJournal(join(sb.stateDir, 'cardctl'), (rec) => {
    if (rec.type === 'op' && rec.idempotency_key === key)
      rec.time = new Date(Date.parse(rec.time as string) - hours * HOUR).toISOString();
    return rec;
  });
}

/** A day passes on both sides: the journal's entries of `key` and the mock's clock (which then forgets the key). */
async function dayPasses(key: string, hours = 25): Promise<void> {
  age(key, hours);
  await advance(mock, hours * 3600);
}

async function books(): Promise<{ balance: number; cards: number }> {
  const state = (await ctl(mock, 'GET', '/state')) as { cards: number };
  return { balance: (await wallet(mock, 'test')).balance_minor, cards: state.cards };
}

interface Entry {
  id: string;
  idempotency_key: string;
  outcome: string;
  resolution?: { outcome: string; note: string | null };
}
const entriesOf = async (key: string): Promise<Entry[]> =>
  (json(await run(['ops', 'list', '--all', '--json'])).data as Entry[]).filter((e) => e.idempotency_key === key);

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 24, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('a key first sent more than 23 h ago is never sent again', () => {
  it('cards issue with the same --idempotency-key a day later reports the card from the journal (human and --json), charging nothing', async () => {
    const customer = await approvedCustomer(mock);
    const issue = ['cards', 'issue', '--customer', customer.id, '--amount', '1200', '--idempotency-key', 'day-issue-1'];
    const first = await run([...issue, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const card = json(first);
    await dayPasses('day-issue-1');
    const before = await books();

    const again = await run([...issue, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({
      from_journal: true,
      outcome: 'succeeded',
      id: card.id,
      status: 201,
      idempotency_key: 'day-issue-1',
    });
    const human = await run(issue);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/from_journal\s+true/);
    expect(human.stdout).toContain(card.id);
    expect(human.stderr).toMatch(
      /From the journal: Idempotency-Key day-issue-1 was first sent 25\.0 h ago .*it was not sent/,
    );
    expect(await books()).toEqual(before);
    expect(await entriesOf('day-issue-1')).toHaveLength(1); // nothing sent, nothing journaled
  });

  it('an unknown recharge a day later: the same command and `ops replay` exit 7, name `cards get CARD` and `ops resolve`, charge nothing', async () => {
    const card = await activeCard(mock, { amount: 500 });
    await fault(mock, 'recharge', '500_after_commit');
    const recharge = [
      'cards',
      'recharge',
      card.id,
      '--amount',
      '300',
      '--idempotency-key',
      'day-recharge-1',
      '--retries',
      '0',
    ];
    expect((await run(recharge)).code).toBe(7);
    const [entry] = await entriesOf('day-recharge-1');
    await dayPasses('day-recharge-1');
    const before = await books();

    const again = await run(recharge);
    expect(again.code, again.stderr).toBe(7);
    expect(again.stderr).toContain('Its outcome is unknown');
    expect(again.stderr).toContain(`cardctl cards get ${card.id}`);
    expect(again.stderr).toContain(`cardctl ops resolve ${entry!.id} --outcome succeeded|failed`);
    const replay = await run(['ops', 'replay', entry!.id, '--json']);
    expect(replay.code, replay.stdout).toBe(7);
    expect(json(replay).error).toMatchObject({
      code: 'key_forgotten',
      idempotency_key: 'day-recharge-1',
      data: { from_journal: true, outcome: 'unknown', id: card.id },
    });
    expect(await books()).toEqual(before);
    expect(await entriesOf('day-recharge-1')).toHaveLength(1);

    // what the person learned (`cards get` shows the 300) is recorded; the same command now reports it, exit 0
    expect(
      (await run(['ops', 'resolve', entry!.id, '--outcome', 'succeeded', '--note', 'balance shows the 300'])).code,
    ).toBe(0);
    const known = await run([...recharge, '--json']);
    expect(known.code, known.stderr).toBe(0);
    expect(json(known)).toMatchObject({
      from_journal: true,
      outcome: 'succeeded',
      id: card.id,
      recorded_by: 'ops resolve',
      note: 'balance shows the 300',
    });
    expect(await books()).toEqual(before);
  });

  it('cards issue --wait of a pending issue a day later does not issue a second card; it says where to look', async () => {
    const customer = await approvedCustomer(mock);
    await fault(mock, 'issue', 'async_202');
    const issue = ['cards', 'issue', '--customer', customer.id, '--amount', '700', '--idempotency-key', 'day-wait-1'];
    const first = await run([...issue, '--json']);
    expect(first.code).toBe(7);
    const [entry] = await entriesOf('day-wait-1');
    await dayPasses('day-wait-1');
    const before = await books();

    const waited = await run([...issue, '--wait', '--wait-timeout', '5']);
    expect(waited.code, waited.stderr).toBe(7);
    // the 202 named no card: the portal is where to look
    expect(waited.stderr).toContain('Find out with the portal');
    expect(waited.stderr).toContain(`cardctl ops resolve ${entry!.id}`);
    expect(await books()).toEqual(before);
    expect(await entriesOf('day-wait-1')).toHaveLength(1);
  });

  it('the same key with another body a day later: refused before sending (exit 5, payload_mismatch naming the field), nothing sent', async () => {
    const customer = await approvedCustomer(mock);
    const base = ['cards', 'issue', '--customer', customer.id, '--idempotency-key', 'day-reuse-1', '--json'];
    expect((await run([...base, '--amount', '100'])).code).toBe(0);
    await dayPasses('day-reuse-1');
    const before = await books();

    const otherBody = await run([...base, '--amount', '101']);
    expect(otherBody.code, otherBody.stdout).toBe(5);
    expect(json(otherBody).error.code).toBe('payload_mismatch');
    expect(json(otherBody).error.message).toContain('amount_minor (100 then, 101 now)');
    expect(await books()).toEqual(before);
  });

  it('a profile whose key was rotated (`profiles add --force` with the new key id): the old key id is the same account, a day later nothing is charged again', async () => {
    const customer = await approvedCustomer(mock);
    const key2 = await newKey(mock, { mode: 'test' });
    const add = (keyId: string, secret: string, force = false) =>
      sb.run(
        [
          'profiles',
          'add',
          'rotating',
          '--key-id',
          keyId,
          '--mode',
          'test',
          '--base-url',
          mock.baseUrl,
          '--secret-stdin',
          ...(force ? ['--force'] : []),
        ],
        { input: `${secret}\n` },
      );
    expect((await add(mock.keys.test.keyId, mock.keys.test.secret)).code).toBe(0);
    const issue = [
      'cards',
      'issue',
      '-p',
      'rotating',
      '--customer',
      customer.id,
      '--amount',
      '100',
      '--idempotency-key',
      'day-rotate-1',
      '--json',
    ];
    const first = await sb.run(issue);
    expect(first.code, first.stderr).toBe(0);
    expect((await add(key2.keyId, key2.secret, true)).code).toBe(0);
    const shown = JSON.parse((await sb.run(['profiles', 'show', 'rotating', '--json'])).stdout);
    expect(shown.former_key_ids).toEqual([mock.keys.test.keyId]);
    // kept beside the store, not in it: an older cardctl refuses a store with a field it does not know
    expect(readFileSync(join(sb.configDir, 'profiles.json'), 'utf8')).not.toContain(mock.keys.test.keyId);
    expect(JSON.parse(readFileSync(join(sb.configDir, 'former-key-ids.json'), 'utf8'))).toEqual({
      rotating: [mock.keys.test.keyId],
    });
    await dayPasses('day-rotate-1');
    const before = await books();
    const again = await sb.run(issue);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({ from_journal: true, outcome: 'succeeded', id: JSON.parse(first.stdout).id });
    expect(await books()).toEqual(before);
  });

  it('the limit is 23 h of journal time: 22 h 59 min is still sent (the API replays it), 23 h 01 min is not; a clock gone back is not trusted', async () => {
    const customer = await approvedCustomer(mock);
    const issue = [
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '300',
      '--idempotency-key',
      'day-edge-1',
      '--json',
    ];
    const card = json(await run(issue));
    age('day-edge-1', 22 + 59 / 60);
    const young = await run(issue);
    expect(young.code, young.stderr).toBe(0);
    expect(json(young)).toMatchObject({ id: card.id, status: 'active' }); // the API's replay
    expect(json(young).from_journal).toBeUndefined();
    expect(await entriesOf('day-edge-1')).toHaveLength(2);

    age('day-edge-1', 2 / 60); // the first send is now 23 h 01 min old (the mock still remembers: nothing would show a second charge)
    const old = await run(issue);
    expect(old.code, old.stderr).toBe(0);
    expect(json(old)).toMatchObject({ from_journal: true, id: card.id });
    expect(await entriesOf('day-edge-1')).toHaveLength(2);

    // the clock went back 2 h after a send: the entry is in the future, its age cannot be told
    const other = json(
      await run([
        'cards',
        'issue',
        '--customer',
        customer.id,
        '--amount',
        '300',
        '--idempotency-key',
        'day-skew-1',
        '--json',
      ]),
    );
    age('day-skew-1', -2);
    await advance(mock, 25 * 3600); // while the clock was wrong a day passed: the mock forgot the key
    const before = await books();
    const skewed = await run([
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '300',
      '--idempotency-key',
      'day-skew-1',
      '--json',
    ]);
    expect(skewed.code, skewed.stderr).toBe(0);
    expect(json(skewed)).toMatchObject({ from_journal: true, id: other.id });
    expect(await books()).toEqual(before);
  });
});

describe('--batch a day later', () => {
  it('a rerun of the file after 25 h: resolved rows come from the journal, the unknown row is not sent (exit 7); nothing is charged', async () => {
    const customer = await approvedCustomer(mock);
    const path = join(sb.dir, 'day-batch.csv');
    writeFileSync(
      path,
      ['customer_id,amount_minor', ...[111, 222, 333].map((a) => `${customer.id},${a}`)].join('\n') + '\n',
    );
    await fault(mock, 'issue', '500_after_commit');
    const first = await run(['cards', 'issue', '--batch', path, '--concurrency', '1', '--retries', '0', '--json']);
    expect(first.code, first.stderr).toBe(7);
    const rows = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => r.status)).toEqual(['unknown', 'ok', 'ok']);
    for (const r of rows) await dayPasses(r.idempotency_key, 25);
    const before = await books();

    const again = await run(['cards', 'issue', '--batch', path, '--concurrency', '1', '--json']);
    expect(again.code, again.stderr).toBe(7);
    const rerun = again.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rerun.map((r) => [r.row, r.status, r.from_journal])).toEqual([
      [1, 'unknown', true],
      [2, 'ok', true],
      [3, 'ok', true],
    ]);
    expect(rerun.slice(1).map((r) => r.id)).toEqual(rows.slice(1).map((r) => r.id));
    expect(rerun[0].error.code).toBe('key_forgotten');
    expect(await books()).toEqual(before);
  });

  it('a recharge batch rerun after 25 h charges no card twice', async () => {
    const cards = [await activeCard(mock, { amount: 100 }), await activeCard(mock, { amount: 100 })];
    const path = join(sb.dir, 'day-recharge.ndjson');
    writeFileSync(path, cards.map((c) => JSON.stringify({ card_id: c.id, amount: 40 })).join('\n') + '\n');
    const first = await run(['cards', 'recharge', '--batch', path, '--json']);
    expect(first.code, first.stderr).toBe(0);
    for (const r of first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)))
      await dayPasses(r.idempotency_key, 25);
    const before = await books();
    const again = await run(['cards', 'recharge', '--batch', path, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).from_journal),
    ).toEqual([true, true]);
    expect(await books()).toEqual(before);
  });
});

describe('a command already retrying stops at the 23 h limit', () => {
  it('a recharge whose key was first sent 23 h less 15 s ago: a 502, then a 503 asking 40 s: it stops instead of resending past 23 h (exit 7, ops resolve named), nothing charged twice', async () => {
    // a proxy in front of the mock (the journal's base URL is the proxy's on both days), answering in the mock's place when told
    let inject: ((n: number) => Injected | undefined) | undefined;
    const proxy = await startCountingProxy(mock.baseUrl, (n) => inject?.(n));
    try {
      const card = await activeCard(mock, { amount: 500 });
      const via = { CARDCTL_BASE_URL: proxy.baseUrl };
      const recharge = ['cards', 'recharge', card.id, '--amount', '300', '--idempotency-key', 'late-retry-1'];
      await fault(mock, 'recharge', '500_after_commit'); // day one: done, but the answer is a 500
      const day1 = await run([...recharge, '--retries', '0'], via);
      expect(day1.code, day1.stdout + day1.stderr).toBe(7);
      const [entry] = await entriesOf('late-retry-1');

      // 23 h less 15 s later on the journal's clock; the API's clock runs an hour ahead (the
      // difference the hour's margin is for): it forgets the key 15 s from now, a resend after
      // that is a new charge
      age('late-retry-1', 23 - 15 / 3600);
      await advance(mock, 24 * 3600 - 15);
      const before = await books();
      const first = proxy.seen.length;
      inject = (n) =>
        n === first + 1
          ? { status: 502, body: '{"success":false,"message":"Bad gateway.","errors":{}}' }
          : n === first + 2
            ? {
                status: 503,
                headers: { 'Retry-After': '40' },
                body: '{"success":false,"message":"Service unavailable.","errors":{}}',
              }
            : undefined;
      const late = await sb.run([...recharge, '--retries', '5', '--verbose'], {
        env: { ...env, ...via },
        timeoutMs: 55_000,
      });

      expect(late.code, late.stderr).toBe(7);
      expect(proxy.seen.length - first, 'sent twice (the 502, the 503), never past 23 h').toBe(2);
      expect(late.stderr).toContain(
        'not retried: 503 (Retry-After 40 s), but the key was first sent over 23 h ago by then',
      );
      expect(late.stderr).toContain('Retries stopped: the key was first sent 23 h ago');
      expect(late.stderr).toContain(`cardctl cards get ${card.id}`);
      expect(late.stderr).toMatch(/cardctl ops resolve op_\w+ --outcome succeeded\|failed/);
      expect(await books()).toEqual(before);

      // half a minute later the key is past 23 h: the replay is refused, the outcome still unknown (exit 7)
      age('late-retry-1', 30 / 3600);
      const replay = await run(['ops', 'replay', entry!.id, '--json'], via);
      expect(replay.code, replay.stdout).toBe(7);
      expect(json(replay).error.code).toBe('key_forgotten');
      expect(proxy.seen.length - first).toBe(2);
      expect(await books()).toEqual(before);
    } finally {
      await proxy.close();
    }
  }, 90_000);
});
