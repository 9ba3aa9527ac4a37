// --batch rows that overlap (--concurrency 8): each row's op record is synced without blocking
// the other rows (docs/journal.md, "Durability and concurrency"), and still every request that
// reaches the wire is already in both copies of the journal, every card is charged exactly once,
// and a batch killed mid-way then run again charges each card once. The built CLI against the
// real mock on port 0, behind a proxy that looks at the journal as each request arrives.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, ctl, wallet, type MockHandle, cardBalance } from '../helpers/api.js';
import { batchFiles, jsonLines } from '../helpers/batch-files.js';
import { BIN, makeSandbox, ROOT, type CliResult, type Sandbox } from '../helpers/cli.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';
import { journalRecords, type JournalRecord } from '../helpers/journal.js';

let mock: MockHandle;
let proxy: CountingProxy;
let sb: Sandbox;
let env: Record<string, string>;
const children: ChildProcess[] = [];
const file = batchFiles(() => sb.dir);
const journal = () => join(sb.stateDir, 'cardctl');
/** Requests that reached the proxy while their op record was missing from a copy of the journal. */
const unjournaled: string[] = [];

/** The op records of a card's recharges, and whether each is committed in the journal's database (read by another process: this one). */
function opsFor(cardId: string): Array<{ op: JournalRecord; inBucket: boolean }> {
  return journalRecords(journal())
    .filter((r) => r.type === 'op' && String(r.path).endsWith(`/cards/${cardId}/recharge`))
    .map((op) => ({ op, inBucket: true }));
}

const balance = (id: string): Promise<number> => cardBalance(mock, id);

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 47, providerLatencyMs: 0, rateLimit: 100_000 })) as unknown as MockHandle;
  // as each recharge arrives, its op record must already be committed in the journal
  proxy = await startCountingProxy(mock.baseUrl, (_n, req) => {
    const card = /\/cards\/(\w+)\/recharge$/.exec(req.path)?.[1];
    if (card && req.method === 'POST' && !opsFor(card).some((o) => o.inBucket)) unjournaled.push(req.path);
    return undefined;
  });
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: proxy.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
    CARDCTL_JOURNAL_RETENTION: 'off',
  };
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  sb?.cleanup();
});

const recharges = () => proxy.seen.filter((s) => s.method === 'POST' && s.path.endsWith('/recharge'));

describe('a --batch whose rows overlap (--concurrency 8)', () => {
  it('charges every card exactly once, each request committed in the journal before it arrived; the rerun sends nothing', async () => {
    const cards = await Promise.all(Array.from({ length: 24 }, () => activeCard(mock, { amount: 1000 })));
    const path = file('overlap.csv', `card,amount\n${cards.map((c, i) => `${c.id},${i + 1}`).join('\n')}\n`);
    const walletBefore = (await wallet(mock, 'test')).balance_minor;
    const sentBefore = recharges().length;
    const r = await sb.run(['cards', 'recharge', '--batch', path, '--concurrency', '8', '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r).map((row) => row.status)).toEqual(Array(24).fill('ok'));
    expect(recharges().length - sentBefore).toBe(24);
    expect(unjournaled).toEqual([]);
    expect(await Promise.all(cards.map((c) => balance(c.id)))).toEqual(cards.map((_c, i) => 1000 + i + 1));
    expect(walletBefore - (await wallet(mock, 'test')).balance_minor).toBe(300); // 1 + 2 + ... + 24, once
    // every op recorded, each with its outcome; nothing unresolved; the journal sound
    for (const c of cards) {
      const ops = opsFor(c.id);
      expect(ops.map((o) => o.inBucket)).toEqual([true]);
      expect(
        journalRecords(journal()).filter((x) => x.type === 'outcome' && x.id === ops[0]!.op.id && x.status === 200),
      ).toHaveLength(1);
    }
    expect(JSON.parse((await sb.run(['ops', 'list', '--unresolved', '--json'], { env })).stdout).data).toEqual([]);
    expect(JSON.parse((await sb.run(['ops', 'verify', '--json'], { env })).stdout)).toMatchObject({
      ok: true,
      unreadable: [],
    });
    // the same file again: every row from the journal, nothing sent
    const again = await sb.run(['cards', 'recharge', '--batch', path, '--concurrency', '8', '--json'], { env });
    expect(again.code, again.stderr).toBe(0);
    expect(jsonLines(again).map((row) => row.from_journal)).toEqual(Array(24).fill(true));
    expect(recharges().length - sentBefore).toBe(24);
  });

  it('killed (SIGKILL) with rows in flight, then run again: each card charged exactly once', async () => {
    const cards = await Promise.all(Array.from({ length: 24 }, () => activeCard(mock, { amount: 1000 })));
    const path = file('killed-c8.csv', `card,amount\n${cards.map((c, i) => `${c.id},${i + 1}`).join('\n')}\n`);
    const walletBefore = (await wallet(mock, 'test')).balance_minor;
    // every recharge takes 1 s at the mock: rows are in flight when the batch is killed
    await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: 'slow', ms: 1000, count: 24 });
    const child = spawn(process.execPath, [BIN, 'cards', 'recharge', '--batch', path, '--concurrency', '8', '--json'], {
      cwd: ROOT,
      env: { ...process.env, ...sb.env, ...env },
    });
    children.push(child);
    child.stdin.end();
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const journaled = () => cards.filter((c) => opsFor(c.id).length > 0).length;
    const deadline = Date.now() + 20_000;
    while (journaled() < 10) {
      if (Date.now() > deadline) throw new Error('the batch did not get to its tenth row');
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    await exited;
    await ctl(mock, 'DELETE', '/faults').catch(() => undefined);
    const outcomes = new Set(
      journalRecords(journal())
        .filter((x) => x.type === 'outcome')
        .map((x) => x.id),
    );
    expect(cards.filter((c) => opsFor(c.id).some((o) => !outcomes.has(o.op.id))).length).toBeGreaterThan(0); // killed with requests out
    expect(unjournaled).toEqual([]);

    // the same command again until nothing is unknown (a row the mock is still answering is 409 in_flight)
    let again: CliResult | undefined;
    for (let i = 0; i < 10; i++) {
      again = await sb.run(['cards', 'recharge', '--batch', path, '--concurrency', '8', '--json'], { env });
      if (again.code !== 7) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(again!.code, again!.stderr).toBe(0);
    expect(jsonLines(again!).map((row) => row.status)).toEqual(Array(24).fill('ok'));
    expect(await Promise.all(cards.map((c) => balance(c.id)))).toEqual(cards.map((_c, i) => 1000 + i + 1));
    expect(walletBefore - (await wallet(mock, 'test')).balance_minor).toBe(300);
    expect(unjournaled).toEqual([]);
  });
});

describe('a batch process interrupted with writes waiting for their commit', () => {
  it('records the answers waiting, and none of the op records waiting (those rows are not sent)', async () => {
    const journal = pathToFileURL(join(ROOT, 'dist/client/journal.js')).href;
    const exiting = pathToFileURL(join(ROOT, 'dist/client/exiting.js')).href;
    const state = join(sb.dir, 'exit-state');
    // 20 rows sent (their op records committed), then, without awaiting them, their 20 answers and
    // 300 more op records handed over (one group commit waits for the next turn of the event loop),
    // then what the interrupt handler does (src/cli/interrupt.ts): stop the journal, exit
    const op = (k: string) =>
      `{ profile: null, source: 'env', mode: 'test', base_url: 'http://127.0.0.1:1/api/v1', key_id: 'K', method: 'POST', path: '/api/v1/cards/C/recharge', query: '', idempotency_key: ${k}, body: Buffer.from('{}') }`;
    const script =
      `const { Journal } = await import(${JSON.stringify(journal)});` +
      `const { stopBeforeExit } = await import(${JSON.stringify(exiting)});` +
      `const j = Journal.open({ CARDCTL_STATE_DIR: ${JSON.stringify(state)} });` +
      `const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => j.recordOpDurably(${op("'sent-' + i")})));` +
      `let refused = 0;` +
      `for (const id of ids) j.recordOutcomeDurably({ id, status: 200, outcome: 'resolved', resource_id: 'C' }).catch(() => process.exit(3));` +
      `for (let i = 0; i < 300; i++) j.recordOpDurably(${op("'waiting-' + i")}).catch(() => refused++);` +
      `await stopBeforeExit(2000);` +
      `await j.recordOpDurably(${op("'after'")}).catch(() => refused++);` +
      `process.exit(refused === 301 ? 0 : 4);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'inherit' });
    children.push(child);
    expect(await new Promise((resolve) => child.once('close', resolve))).toBe(0);
    const records = journalRecords(state);
    const keys = new Set(records.map((r) => r.idempotency_key));
    for (let i = 0; i < 20; i++) expect(keys.has(`sent-${i}`), `sent-${i}`).toBe(true);
    for (let i = 0; i < 300; i++) expect(keys.has(`waiting-${i}`), `waiting-${i}`).toBe(false);
    expect(keys.has('after')).toBe(false);
    expect(records.filter((r) => r.type === 'outcome')).toHaveLength(20); // every answer waiting was kept
  });
});
