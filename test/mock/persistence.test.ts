// --state FILE survives a SIGKILL in the middle of a burst of money writes: the mock restarts
// from the file, keeps its merchant and keys, and money still balances (wallets invariant).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
  type MockBanner,
  type MockHandle,
} from '../helpers/api.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-mock-state-'));
const stateFile = join(dir, 'state.json');
const children: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

type Banner = MockBanner;

/** Starts `cardctl mock start --json` and resolves with its first stdout line (the banner). */
function startChild(): Promise<{ child: ChildProcessWithoutNullStreams; mock: MockHandle; banner: Banner }> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, NO_COLOR: '1', CARDCTL_CONFIG_DIR: join(dir, 'config') };
    const child = spawn(process.execPath, [BIN, 'mock', 'start', '--port', '0', '--json', '--state', stateFile], {
      cwd: ROOT,
      env,
    });
    children.push(child);
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no banner within 20 s; stderr: ${err}`)), 20_000);
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        const banner = JSON.parse(out.slice(0, nl)) as Banner;
        const mock = handleFromBanner(banner, async () => void child.kill('SIGTERM'));
        resolve({ child, mock, banner });
      } catch (e) {
        reject(new Error(`banner is not JSON: ${out.slice(0, 300)} (${(e as Error).message})`));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mock exited with ${code} before its banner; stderr: ${err}`));
    });
  });
}

describe('persistence across SIGKILL', () => {
  it('reloads the state after a kill mid-burst; every wallet row balances', async () => {
    const first = await startChild();
    const m1 = first.mock;
    const customer = await approvedCustomer(m1);
    const card = expectOk(await issueCard(m1, { customerId: customer.id, amount: 1000 }), 201);

    // A burst of issues and recharges, 16 in flight; kill the process once 40 answers are in.
    let answered = 0;
    let killed = false;
    const okCards: string[] = [];
    const burst = Array.from({ length: 16 }, async (_, w) => {
      for (let i = 0; !killed && i < 40; i++) {
        try {
          const res =
            (w + i) % 2 === 0
              ? await issueCard(m1, { customerId: customer.id, amount: 100 + i })
              : await apiCall(m1, {
                  method: 'POST',
                  path: `/cards/${card.id}/recharge`,
                  body: { amount: 1 + i },
                  idempotencyKey: newIdemKey(),
                });
          if (res.status === 201) okCards.push(res.body.data.id);
        } catch {
          // connection refused or reset once killed
        }
        if (++answered === 40 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    });
    await Promise.all(burst);
    expect(killed).toBe(true);
    expect(okCards.length, 'writes went through before the kill').toBeGreaterThan(0);
    await new Promise((r) =>
      first.child.exitCode !== null || first.child.signalCode !== null ? r(null) : first.child.once('exit', r),
    );
    expect(existsSync(stateFile)).toBe(true);
    // no temporary files left half-written next to the state would be read as state
    expect(readdirSync(dir).filter((f) => f.startsWith('state.json'))).toContain('state.json');

    const second = await startChild();
    const m2 = second.mock;
    try {
      // Same merchant and keys: the seeded start was not redone.
      expect(second.banner.merchant_id).toBe(first.banner.merchant_id);
      const sameKey = { ...m2, keys: m1.keys };
      expectOk(await apiCall(sameKey, { method: 'GET', path: `/customers/${customer.id}` }));
      expectOk(await apiCall(sameKey, { method: 'GET', path: `/cards/${card.id}` }));
      const rows = await wallets(m2);
      expect(rows.length).toBeGreaterThanOrEqual(2);
      for (const r of rows) expect(walletImbalance(r), JSON.stringify(r)).toBe(0);
      // The state still works for writes.
      expectOk(await issueCard(sameKey, { customerId: customer.id, amount: 5 }), 201);
      for (const r of await wallets(m2)) expect(walletImbalance(r), JSON.stringify(r)).toBe(0);
    } finally {
      second.child.kill('SIGTERM');
    }
  });
});
