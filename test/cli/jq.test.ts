// `--jq EXPR` (issue 21 item 1) through the built CLI against the mock: gh's output (strings raw,
// other values compact JSON, one per line), a list as one array (every page with --all), each
// row with --ndjson, a bad expression refused before anything is sent, errors on stderr only.
// In this process (test/helpers/in-process.ts), the bad expressions as child processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, createCustomer, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';

let mock: MockHandle;
let proxy: CountingProxy;
let sb: Sandbox;
let env: Record<string, string>;
let card: { id: string; balance_minor: number; status: string };
const emails: string[] = [];

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 31, providerLatencyMs: 0 })) as unknown as MockHandle;
  proxy = await startCountingProxy(mock.baseUrl);
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: proxy.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  card = await activeCard(mock);
  for (let i = 0; i < 4; i++)
    emails.push((await createCustomer(mock, { overrides: { email: `jq${i}@example.com` } })).email);
});
afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  sb?.cleanup();
});

/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const run = (args: string[], extra: Record<string, string> = {}) =>
  inProcessRunner(sb)(args, { env: { ...env, ...extra } });
/** ... and as a child process: a bad expression is refused by a whole process, before it sends anything. */
const spawned = (args: string[]) => sb.run(args, { env });

describe('--jq', () => {
  it('prints a string raw, a number and an object as JSON, one value per line (fast path and oclif alike)', async () => {
    for (const noFastPath of ['', '1']) {
      const id = await run(['cards', 'get', card.id, '--jq', '.id'], { CARDCTL_NO_FAST_PATH: noFastPath });
      expect(id.code, id.stderr).toBe(0);
      expect(id.stdout).toBe(`${card.id}\n`);
    }
    expect((await run(['cards', 'get', card.id, '--jq', '.balance_minor'])).stdout).toBe(`${card.balance_minor}\n`);
    const obj = await run(['cards', 'get', card.id, '--jq', '{id, status}']);
    expect(obj.stdout).toBe(`${JSON.stringify({ id: card.id, status: card.status })}\n`);
    const many = await run(['cards', 'get', card.id, '--jq', '.id, .status, null']);
    expect(many.stdout).toBe(`${card.id}\n${card.status}\nnull\n`);
  });

  it('runs over the {data, meta} document --json prints (with --all every row), and per row with --ndjson', async () => {
    const all = await run(['customers', 'list', '--all', '--per-page', '1', '--jq', '.data | length']);
    expect(all.code, all.stderr).toBe(0);
    const total = Number(all.stdout);
    expect(total).toBeGreaterThanOrEqual(5); // 4 here and the card's holder
    const onePage = await run([
      'customers',
      'list',
      '--per-page',
      '2',
      '--jq',
      '(.data | length), .meta.has_more, (.meta.next_cursor | type)',
    ]);
    expect(onePage.stdout).toBe('2\ntrue\nstring\n'); // the next page is offered in the document, as --json has it
    const perRow = await run(['customers', 'list', '--all', '--per-page', '2', '--ndjson', '--jq', '.email']);
    expect(perRow.code, perRow.stderr).toBe(0);
    const lines = perRow.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(total);
    expect(lines).toEqual(expect.arrayContaining(emails));
    const selected = await run([
      'customers',
      'list',
      '--all',
      '--jq',
      '.data[] | select(.email == "jq2@example.com") | .email',
    ]);
    expect(selected.stdout).toBe('jq2@example.com\n');
  });

  it('works on any command that prints JSON: a local one, and one that lists profiles', async () => {
    const sign = await run([
      'sign',
      '--method',
      'GET',
      '--path',
      '/api/v1/cards',
      '--key-id',
      mock.keys.test.keyId,
      '--timestamp',
      '1763800000',
      '--nonce',
      'n-1',
      '--jq',
      'keys | length > 0',
    ]);
    expect(sign.code, sign.stderr).toBe(0);
    expect(sign.stdout).toBe('true\n');
    expect((await run(['profiles', 'list', '--jq', '.data | length'])).stdout).toBe('0\n');
  });

  it("a bad expression is exit 2 with jq's own message, before anything is sent", async () => {
    const before = proxy.seen.length;
    for (const [expr, says] of [
      ['.id | frob', 'frob/0 is not defined'],
      ['.data[', 'syntax error'],
      ['', 'needs an expression'],
    ] as const) {
      const r = await spawned(['cards', 'get', card.id, '--jq', expr]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(says);
      expect(r.stdout).toBe('');
    }
    expect(proxy.seen.length).toBe(before);
  });

  it("a filter that fails on the answer is exit 2 with jq's message; an API error stays on stderr with its own exit code", async () => {
    const fails = await run(['cards', 'get', card.id, '--jq', '.id | .x']);
    expect(fails.code).toBe(2);
    expect(fails.stderr).toContain('Cannot index string with string "x"');
    expect(fails.stdout).toBe('');
    const missing = await run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--jq', '.id']);
    expect(missing.code).toBe(4);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^Error: /);
  });

  it('jq sees a sandbox environment: the secret is not in `env` or `$ENV`', async () => {
    const r = await run(['cards', 'get', card.id, '--jq', '[env, $ENV] | tostring']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toContain(mock.keys.test.secret);
    expect(r.stdout).not.toContain('CARDCTL');
  });
});
