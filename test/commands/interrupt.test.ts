// Interrupted money work: real SIGINT/SIGTERM sent to the built CLI while its request is in
// flight against the mock (a `slow` fault holds the answer, `async_202` keeps --wait polling).
// It must say what finished, what is unresolved and the exact command that resumes it, flush
// the batch rows held back for row order, exit 130, and the printed command must finish the
// work without charging twice.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, approvedCustomer, ctl, wallet, type MockHandle } from '../helpers/api.js';
import { BIN, makeSandbox, ROOT, type Sandbox } from '../helpers/cli.js';
import { journalText as journalRecordsText } from '../helpers/journal.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const children: ChildProcess[] = [];

interface Running {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
}

function start(args: string[]): Running {
  const base: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('CARDCTL_')) base[k] = v;
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...base, NO_COLOR: '1', ...sb.env, ...env },
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
  child.stdin!.end();
  const exit = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

async function until(what: string, test: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const journalText = (): string => {
  try {
    return journalRecordsText(join(sb.stateDir, 'cardctl'));
  } catch {
    return '';
  }
};
const count = (text: string, re: RegExp): number => text.split('\n').filter((l) => re.test(l)).length;
/** The resume command printed on stderr, as words (it is printed shell-quoted; these are plain words). */
const resumeArgs = (stderr: string): string[] => {
  const line = /\n {2}cardctl (.+)\n/.exec(stderr)?.[1];
  if (!line) throw new Error(`no resume command in: ${stderr}`);
  return line.split(' ');
};

async function books(): Promise<{ balance: number; cards: number }> {
  const state = (await ctl(mock, 'GET', '/state')) as { cards: number };
  return { balance: (await wallet(mock, 'test')).balance_minor, cards: state.cards };
}

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 130, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
  };
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('interrupted money work says how to resume it, exit 130', () => {
  it('SIGINT during cards issue --wait: the key and --wait to resume; the resume gets the same card, charged once', async () => {
    const customer = await approvedCustomer(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: 'async_202', count: 1 });
    const before = await books();
    const run = start(['cards', 'issue', '--customer', customer.id, '--amount', '900', '--wait', '--json']);
    await until('a pending replay naming the card', () => /pending \(card [0-9A-Z]{26}\)/.test(run.err()));
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(130);
    const key = /Idempotency-Key: (\S+) \(generated/.exec(run.err())![1]!;
    const pendingId = /pending \(card ([0-9A-Z]{26})\)/.exec(run.err())![1]!;
    expect(run.err()).toContain('Interrupted (SIGINT) while cards issue was under way.');
    expect(run.err()).toContain(`Unresolved: Idempotency-Key ${key}`);
    expect(run.err()).toContain('accepted (202), the card still pending');
    expect(resumeArgs(run.err())).toEqual([
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '900',
      '--wait',
      '--json',
      '--idempotency-key',
      key,
    ]);
    expect(count(journalText(), new RegExp(`"idempotency_key":"${key}"`))).toBe(1); // recorded once, before it was first sent

    // the issuer finishes it; the printed command waits for it with the same key
    await ctl(mock, 'POST', `/cards/${pendingId}/provision`, { outcome: 'active' });
    const resumed = await sb.run(resumeArgs(run.err()), { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: pendingId, status: 'active' });
    const after = await books();
    expect(after.cards).toBe(before.cards + 1);
    expect(before.balance - after.balance).toBe(900 + mock.products.find((p) => p.default)!.issue_fee_minor);
  });

  it('SIGTERM during a single recharge whose answer is slow: unresolved with its key; the resume replays it, charged once', async () => {
    const card = await activeCard(mock, { amount: 100 });
    await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: 'slow', ms: 4000, count: 1 });
    const before = await books();
    const run = start(['cards', 'recharge', card.id, '--amount', '250']);
    await until('the recharge to be journaled', () => journalText().includes(`/cards/${card.id}/recharge`));
    await new Promise((r) => setTimeout(r, 300)); // the request is on its way; the answer waits 4 s
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(130);
    const key = /Idempotency-Key: (\S+) \(generated/.exec(run.err())![1]!;
    expect(run.err()).toContain('Interrupted (SIGTERM) while cards recharge was under way.');
    expect(run.err()).toContain(`Unresolved: Idempotency-Key ${key}`);
    expect(run.err()).toContain('its outcome is unknown');
    expect(resumeArgs(run.err())).toEqual(['cards', 'recharge', card.id, '--amount', '250', '--idempotency-key', key]);
    const entry = JSON.parse((await sb.run(['ops', 'show', key, '--json'], { env })).stdout) as { outcome: string };
    expect(entry.outcome).toBe('unknown'); // the journal stays consistent: sent, no answer

    const resumed = await sb.run([...resumeArgs(run.err()), '--json'], { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).balance_minor).toBe(350);
    expect(before.balance - (await books()).balance).toBe(250);
  });
});

describe('an interrupted --batch', () => {
  it('SIGINT with a row in flight: the rows after it, held back for row order, are printed after it (unknown); the same file resumes it, nothing charged twice', async () => {
    const customer = await approvedCustomer(mock);
    const path = join(sb.dir, 'interrupted.csv');
    writeFileSync(
      path,
      ['customer_id,amount_minor', ...[101, 102, 103, 104, 105].map((a) => `${customer.id},${a}`)].join('\n') + '\n',
    );
    // the first issue to arrive answers at once, the second only after 8 s (done, answer held back).
    // Rows overlap (their journal syncs run side by side), so which row arrives second is row 1, 2
    // or 3: the test finds it in the output
    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: 'slow', ms: 1, count: 1 });
    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: 'slow', ms: 8000, count: 1 });
    const before = await books();
    const answered = count(journalText(), /"type":"outcome"/);
    const run = start(['cards', 'issue', '--batch', path, '--concurrency', '2', '--json']);
    await until('four rows answered', () => count(journalText(), /"type":"outcome"/) >= answered + 4);
    await new Promise((r) => setTimeout(r, 200));
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(130);
    const lines = run
      .out()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const slow = lines.findIndex((r) => r.status === 'unknown') + 1;
    expect(slow, run.out()).toBeGreaterThanOrEqual(1);
    expect(slow).toBeLessThanOrEqual(3);
    // every row printed, in row order, the ones after the slow row included (held back, then printed at the interruption)
    expect(lines.map((r) => [r.row, r.status])).toEqual(
      [1, 2, 3, 4, 5].map((row) => [row, row === slow ? 'unknown' : 'ok']),
    );
    expect(lines[slow - 1].error.code).toBe('interrupted');
    expect(run.err()).toContain('Interrupted (SIGINT): 4 of 5 rows finished (4 ok, 0 refused, 0 unknown).');
    expect(run.err()).toContain(`Unresolved: row ${slow} in flight`);
    expect(resumeArgs(run.err())).toEqual(['cards', 'issue', '--batch', path, '--concurrency', '2', '--json']);

    const resumed = await sb.run(resumeArgs(run.err()), { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    const again = resumed.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(again.map((r) => r.id)).toEqual(lines.map((r, i) => (i === slow - 1 ? again[i].id : r.id)));
    expect(again.map((r) => r.from_journal)).toEqual([1, 2, 3, 4, 5].map((row) => row !== slow)); // the slow row replayed its key
    expect((await books()).cards).toBe(before.cards + 5);
  });
});
