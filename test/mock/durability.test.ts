// --state durability, as a user of the mock would check it: SIGKILL at random moments during a
// burst of writes (compactions included), then every acknowledged 2xx is there and money is
// conserved; a change the disk refuses is answered 500 and logged, never 2xx.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import {
  apiCall,
  approvedCustomer,
  expectOk,
  handleFromBanner,
  issueCard,
  newIdemKey,
  wallets,
  walletImbalance,
  type MockHandle,
} from '../helpers/api.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-durability-'));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Started {
  child: ChildProcess;
  mock: MockHandle;
  stderr: () => string;
}

/** Resolves with the mock described by the child's first stdout line. */
function started(child: ChildProcess, toHandle: (banner: any) => MockHandle): Promise<Started> {
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no banner within 20 s; stderr: ${err}`)), 20_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      resolve({ child, mock: toHandle(JSON.parse(out.slice(0, nl))), stderr: () => err });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mock exited with ${code} before its banner; stderr: ${err}`));
    });
  });
}

/** The built library (`cardctl/mock`) in a child process, with options (a small compaction threshold). */
function startLibrary(options: Record<string, unknown>): Promise<Started> {
  const code = `const { startMock } = await import(${JSON.stringify(join(ROOT, 'dist', 'mock', 'index.js'))});
const m = await startMock(JSON.parse(process.argv[1]));
process.stdout.write(JSON.stringify({ baseUrl: m.baseUrl, controlUrl: m.controlUrl, controlToken: m.controlToken, merchantId: m.merchantId, keys: m.keys, products: m.products, networks: m.networks, port: m.port }) + '\\n');`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code, JSON.stringify(options)], { cwd: ROOT });
  return started(child, (b) => ({ ...b, webhookSecret: '', close: async () => void child.kill('SIGTERM') }));
}

/** `cardctl mock start --json --state FILE` through `sh -c` (so a ulimit can apply to it). */
function startCli(stateFile: string, shellPrefix = ''): Promise<Started> {
  const cmd = `${shellPrefix} exec "${process.execPath}" "${BIN}" mock start --port 0 --json --state "${stateFile}"`;
  const child = spawn('sh', ['-c', cmd], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', CARDCTL_CONFIG_DIR: join(dir, 'config') },
  });
  return started(child, (b) => handleFromBanner(b, async () => void child.kill('SIGTERM')));
}

const exited = (c: ChildProcess) =>
  new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r)));

/** Every acknowledged write, and the answer it got. */
interface Acked {
  kind: 'issue' | 'recharge';
  key: string;
  path: string;
  body: Record<string, unknown>;
  answer: unknown;
}

describe('--state survives SIGKILL at random moments', () => {
  it('after each kill the state loads, money is conserved, and every acknowledged 2xx is there', async () => {
    const stateFile = join(dir, 'crash', 'state.json');
    // compaction past 2 KiB: kills also land while a worker folds the journal into a new base
    const options = { port: 0, stateFile, providerLatencyMs: 0, rateLimit: 1_000_000, compactAfterBytes: 2048 };
    let { child, mock } = await startLibrary(options);
    const customer = await approvedCustomer(mock);
    const first = expectOk(await issueCard(mock, { customerId: customer.id, amount: 1000 }), 201);
    const cards = [first.id as string];
    const acked: Acked[] = [];

    for (let round = 0; round < 4; round++) {
      const killAfter = 10 + Math.floor(Math.random() * 50);
      let answered = 0;
      let killed = false;
      await Promise.all(
        Array.from({ length: 12 }, async (_, w) => {
          for (let i = 0; !killed && i < 60; i++) {
            const issue = (w + i) % 3 === 0;
            const key = newIdemKey();
            const path = issue ? '/cards' : `/cards/${cards[(w + i) % cards.length]}/recharge`;
            const body = issue ? { customer_id: customer.id, amount_minor: 100 + i } : { amount: 1 + w * 100 + i };
            try {
              const res = await apiCall(mock, { method: 'POST', path, body, idempotencyKey: key });
              if (res.status >= 200 && res.status < 300) {
                acked.push({ kind: issue ? 'issue' : 'recharge', key, path, body, answer: res.body });
                if (issue) cards.push(res.body.data.id);
              }
            } catch {
              // refused or reset once killed
            }
            if (++answered === killAfter && !killed) {
              killed = true;
              child.kill('SIGKILL');
            }
          }
        }),
      );
      await exited(child);
      ({ child, mock } = await startLibrary(options));
      for (const w of await wallets(mock)) expect(walletImbalance(w), `round ${round}: ${JSON.stringify(w)}`).toBe(0);
    }

    // every acknowledged card exists; every acknowledged answer replays identically and moves no money
    const before = await wallets(mock);
    for (const a of acked.filter((x) => x.kind === 'issue'))
      expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${(a.answer as any).data.id}` }));
    for (const a of acked) {
      const again = await apiCall(mock, { method: 'POST', path: a.path, body: a.body, idempotencyKey: a.key });
      expect(again.body, `${a.kind} ${a.key}`).toEqual(a.answer);
    }
    expect(await wallets(mock)).toEqual(before);
    expect(acked.length).toBeGreaterThan(20);
  }, 120_000);
});

describe('a change that could not be saved', () => {
  it('is answered 500 and logged, never 2xx; after a restart every acknowledged answer is there and a replay tells the outcome of the 500s', async () => {
    const stateFile = join(dir, 'full', 'state.json');
    // no file this process writes may grow past 24 KiB (48 blocks of 512 bytes): the journal fills up
    // (the next batch, the whole state, starts a new journal, so answers go on after each failure)
    const limited = await startCli(stateFile, 'ulimit -f 48;');
    const customer = await approvedCustomer(limited.mock);
    const card = expectOk(await issueCard(limited.mock, { customerId: customer.id, amount: 1000 }), 201);
    const answers: Array<{ key: string; status: number; body: unknown }> = [];
    for (let i = 0; i < 300 && answers.filter((a) => a.status === 500).length < 3; i++) {
      const key = newIdemKey();
      const res = await apiCall(limited.mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount: 10 },
        idempotencyKey: key,
      });
      answers.push({ key, status: res.status, body: res.body });
    }
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 500).length, `statuses: ${statuses.join(',')}`).toBe(3);
    expect(
      statuses.every((s) => s === 200 || s === 500),
      `statuses: ${statuses.join(',')}`,
    ).toBe(true);
    expect(limited.stderr()).toMatch(/could not save the state to .*state\.json.*\(answered 500\)/);
    limited.child.kill('SIGKILL');
    await exited(limited.child);

    const again = await startCli(stateFile);
    const mock = { ...again.mock, keys: limited.mock.keys };
    // every 200 replays identically, moving no money
    const before = await wallets(mock);
    for (const a of answers.filter((x) => x.status === 200)) {
      const replay = await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount: 10 },
        idempotencyKey: a.key,
      });
      expect(replay.body, a.key).toEqual(a.body);
    }
    expect(await wallets(mock)).toEqual(before);
    // a 500 does not say whether the change happened: replaying its key settles it, exactly once
    for (const a of answers.filter((x) => x.status === 500))
      expectOk(
        await apiCall(mock, {
          method: 'POST',
          path: `/cards/${card.id}/recharge`,
          body: { amount: 10 },
          idempotencyKey: a.key,
        }),
      );
    const read = expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` }));
    expect(read.balance_minor).toBe(1000 + 10 * answers.length);
    for (const w of await wallets(mock)) expect(walletImbalance(w)).toBe(0);
    again.child.kill('SIGTERM');
    await exited(again.child);
  }, 90_000);
});
