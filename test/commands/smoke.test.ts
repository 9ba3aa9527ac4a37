// `cardctl smoke` through the built CLI: against its own embedded mock (--mock), and against a
// mock started here behind a counting proxy, so that what it sent can be checked from outside:
// at most 30 requests, nothing at all with a live key, 429 honoured, the card left frozen.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { apiCall, ctl, wallet, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliOptions, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startCountingProxy, type CountingProxy, type Injected } from '../helpers/counting-proxy.js';
import { all, parseXml } from '../helpers/junit.js';

interface Report {
  ok: boolean;
  created: { customer_id: string | null; card_id: string | null; card_status: string | null };
  requests: number;
  max_requests: number;
  cases: Array<{
    group: string;
    name: string;
    status: string;
    expected: string;
    got: string;
    time_ms: number;
    details?: string;
    kind?: string;
  }>;
}

const CASES = [
  'setup: credentials',
  'setup: reach',
  'setup: clock',
  'setup: key',
  'setup: mode',
  'setup: scopes',
  'signing: wrong signature',
  'signing: nonce sent twice',
  'customers: create',
  'customers: get',
  'customers: list',
  'cards: issue',
  'cards: issue replayed',
  'cards: issue, another body',
  'cards: recharge 1',
  'cards: freeze',
  'cards: unfreeze',
  'cards: transactions',
  'cards: terminate',
  'cards: left frozen',
  'funding: deposit addresses refused',
  'funding: deposits refused',
];

let sb: Sandbox;
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sb)(args, options);
let mock: MockHandle;
const proxies: CountingProxy[] = [];

beforeAll(async () => {
  sb = makeSandbox();
  mock = (await startMock({ port: 0, seed: 1010, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterEach(async () => {
  for (const p of proxies.splice(0)) await p.close();
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

async function proxy(
  inject?: (n: number, req: { method: string; path: string }) => Injected | undefined,
): Promise<CountingProxy> {
  const p = await startCountingProxy(mock.baseUrl, inject);
  proxies.push(p);
  return p;
}

/** The mock's test key (or another) through `baseUrl`, as CI passes it: environment variables. */
const envFor = (baseUrl: string, key = mock.keys.test, mode = 'test'): Record<string, string> => ({
  CARDCTL_API_KEY: key.keyId,
  CARDCTL_API_SECRET: key.secret,
  CARDCTL_BASE_URL: baseUrl,
  CARDCTL_MODE: mode,
});

function parse(stdout: string, stderr: string): Report {
  try {
    return JSON.parse(stdout) as Report;
  } catch {
    throw new Error(`not one JSON value: ${stdout}\n${stderr}`);
  }
}

const names = (r: Report): string[] => r.cases.map((c) => `${c.group}: ${c.name}`);

describe('cardctl smoke', () => {
  it('--mock: every case passes against the embedded mock, exit 0, naming the customer and the card', async () => {
    const run = await runIn(['smoke', '--mock', '--json']);
    const report = parse(run.stdout, run.stderr);
    expect(
      run.code,
      JSON.stringify(
        report.cases.filter((c) => c.status !== 'passed'),
        null,
        2,
      ),
    ).toBe(0);
    expect(names(report)).toEqual(CASES);
    expect(report.cases.every((c) => c.status === 'passed' && Number.isInteger(c.time_ms))).toBe(true);
    expect(report.created.customer_id).toMatch(/^[0-9A-Z]{26}$/);
    expect(report.created).toMatchObject({ card_id: expect.stringMatching(/^[0-9A-Z]{26}$/), card_status: 'frozen' });
    // the embedded mock holds another customer: the list case followed next_cursor
    expect(report.cases.find((c) => c.name === 'list')?.got).toMatch(/then [0-9A-Z]{26} after next_cursor$/);
    expect(report.requests).toBeLessThanOrEqual(30);
    // readable: the same cases, and the ids a CI log needs
    const text = await runIn(['smoke', '--mock']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^✓ 22 cases: 22 passed, 0 failed/m);
    expect(text.stdout).toMatch(
      /^created: customer [0-9A-Z]{26}, card [0-9A-Z]{26} \(frozen\); \d+ of at most 30 requests$/m,
    );
  });

  it('against a sandbox URL: at most 30 requests, the card left frozen and recharged once, what the report says it created exists', async () => {
    const p = await proxy();
    const before = await wallet(mock);
    const run = await runIn(['smoke', '--json'], { env: envFor(p.baseUrl) });
    const report = parse(run.stdout, run.stderr);
    expect(run.code).toBe(0);
    expect(p.seen.length).toBe(report.requests);
    expect(p.seen.length).toBeLessThanOrEqual(30);
    const card = await apiCall(mock, { method: 'GET', path: `/cards/${report.created.card_id}` });
    const min = mock.products.find((x) => x.default)!.min_initial_load_minor;
    expect(card.body.data).toMatchObject({
      status: 'frozen',
      customer_id: report.created.customer_id,
      balance_minor: min + 1,
    });
    // three issue requests (first, replay, other body), one card charged: the load, its fee, and the recharge of 1
    expect(p.seen.filter((s) => s.method === 'POST' && s.path === '/api/v1/cards').length).toBe(3);
    const fee = mock.products.find((x) => x.default)!.issue_fee_minor;
    expect(before.balance_minor - (await wallet(mock)).balance_minor).toBe(min + fee + 1);
  });

  it('refuses a live key before sending anything: exit 2', async () => {
    const p = await proxy();
    const run = await runIn(['smoke'], { env: envFor(p.baseUrl, mock.keys.live, 'live') });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/refusing to run the smoke test with a live key.*Nothing was sent/);
    expect(run.stderr).toMatch(/Use a test \(sandbox\) key/);
    expect(p.seen).toEqual([]);
    // --mock with -p: refused without quoting the -p value (a pasted secret would show)
    const both = await runIn(['smoke', '--mock', '-p', mock.keys.test.secret]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--mock runs with the embedded mock's own test key: leave out -p/);
    expect(both.stderr + both.stdout).not.toContain(mock.keys.test.secret);
  });

  it('a revoked key: the setup key case fails with invalid_api_key, the rest is skipped, exit 3, JUnit and annotations say so', async () => {
    const key = await ctl<{ key_id: string; secret: string }>(mock, 'POST', '/keys', { mode: 'test' });
    await ctl(mock, 'POST', `/keys/${key.key_id}/revoke`);
    const p = await proxy();
    const junit = join(sb.dir, 'out', 'smoke.xml');
    const run = await runIn(['smoke', '--junit', junit], {
      env: { ...envFor(p.baseUrl, { keyId: key.key_id, secret: key.secret }), GITHUB_ACTIONS: 'true' },
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toMatch(
      /^✗ setup: key\s+\d+ ms\n\s+expected: the key is accepted \(signature verified\)\n\s+got:\s+.*invalid_api_key/m,
    );
    expect(run.stdout).toMatch(/^- cards: issue\s+0 ms/m);
    const suite = all(parseXml(readFileSync(junit, 'utf8')), 'testsuite')[0]!;
    expect(suite.attrs).toMatchObject({ name: 'cardctl smoke', failures: '1', errors: '0' });
    const cases = all(suite, 'testcase');
    const failed = cases.filter((c) => all(c, 'failure').length);
    expect(failed.map((c) => `${c.attrs.classname} ${c.attrs.name}`)).toEqual(['cardctl.smoke.setup key']);
    const failure = all(failed[0]!, 'failure')[0]!;
    expect(failure.attrs.message).toMatch(
      /^expected the key is accepted \(signature verified\), got .*invalid_api_key/,
    );
    // the exchange is in the details: the probe as --verbose shows it, and the API's answer
    expect(failure.text).toMatch(/> X-Api-Key: [0-9A-Z]{26}\n/);
    expect(failure.text).toMatch(/< 401 Unauthorized/);
    expect(failure.text).not.toContain(key.secret);
    expect(Number(suite.attrs.skipped)).toBe(cases.filter((c) => all(c, 'skipped').length).length);
    expect(Number(suite.attrs.skipped)).toBeGreaterThan(5);
    const annotations = run.stderr.split('\n').filter((l) => l.startsWith('::error '));
    expect(annotations).toHaveLength(1);
    expect(annotations[0]).toMatch(
      /^::error title=cardctl smoke%3A setup%3A key::setup: key: expected .*invalid_api_key.*%0A> /,
    );
    expect(p.seen.length).toBeLessThanOrEqual(6); // doctor's probes, nothing after the failed setup
  });

  it('without credentials: the credentials case fails, every other case is skipped, exit 2, the JUnit file still written', async () => {
    const junit = join(sb.dir, 'out', 'no-credentials.xml');
    const run = await runIn(['smoke', '--junit', junit, '--json']);
    expect(run.code).toBe(2);
    const report = parse(run.stdout, run.stderr);
    expect(names(report)).toEqual(CASES);
    expect(report.cases[0]).toMatchObject({ name: 'credentials', status: 'failed', kind: 'usage' });
    expect(report.cases.slice(1).every((c) => c.status === 'skipped' && c.got === 'not run: no credentials')).toBe(
      true,
    );
    expect(report.requests).toBe(0);
    const suite = all(parseXml(readFileSync(junit, 'utf8')), 'testsuite')[0]!;
    expect(suite.attrs).toMatchObject({ tests: '22', failures: '1', skipped: '21' });
  });

  it('honours a 429 and its Retry-After: waits, retries the same request, and passes', async () => {
    let first = true;
    const p = await proxy((_, req) => {
      if (req.method === 'POST' && req.path === '/api/v1/customers' && first) {
        first = false;
        return { status: 429, headers: { 'Retry-After': '1' } };
      }
      return undefined;
    });
    const run = await runIn(['smoke', '--json'], { env: envFor(p.baseUrl) });
    const report = parse(run.stdout, run.stderr);
    expect(run.code).toBe(0);
    const creates = p.seen.filter((s) => s.method === 'POST' && s.path === '/api/v1/customers');
    expect(creates.map((s) => s.injected)).toEqual([true, false]);
    expect(creates[1]!.at - creates[0]!.at).toBeGreaterThanOrEqual(900); // not before Retry-After said
    expect(report.requests).toBe(p.seen.length); // the retry counted
  });

  it('stops at 30 requests when 429s double every call: exit 6, the budget named', async () => {
    // after setup and signing (9 requests), every other request is a 429: each call costs two
    const p = await proxy((n) => (n > 9 && n % 2 === 0 ? { status: 429, headers: { 'Retry-After': '0' } } : undefined));
    const run = await runIn(['smoke', '--json'], { env: envFor(p.baseUrl) });
    const report = parse(run.stdout, run.stderr);
    expect(p.seen.length).toBe(30);
    expect(run.code).toBe(6);
    const firstFailed = report.cases.find((c) => c.status === 'failed')!;
    expect(firstFailed.kind).toBe('rate_limited');
    expect(report.cases.some((c) => /budget of 30 requests is used up/.test(c.got))).toBe(true);
  });
});
