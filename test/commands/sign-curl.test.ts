// The curl command `cardctl sign` prints must run as printed (issue 11, item 3): on a money route
// it carries an Idempotency-Key (given, or generated and shown), and a raw query with characters
// a URL cannot carry as they are still gives a command that runs. Each command is run with
// `sh -c` against the real mock.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, approvedCustomer, wallet, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 31, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

/** The printed curl command (the lines after `curl:`), run by a POSIX shell exactly as printed. */
function runPrinted(stdout: string): Promise<{ code: number; body: any; raw: string }> {
  const command = stdout.slice(stdout.indexOf('\ncurl:\n') + '\ncurl:\n'.length).trimEnd();
  expect(command.startsWith('curl ')).toBe(true);
  return new Promise((resolve) => {
    execFile('sh', ['-c', `${command} -s -w '\\n%{http_code}'`], { timeout: 15_000 }, (err, out) => {
      const lines = out.trimEnd().split('\n');
      const status = Number(lines.pop());
      let body: any;
      try {
        body = JSON.parse(lines.join('\n'));
      } catch {
        body = undefined;
      }
      resolve({ code: err ? 1 : status, body, raw: out });
    });
  });
}

describe('sign: a curl command that runs as printed', () => {
  it('an issue with --idempotency-key K: the header is in the curl command and the mock answers 2xx', async () => {
    const customer = await approvedCustomer(mock);
    const data = JSON.stringify({ customer_id: customer.id, amount_minor: 700 });
    const r = await sb.run(
      ['sign', '--method', 'POST', '--path', '/cards', '--data', data, '--idempotency-key', 'curl-issue-1'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("-H 'Idempotency-Key: curl-issue-1'");
    const before = await wallet(mock);
    const res = await runPrinted(r.stdout);
    expect(res.code, res.raw).toBeGreaterThanOrEqual(200);
    expect(res.code, res.raw).toBeLessThan(300);
    expect(res.body.data).toMatchObject({ customer_id: customer.id, balance_minor: 700 });
    expect((await wallet(mock)).balance_minor).toBeLessThan(before.balance_minor);
  });

  it('a recharge without a key: one is generated, shown on stderr, and in the headers (--json) and the curl command', async () => {
    const card = await activeCard(mock);
    const r = await sb.run(
      ['sign', '--method', 'POST', '--path', `/cards/${card.id}/recharge`, '--data', '{"amount":250}', '--json'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const key = out.headers['Idempotency-Key'] as string;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stderr).toContain(`generated ${key}`);
    expect(out.curl).toContain(`-H 'Idempotency-Key: ${key}'`);
    const res = await runPrinted(`\ncurl:\n${out.curl}`);
    expect(res.code, res.raw).toBe(200);
    expect(res.body.data.balance_minor).toBe(card.balance_minor + 250);
  });

  it('a route that moves no money gets no key', async () => {
    const r = await sb.run(['sign', '--method', 'GET', '--path', '/customers', '--json'], { env });
    expect(JSON.parse(r.stdout).headers['Idempotency-Key']).toBeUndefined();
  });

  it('a raw query with a space, brackets and non-ASCII text still gives a curl command that runs', async () => {
    const r = await sb.run(
      ['sign', '--method', 'GET', '--path', '/customers', '--query', 'per_page=2&note=a b&tag[]=x&name=é'],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const res = await runPrinted(r.stdout);
    expect(res.code, res.raw).toBe(200);
    expect(res.body.success).toBe(true);
  });
});
