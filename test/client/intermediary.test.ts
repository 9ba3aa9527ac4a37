// Only the API's own answers count (issue 36, PRODUCT.md "Money operations"): the built CLI
// through a reverse proxy (test/helpers/intermediary.ts) that answers as gateways, captive
// portals and proxies do, with the mock behind it. The card balances are read from the mock
// afterwards; "a day later" moves the journal's times back and the mock's clock forward (as
// test/client/money-24h.test.ts does), so the mock has forgotten the key and a resend would be a
// new charge.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, advance, cardBalance, type MockHandle } from '../helpers/api.js';
import { jsonLines } from '../helpers/batch-files.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { startIntermediary, type Intermediary } from '../helpers/intermediary.js';
import { rewriteJournal } from '../helpers/journal.js';

const HOUR = 3_600_000;
let mock: MockHandle;
let sb: Sandbox;
let via: Intermediary;
let keys: Record<string, string>;
const direct = () => ({ ...keys, CARDCTL_BASE_URL: mock.baseUrl });
const proxied = () => ({ ...keys, CARDCTL_BASE_URL: via.baseUrl });
const run = (args: string[], env: Record<string, string>) => sb.run(args, { env });
const json = (r: CliResult) => JSON.parse(r.stdout);

interface Entry {
  id: string;
  idempotency_key: string;
  outcome: string;
  status: number | null;
}
const entriesOf = async (key: string): Promise<Entry[]> =>
  (json(await run(['ops', 'list', '--all', '--json'], direct())).data as Entry[]).filter(
    (e) => e.idempotency_key === key,
  );

/** A day passes on both sides: the journal's entries of `key` 25 h older, and the mock's clock 25 h on. */
async function dayPasses(keysSent: string[]): Promise<void> {
  rewriteJournal(join(sb.stateDir, 'cardctl'), (rec) => {
    if (rec.type === 'op' && keysSent.includes(rec.idempotency_key as string))
      rec.time = new Date(Date.parse(rec.time as string) - 25 * HOUR).toISOString();
    return rec;
  });
  await advance(mock, 25 * 3600);
}

const attempts = (r: CliResult): number => r.stderr.split('\n').filter((l) => l.startsWith('> attempt ')).length;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 36, providerLatencyMs: 0 })) as unknown as MockHandle;
  via = await startIntermediary(mock.baseUrl);
  sb = makeSandbox();
  keys = { CARDCTL_API_KEY: mock.keys.test.keyId, CARDCTL_API_SECRET: mock.keys.test.secret, CARDCTL_MODE: 'test' };
  // the key's mode learned from the API itself (a card's `mode`), as any first command would
  const learned = await run(['cards', 'get', (await activeCard(mock)).id], direct());
  expect(learned.code, learned.stderr).toBe(0);
});
afterAll(async () => {
  await via?.close();
  await mock?.close();
  sb?.cleanup();
});

describe("a gateway's text 503 after the API committed", () => {
  it('a recharge: exit 7 naming the gateway, the key to replay, recorded unknown; a day later the same command charges nothing', async () => {
    const card = await activeCard(mock, { amount: 5000 });
    via.mode = 'gateway-503';
    const cmd = ['cards', 'recharge', card.id, '--amount', '107', '--idempotency-key', 'gw-503-1'];
    const r = await run([...cmd, '--retries', '1'], proxied());
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('an intermediary (server: envoy) answered 503 text/plain, not the API');
    expect(r.stderr).toContain('--idempotency-key gw-503-1');
    expect(r.stderr).not.toContain('Nothing was charged');
    expect(await cardBalance(mock, card.id)).toBe(5107); // the API did charge, once
    const [entry, ...more] = await entriesOf('gw-503-1');
    expect(more).toHaveLength(0);
    expect(entry!.outcome).toBe('unknown');

    await dayPasses(['gw-503-1']);
    via.mode = 'forward';
    const again = await run(cmd, proxied());
    expect(again.code, again.stderr).toBe(7);
    expect(again.stderr).toContain(`cardctl cards get ${card.id}`);
    expect(again.stderr).toContain(`cardctl ops resolve ${entry!.id}`);
    expect(await cardBalance(mock, card.id)).toBe(5107);
  });

  it('a --batch: every row unknown (exit 7), and the rerun a day later charges no card twice', async () => {
    const cards = [await activeCard(mock, { amount: 1000 }), await activeCard(mock, { amount: 2000 })];
    const path = join(sb.dir, 'gw-batch.csv');
    writeFileSync(path, `card_id,amount\n${cards[0]!.id},11\n${cards[1]!.id},22\n`);
    via.mode = 'gateway-503';
    const first = await run(['cards', 'recharge', '--batch', path, '--retries', '0', '--json'], proxied());
    expect(first.code, first.stderr).toBe(7);
    const rows = jsonLines(first);
    expect(rows.map((x) => x.status)).toEqual(['unknown', 'unknown']);
    expect(first.stdout + first.stderr).not.toContain('Nothing was charged');
    expect([await cardBalance(mock, cards[0]!.id), await cardBalance(mock, cards[1]!.id)]).toEqual([1011, 2022]);

    await dayPasses(rows.map((x) => x.idempotency_key));
    via.mode = 'forward';
    const again = await run(['cards', 'recharge', '--batch', path, '--json'], proxied());
    expect(again.code, again.stderr).toBe(7);
    expect(jsonLines(again).map((x) => x.status)).toEqual(['unknown', 'unknown']);
    expect([await cardBalance(mock, cards[0]!.id), await cardBalance(mock, cards[1]!.id)]).toEqual([1011, 2022]);
  });
});

describe("a captive portal's HTML 200 (nothing forwarded)", () => {
  it('a recharge is unknown, never a success; replayed once the network is fixed it is charged once', async () => {
    const card = await activeCard(mock, { amount: 300 });
    via.mode = 'portal-html';
    const cmd = ['cards', 'recharge', card.id, '--amount', '50', '--idempotency-key', 'portal-1'];
    const r = await run([...cmd, '--retries', '0'], proxied());
    expect(r.code, r.stderr).toBe(7);
    expect(r.stdout).not.toContain('undefined');
    expect(r.stderr).toContain('an intermediary (server: nginx) answered 200 text/html, not the API');
    expect((await entriesOf('portal-1'))[0]!.outcome).toBe('unknown');
    expect(await cardBalance(mock, card.id)).toBe(300);

    via.mode = 'forward';
    const fixed = await run([...cmd, '--json'], proxied());
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(json(fixed).balance_minor).toBe(350);
    expect(await cardBalance(mock, card.id)).toBe(350);
  });

  it('a day later the rerun is not "already done": exit 7, nothing charged; a batch row is never "ok"', async () => {
    const card = await activeCard(mock, { amount: 400 });
    via.mode = 'portal-html';
    const forwardedBefore = via.forwarded;
    const cmd = ['cards', 'recharge', card.id, '--amount', '60', '--idempotency-key', 'portal-2'];
    expect((await run([...cmd, '--retries', '0'], proxied())).code).toBe(7);
    const path = join(sb.dir, 'portal-batch.csv');
    writeFileSync(path, `card_id,amount\n${card.id},70\n`);
    const batch = await run(['cards', 'recharge', '--batch', path, '--retries', '0', '--json'], proxied());
    expect(batch.code, batch.stderr).toBe(7);
    const [row] = jsonLines(batch);
    expect(row.status).toBe('unknown');
    expect(via.forwarded).toBe(forwardedBefore);
    expect(await cardBalance(mock, card.id)).toBe(400);

    await dayPasses(['portal-2', row.idempotency_key]);
    via.mode = 'forward';
    const again = await run([...cmd, '--json'], proxied());
    expect(again.code, again.stdout).toBe(7);
    expect(json(again).error.data).toMatchObject({ from_journal: true, outcome: 'unknown' });
    const rerun = await run(['cards', 'recharge', '--batch', path, '--json'], proxied());
    expect(rerun.code, rerun.stderr).toBe(7);
    expect(jsonLines(rerun)[0].status).toBe('unknown');
    expect(await cardBalance(mock, card.id)).toBe(400);
  });
});

describe('`ops replay` through an intermediary', () => {
  it("a portal's page answering the replay leaves the operation unknown (exit 7); the replay through a working path settles it, charged once", async () => {
    const card = await activeCard(mock, { amount: 600 });
    via.mode = 'portal-html';
    expect(
      (
        await run(
          ['cards', 'recharge', card.id, '--amount', '8', '--idempotency-key', 'replay-1', '--retries', '0'],
          proxied(),
        )
      ).code,
    ).toBe(7);
    const [entry] = await entriesOf('replay-1');
    const replay = await run(['ops', 'replay', entry!.id, '--retries', '0'], proxied());
    expect(replay.code, replay.stderr).toBe(7);
    expect(replay.stdout).not.toContain('<html>');
    expect(replay.stderr).toContain('an intermediary (server: nginx) answered 200 text/html, not the API');
    expect((await entriesOf('replay-1'))[0]!.outcome).toBe('unknown');
    via.mode = 'forward';
    const settled = await run(['ops', 'replay', entry!.id], proxied());
    expect(settled.code, settled.stderr).toBe(0);
    expect((await entriesOf('replay-1'))[0]!.outcome).toBe('resolved');
    expect(await cardBalance(mock, card.id)).toBe(608);
  });
});

describe('a JSON 200 cut short', () => {
  it('a recharge is unknown (exit 7); a read is exit 8; neither prints "undefined"', async () => {
    const card = await activeCard(mock, { amount: 800 });
    via.mode = 'truncated';
    const r = await run(['cards', 'recharge', card.id, '--amount', '5', '--retries', '0'], proxied());
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('answered 200 application/json cut short');
    expect(r.stdout).not.toContain('undefined');
    expect(await cardBalance(mock, card.id)).toBe(805);
    const read = await run(['cards', 'get', card.id, '--retries', '0'], proxied());
    expect(read.code, read.stderr).toBe(8);
    expect(read.stdout).not.toContain('undefined');
    expect(read.stderr).toContain('not the API');
  });
});

describe("a proxy's plain 403 and 407 pages", () => {
  it('403 ERR_ACCESS_DENIED: exit 8 naming the proxy, sent once, never blamed on the key; `request` prints no HTML', async () => {
    const card = await activeCard(mock, { amount: 900 });
    via.mode = 'forbidden-403';
    const before = via.received;
    const r = await run(['cards', 'recharge', card.id, '--amount', '9', '--verbose'], proxied());
    expect(r.code, r.stderr).toBe(8);
    expect(attempts(r)).toBe(1);
    expect(via.received - before).toBe(1);
    expect(r.stderr).toContain('x-squid-error: ERR_ACCESS_DENIED 0');
    expect(r.stderr).not.toMatch(/CARDCTL_API_KEY|forbidden\.|replay it/);
    expect(await cardBalance(mock, card.id)).toBe(900);

    const req = await run(['request', 'GET', `/cards/${card.id}`], proxied());
    expect(req.code, req.stderr).toBe(8);
    expect(req.stdout).toBe('');
    expect(req.stderr).not.toContain('<html>');
    const inc = await run(['request', 'GET', `/cards/${card.id}`, '--include'], proxied());
    expect(inc.code).toBe(8);
    expect(inc.stdout).toContain('HTTP/1.1 403 Forbidden');
    expect(inc.stdout).toContain('<h1>Access Denied</h1>');

    const doctor = await run(['doctor'], proxied());
    expect(doctor.stdout + doctor.stderr).not.toContain('key forbidden');
    expect(doctor.stdout + doctor.stderr).toContain('x-squid-error');
  });

  it('407: exit 8, not retried, recorded as not sent', async () => {
    const card = await activeCard(mock, { amount: 700 });
    via.mode = 'auth-407';
    const r = await run(
      ['cards', 'recharge', card.id, '--amount', '7', '--idempotency-key', 'p407-1', '--verbose'],
      proxied(),
    );
    expect(r.code, r.stderr).toBe(8);
    expect(attempts(r)).toBe(1);
    expect(r.stderr).toContain('refused POST');
    expect(r.stderr).not.toContain('CARDCTL_API_KEY');
    const [entry] = await entriesOf('p407-1');
    expect(entry!.outcome).toBe('resolved');
    // not sent: the same command through a working path sends it, charged once
    via.mode = 'forward';
    expect(
      (await run(['cards', 'recharge', card.id, '--amount', '7', '--idempotency-key', 'p407-1'], proxied())).code,
    ).toBe(0);
    expect(await cardBalance(mock, card.id)).toBe(707);
  });
});
