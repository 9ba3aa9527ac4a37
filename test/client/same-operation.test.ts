// "What counts as the same money operation" (docs/money.md): one idempotency key is one operation
// per account, however the account is reached. The built CLI against the embedded mock; a day
// passing is the journal's entries moved back on disk AND the mock's clock moved past 24 h (the
// mock then forgets the key: sent again, it would be a new charge). The mock's books and request
// log say whether anything was sent or charged twice.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, advance, approvedCustomer, ctl, wallet, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { journalRecords, rewriteJournal, writeFolderJournal } from '../helpers/journal.js';

const HOUR = 3_600_000;
let mock: MockHandle;
let sb: Sandbox;
let localhostUrl: string;
const json = (r: CliResult) => JSON.parse(r.stdout);

/** Two profiles of the same key: one through 127.0.0.1, one through localhost (another spelling of the same API). */
async function addProfiles(): Promise<void> {
  localhostUrl = mock.baseUrl.replace('127.0.0.1', 'localhost');
  for (const [name, url] of [
    ['by-ip', mock.baseUrl],
    ['by-name', localhostUrl],
  ] as const) {
    const r = await sb.run(
      [
        'profiles',
        'add',
        name,
        '--key-id',
        mock.keys.test.keyId,
        '--mode',
        'test',
        '--base-url',
        url,
        '--secret-stdin',
      ],
      { input: `${mock.keys.test.secret}\n` },
    );
    expect(r.code, r.stderr).toBe(0);
  }
}

async function dayPasses(key: string): Promise<void> {
  rewriteJournal(join(sb.stateDir, 'cardctl'), (rec) => {
    if (rec.type === 'op' && rec.idempotency_key === key)
      rec.time = new Date(Date.parse(rec.time as string) - 25 * HOUR).toISOString();
    return rec;
  });
  await advance(mock, 25 * 3600);
}

const balanceOf = async (card: string): Promise<number> =>
  json(await sb.run(['cards', 'get', card, '-p', 'by-ip', '--json'])).balance_minor;
/** Requests the mock received for a path (its request log). */
const received = async (path: string): Promise<number> =>
  (await ctl<unknown[]>(mock, 'GET', `/requests?path=${encodeURIComponent(path)}&limit=1000`)).length;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 28, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  await addProfiles();
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('one key is one operation per account, however the account is reached', () => {
  it('a recharge repeated a day later through another spelling of the base URL (localhost for 127.0.0.1): answered from the journal, naming where it was first sent; not charged again', async () => {
    const card = await activeCard(mock, { amount: 500 });
    const recharge = ['cards', 'recharge', card.id, '--amount', '100', '--idempotency-key', 't-r-1'];
    expect((await sb.run([...recharge, '-p', 'by-ip'])).code).toBe(0);
    expect(await balanceOf(card.id)).toBe(600);
    await dayPasses('t-r-1');

    const path = `/api/v1/cards/${card.id}/recharge`;
    const sentBefore = await received(path);
    const again = await sb.run([...recharge, '-p', 'by-name', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(json(again)).toMatchObject({
      from_journal: true,
      outcome: 'succeeded',
      id: card.id,
      idempotency_key: 't-r-1',
    });
    expect(again.stderr).toMatch(
      /From the journal: Idempotency-Key t-r-1 was first sent 25\.0 h ago .* Not charged again/,
    );
    expect(await received(path)).toBe(sentBefore);
    expect(await balanceOf(card.id)).toBe(600);
  });

  it('a --batch rerun a day later through the other spelling: every resolved row from the journal, nothing charged', async () => {
    const cards = [
      await activeCard(mock, { amount: 100 }),
      await activeCard(mock, { amount: 100 }),
      await activeCard(mock, { amount: 100 }),
    ];
    const file = join(sb.dir, 'spelling.csv');
    writeFileSync(file, ['card_id,amount', ...cards.map((c, i) => `${c.id},${10 + i}`)].join('\n') + '\n');
    const first = await sb.run(['cards', 'recharge', '--batch', file, '-p', 'by-ip', '--json']);
    expect(first.code, first.stderr).toBe(0);
    for (const r of first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l)))
      await dayPasses(r.idempotency_key);
    const again = await sb.run(['cards', 'recharge', '--batch', file, '-p', 'by-name', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(
      again.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).from_journal),
    ).toEqual([true, true, true]);
    expect(await Promise.all(cards.map((c) => balanceOf(c.id)))).toEqual([110, 111, 112]);
  });

  it('within 24 h through the other spelling: sent, the API replays it, and stderr says so in one line (profile and base URL of the first send)', async () => {
    const card = await activeCard(mock, { amount: 500 });
    const recharge = ['cards', 'recharge', card.id, '--amount', '70', '--idempotency-key', 't-r-2'];
    const first = await sb.run([...recharge, '-p', 'by-ip']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/Replay/); // a first send is not a replay

    const again = await sb.run([...recharge, '-p', 'by-name', '--verbose']);
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stderr.split('\n').filter((l) => l.startsWith('Replay:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('Idempotency-Key t-r-2 was first sent');
    expect(lines[0]).toContain(`through profile "by-ip", ${mock.baseUrl}`);
    expect(lines[0]).toContain('not charged again');
    expect(await balanceOf(card.id)).toBe(570);

    // through the profile of the first send: still a replay, without a "through"
    const third = await sb.run([...recharge, '-p', 'by-ip']);
    expect(third.stderr).toMatch(
      /^Replay: Idempotency-Key t-r-2 was first sent \S+ \(op_\w+\); the API answered 200 from its memory of the key: not charged again\.$/m,
    );
    expect(await balanceOf(card.id)).toBe(570);
  });

  it('the same key with another amount or another card: refused before sending (exit 5), naming what differs; the mock sees nothing', async () => {
    const [a, b] = [await activeCard(mock, { amount: 500 }), await activeCard(mock, { amount: 500 })];
    expect(
      (await sb.run(['cards', 'recharge', a.id, '--amount', '40', '--idempotency-key', 't-r-3', '-p', 'by-ip'])).code,
    ).toBe(0);
    const sent = await received(`/api/v1/cards/${a.id}/recharge`);

    const amount = await sb.run([
      'cards',
      'recharge',
      a.id,
      '--amount',
      '41',
      '--idempotency-key',
      't-r-3',
      '-p',
      'by-name',
      '--json',
    ]);
    expect(amount.code, amount.stdout).toBe(5);
    expect(json(amount).error).toMatchObject({ code: 'payload_mismatch', idempotency_key: 't-r-3' });
    expect(json(amount).error.message).toContain('amount (40 then, 41 now)');
    expect(json(amount).error.message).toContain('nothing was sent');

    const card = await sb.run([
      'cards',
      'recharge',
      b.id,
      '--amount',
      '40',
      '--idempotency-key',
      't-r-3',
      '-p',
      'by-ip',
    ]);
    expect(card.code, card.stderr).toBe(5);
    expect(card.stderr).toContain(`card (${a.id} then, ${b.id} now)`);
    expect(await received(`/api/v1/cards/${a.id}/recharge`)).toBe(sent);
    expect(await received(`/api/v1/cards/${b.id}/recharge`)).toBe(0);
    expect([await balanceOf(a.id), await balanceOf(b.id)]).toEqual([540, 500]);
  });

  it("another key id that was never the profile's is another account: a fresh mock (fresh keys) per test run reuses its idempotency keys and they are sent", async () => {
    const customer = await approvedCustomer(mock);
    const issue = (m: MockHandle, c: string) => [
      'cards',
      'issue',
      '--customer',
      c,
      '--amount',
      '300',
      '--idempotency-key',
      'suite-issue-1',
      '--json',
    ];
    const env = (m: MockHandle) => ({
      CARDCTL_API_KEY: m.keys.test.keyId,
      CARDCTL_API_SECRET: m.keys.test.secret,
      CARDCTL_BASE_URL: m.baseUrl,
      CARDCTL_MODE: 'test',
    });
    const first = await sb.run(issue(mock, customer.id), { env: env(mock) });
    expect(first.code, first.stderr).toBe(0);

    const fresh = (await startMock({ port: 0, seed: 29, providerLatencyMs: 0 })) as unknown as MockHandle;
    try {
      const freshCustomer = await approvedCustomer(fresh);
      const before = (await wallet(fresh)).balance_minor;
      const second = await sb.run(issue(fresh, freshCustomer.id), { env: env(fresh) });
      expect(second.code, second.stderr).toBe(0);
      expect(json(second).from_journal).toBeUndefined();
      expect(json(second).id).not.toBe(json(first).id);
      expect((await wallet(fresh)).balance_minor).toBeLessThan(before); // issued on the fresh mock
    } finally {
      await fresh.close();
    }
  });
});

describe('an older folder journal missing one of its two copies', () => {
  it.each(['keys', 'segments'] as const)(
    'its %s folder lost: taken over from the other copy, the day-old recharge is answered from the journal, nothing sent',
    async (leave) => {
      const card = await activeCard(mock, { amount: 500 });
      const key = `t-lost-${leave}`;
      const recharge = ['cards', 'recharge', card.id, '--amount', '25', '--idempotency-key', key, '-p', 'by-ip'];
      expect((await sb.run(recharge)).code).toBe(0);
      await dayPasses(key);
      const folder = join(sb.stateDir, 'cardctl');
      const records = journalRecords(folder);
      for (const f of ['journal.db', 'journal.db-wal', 'journal.db-shm']) rmSync(join(folder, f), { force: true });
      writeFolderJournal(folder, records, { leave });

      const path = `/api/v1/cards/${card.id}/recharge`;
      const sent = await received(path);
      const again = await sb.run([...recharge, '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(json(again)).toMatchObject({ from_journal: true, outcome: 'succeeded', idempotency_key: key });
      expect(again.stderr).toMatch(/Took over the older journal .*journal: \d+ records/);
      expect(await received(path)).toBe(sent);
      expect(await balanceOf(card.id)).toBe(525);
    },
  );
});
