// Two cardctl processes, one idempotency key (docs/money.md, "Two cardctl processes, one key"): the
// built CLI against the embedded mock, whose provider takes 1.5 s per issue or recharge, so a
// second process really meets the first one in flight.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { lockPath } from '../../src/client/key-lock.js';
import { activeCard, approvedCustomer, fault, wallet, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const run = (args: string[], extra: Record<string, string> = {}) => sb.run(args, { env: { ...env, ...extra } });
const journalFile = () => join(sb.stateDir, 'cardctl', 'operations.ndjson');
const json = (r: CliResult) => JSON.parse(r.stdout);
const until = async (what: () => boolean, label: string) => {
  for (let i = 0; i < 300 && !what(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!what()) throw new Error(`timed out waiting for ${label}`);
};

/**
 * A proxy in front of the mock that forwards everything, counting requests by Idempotency-Key,
 * and holds back the answer of a request until `hold` (when set) resolves: the network delaying
 * one answer more than another.
 */
async function startProxy(target: string) {
  const t = new URL(target);
  const byKey = new Map<string, number>();
  const state: { hold?: (n: number) => Promise<void> | undefined; n: number } = { n: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = ++state.n;
      const key = String(req.headers['idempotency-key'] ?? '');
      if (key) byKey.set(key, (byKey.get(key) ?? 0) + 1);
      const up = http.request(
        {
          host: t.hostname,
          port: t.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: t.host },
        },
        (upRes) => {
          const body: Buffer[] = [];
          upRes.on('data', (c: Buffer) => body.push(c));
          upRes.on('end', async () => {
            await state.hold?.(n);
            res.writeHead(upRes.statusCode ?? 502, upRes.headers).end(Buffer.concat(body));
          });
        },
      );
      up.on('error', () => res.writeHead(502).end());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}${t.pathname}`,
    sent: (key: string) => byKey.get(key) ?? 0,
    state,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
type Proxy = Awaited<ReturnType<typeof startProxy>>;
let proxy: Proxy;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 31, providerLatencyMs: 1_500 })) as unknown as MockHandle;
  proxy = await startProxy(mock.baseUrl);
  sb = makeSandbox();
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: proxy.baseUrl,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  sb?.cleanup();
});

interface Entry {
  id: string;
  idempotency_key: string;
  outcome: string;
  status: number | null;
}
const entriesOf = async (key: string): Promise<Entry[]> =>
  (json(await run(['ops', 'list', '--all', '--json'])).data as Entry[]).filter((e) => e.idempotency_key === key);

describe('two processes, one idempotency key', () => {
  it('`ops replay` twice in parallel: the second refuses at once (exit 9, names the first pid), sends nothing; the journal keeps the success', async () => {
    const card = await activeCard(mock, { amount: 500 });
    await fault(mock, 'recharge', '500'); // the first send: nothing done, outcome unknown
    expect(
      (await run(['cards', 'recharge', card.id, '--amount', '300', '--idempotency-key', 'twice-1', '--retries', '0']))
        .code,
    ).toBe(7);
    const [entry] = await entriesOf('twice-1');
    const before = (await wallet(mock)).balance_minor;
    const sentBefore = proxy.sent('twice-1');

    // shell A replays it; once its request is at the API, shell B replays it too (--retries 0),
    // and the network brings B's answer after A's
    let aExited!: () => void;
    const aDone = new Promise<void>((r) => (aExited = r));
    const firstN = proxy.state.n + 1;
    proxy.state.hold = (n) => (n > firstN ? aDone : undefined);
    const a = run(['ops', 'replay', entry!.id, '--json']).then((r) => (aExited(), r));
    await until(() => proxy.sent('twice-1') > sentBefore, "A's request at the API");
    const b = await run(['ops', 'replay', entry!.id, '--json', '--retries', '0']);
    const aResult = await a;
    proxy.state.hold = undefined;

    expect(aResult.code, aResult.stderr).toBe(0);
    expect(json(aResult).data.balance_minor).toBe(800);
    expect((await wallet(mock)).balance_minor).toBe(before - 300); // charged once
    // the journal says what A learned: resolved, not listed as unresolved (without the lock, B's
    // in_flight answer came after A's success and was recorded on the same entry: unknown again)
    expect((await entriesOf('twice-1')).map((e) => [e.outcome, e.status])).toEqual([['resolved', 200]]);
    expect(
      json(await run(['ops', 'list', '--unresolved', '--all', '--json'])).data.filter(
        (e: Entry) => e.idempotency_key === 'twice-1',
      ),
    ).toEqual([]);
    expect(b.code, b.stdout + b.stderr).toBe(9);
    expect(json(b).error).toMatchObject({ code: 'key_in_use', idempotency_key: 'twice-1' });
    expect(json(b).error.message).toMatch(
      /another cardctl process \(pid \d+, since .*\) is sending Idempotency-Key twice-1 right now: this one sent nothing/,
    );
    expect(proxy.sent('twice-1') - sentBefore, 'only A sent it').toBe(1);
    expect(readdirSync(join(sb.stateDir, 'cardctl', 'locks'))).toEqual([]); // released
  });

  it('another key is not blocked: a second recharge with its own key goes through while the first is in flight', async () => {
    const card = await activeCard(mock, { amount: 500 });
    const first = run(['cards', 'recharge', card.id, '--amount', '100', '--idempotency-key', 'free-1', '--json']);
    await until(() => proxy.sent('free-1') > 0, 'the first request at the API');
    const other = await run(['cards', 'recharge', card.id, '--amount', '50', '--idempotency-key', 'free-2', '--json']);
    const one = await first;
    expect(one.code, one.stderr).toBe(0);
    expect(other.code, other.stderr).toBe(0);
    expect([json(one).balance_minor, json(other).balance_minor].sort()).toEqual([600, 650]);
  });

  it('the same --batch file in two shells: the row the first is sending is refused by the second (exit 9, row error key_in_use), charged once', async () => {
    const customer = await approvedCustomer(mock);
    const path = join(sb.dir, 'two-shells.csv');
    writeFileSync(path, ['customer_id,amount_minor', `${customer.id},111`].join('\n') + '\n');
    const before = (await wallet(mock)).balance_minor;
    // A's answer is held back until B has finished: B meets A's row in flight, whatever the load
    let bExited!: () => void;
    const bDone = new Promise<void>((r) => (bExited = r));
    const firstN = proxy.state.n + 1;
    proxy.state.hold = (n) => (n === firstN ? bDone : undefined);
    const a = run(['cards', 'issue', '--batch', path, '--json']);
    await until(() => proxy.state.n >= firstN, "A's row at the API");
    const b = await run(['cards', 'issue', '--batch', path, '--json']);
    bExited();
    const aResult = await a;
    proxy.state.hold = undefined;
    expect(aResult.code, aResult.stderr).toBe(0);
    expect(b.code, b.stdout + b.stderr).toBe(9);
    const rows = b.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(rows.map((r) => [r.row, r.status, r.error?.code])).toEqual([[1, 'error', 'key_in_use']]);
    // the summary says what key_in_use means and what to do, not that the journal failed (issue 29)
    expect(b.stderr).toContain(
      'Refused here, never sent: 1 row whose idempotency key another cardctl process holds right now (key_in_use',
    );
    expect(b.stderr).toContain('Let it finish, then run the same command again');
    expect(b.stderr).not.toContain('a journal that could not be written or read');
    expect(proxy.state.n - firstN, 'B sent nothing').toBe(0);
    const fee = mock.products.find((p) => p.default)!.issue_fee_minor;
    expect((await wallet(mock)).balance_minor).toBe(before - 111 - fee);
    // once A is done, the same file again comes from the journal (nothing charged)
    const again = await run(['cards', 'issue', '--batch', path, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect((await wallet(mock)).balance_minor).toBe(before - 111 - fee);
  });

  it('a lock left by a process that is gone (a crash, a SIGKILL) is stale: removed and taken', async () => {
    const customer = await approvedCustomer(mock);
    const dead = spawn(process.execPath, ['-e', '0']);
    const pid = dead.pid!;
    await new Promise((r) => dead.on('exit', r));
    const file = lockPath(journalFile(), { keyId: mock.keys.test.keyId, idempotencyKey: 'stale-1' });
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify({ pid, started: '2026-01-01T00:00:00.000Z', idempotency_key: 'stale-1' }));
    const r = await run([
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '100',
      '--idempotency-key',
      'stale-1',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});
