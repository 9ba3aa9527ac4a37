// stdout closed by its reader (`cardctl ... | head -1`): cardctl stops quietly with exit 0, never
// a stack trace; a money batch still runs every row to its outcome (the journal and the mock agree).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, apiCall, createCustomer, type MockHandle } from '../helpers/api.js';
import { BIN, makeSandbox, ROOT, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 77, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    ...sb.env,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  for (let i = 0; i < 4; i++) await createCustomer(mock, { overrides: { email: `pipe${i}@example.com` } });
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

/** Runs the CLI with stdout a pipe whose reader goes away after the first chunk, as `| head -1` does. */
function runThenCloseStdout(
  args: string[],
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; first: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let first = '';
    const err: Buffer[] = [];
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.once('data', (d: Buffer) => {
      first = d.toString('utf8');
      child.stdout.destroy();
    });
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stderr: Buffer.concat(err).toString('utf8'), first });
    });
  });
}

describe('stdout closed by its reader', () => {
  it.each([
    ['--ndjson', ['customers', 'list', '--all', '--per-page', '1', '--ndjson']],
    ['--output csv', ['customers', 'list', '--all', '--per-page', '1', '--output', 'csv']],
    ['--ndjson --jq', ['customers', 'list', '--all', '--per-page', '1', '--ndjson', '--jq', '.id']],
  ])('a list with %s ends with exit 0 and no stack trace', async (_name, args) => {
    const r = await runThenCloseStdout(args);
    expect(r.first).not.toBe('');
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(r.code).toBe(0);
  });

  it('a batch still sends every row and records each outcome', async () => {
    const card = await activeCard(mock, { amount: 5000 });
    const file = join(sb.dir, 'topups.csv');
    writeFileSync(file, `card,amount\n${card.id},100\n${card.id},200\n${card.id},300\n${card.id},400\n`);
    const r = await runThenCloseStdout(['cards', 'recharge', '--batch', file, '--concurrency', '1']);
    expect(r.stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /);
    expect(r.code).toBe(0);
    const after = await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` });
    expect(after.body.data?.balance_minor ?? after.body.balance_minor).toBe(card.balance_minor + 1000);
    const ops = await new Promise<string>((resolve) => {
      const c = spawn(process.execPath, [BIN, 'ops', 'list', '--unresolved', '--json'], {
        cwd: ROOT,
        env: { ...process.env, ...env },
      });
      let out = '';
      c.stdout.on('data', (d: Buffer) => (out += d.toString()));
      c.on('close', () => resolve(out));
    });
    expect(JSON.parse(ops).data).toEqual([]);
  });
});

describe('stderr closed by its reader (2>&1 | head -1)', () => {
  it('the command still ends with its own exit code: a refused batch is exit 2, not a crash', async () => {
    const file = join(sb.dir, 'refused.csv');
    writeFileSync(file, 'card,amount\nnot-a-card,1\nnor-this,2\n');
    for (let i = 0; i < 3; i++) {
      const code = await new Promise<number | null>((resolve, reject) => {
        const child = spawn(process.execPath, [BIN, 'cards', 'recharge', '--batch', file], {
          cwd: ROOT,
          env: { ...process.env, ...env, NO_COLOR: '1' },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.stderr.once('data', () => child.stderr.destroy());
        child.on('error', reject);
        child.on('close', (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      expect(code).toBe(2);
    }
  });
});
