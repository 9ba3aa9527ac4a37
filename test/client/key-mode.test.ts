// Issue 28, item 3: the mode is what the API says of the key, not what a profile or the
// environment claims (PRODUCT.md, "Live safety"; src/client/key-mode.ts). The built CLI against
// the real mock on port 0; what moved is read from the mock's wallets (control plane) and what
// was sent from its request log, as a user would.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  approvedCustomer,
  ctl,
  fundLive,
  newKey,
  wallet,
  type KeyPair,
  type MockHandle,
} from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { startSignedServer } from '../helpers/signed-server.js';

let mock: MockHandle;
const sandboxes: Sandbox[] = [];
/** A fresh machine: its own config and state folders (nothing known of any key). */
function machine(): Sandbox {
  const sb = makeSandbox();
  sandboxes.push(sb);
  return sb;
}

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 28, providerLatencyMs: 0 })) as unknown as MockHandle;
  await fundLive(mock, '100000');
});
afterEach(() => {
  for (const sb of sandboxes.splice(0)) sb.cleanup();
});
afterAll(async () => {
  await mock?.close();
});

const envOf = (key: KeyPair, mode?: 'test' | 'live'): Record<string, string> => ({
  CARDCTL_API_KEY: key.keyId,
  CARDCTL_API_SECRET: key.secret,
  CARDCTL_BASE_URL: mock.baseUrl,
  ...(mode ? { CARDCTL_MODE: mode } : {}),
});

async function addProfile(sb: Sandbox, name: string, key: KeyPair, mode: 'test' | 'live'): Promise<void> {
  const r = await sb.run(
    ['profiles', 'add', name, '--key-id', key.keyId, '--mode', mode, '--base-url', mock.baseUrl, '--secret-stdin'],
    { input: `${key.secret}\n` },
  );
  expect(r.code, r.stderr).toBe(0);
}

/** The API requests the mock logged for a key: the mode questions (GET /deposit-addresses) and the card issues. */
async function sentWith(key: KeyPair): Promise<{ probes: number; issues: number }> {
  const log = (await ctl(mock, 'GET', `/requests?plane=api&key=${key.keyId}&limit=1000`)) as Array<{
    method: string;
    path: string;
  }>;
  return {
    probes: log.filter((r) => r.method === 'GET' && r.path.endsWith('/deposit-addresses')).length,
    issues: log.filter((r) => r.method === 'POST' && r.path.endsWith('/cards')).length,
  };
}

const fee = (): number => mock.products.find((p) => p.default)!.issue_fee_minor;
const issue = (customer: string, amount = 1200): string[] => [
  'cards',
  'issue',
  '--customer',
  customer,
  '--amount',
  String(amount),
  '--no-input',
];
const liveBalance = async (): Promise<number> => (await wallet(mock, 'live')).balance_minor;

function expectRefusedBeforeSending(r: CliResult, said: RegExp[]): void {
  expect(r.code, r.stderr).toBe(2);
  for (const s of said) expect(r.stderr).toMatch(s);
  expect(r.stdout).toBe('');
}

describe('a live key whatever the environment says', () => {
  it('CARDCTL_MODE unset and --no-input: refused, nothing moved; with --yes it goes', async () => {
    const sb = machine();
    const customer = (await approvedCustomer(mock)).id;
    const before = await liveBalance();
    const refused = await sb.run(issue(customer), { env: envOf(mock.keys.live) });
    expectRefusedBeforeSending(refused, [
      /refusing to send a LIVE money operation/,
      /is a live key, as the API says; CARDCTL_MODE is not set/,
      /Pass --yes/,
    ]);
    expect(await liveBalance()).toBe(before);

    const confirmed = await sb.run([...issue(customer), '--yes', '--json'], { env: envOf(mock.keys.live) });
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(JSON.parse(confirmed.stdout)).toMatchObject({ mode: 'live', customer_id: customer });
    expect(before - (await liveBalance())).toBe(1200 + fee());
  });

  it('CARDCTL_MODE=test with a live key: refused before anything is sent, naming CARDCTL_MODE, both modes and the fix', async () => {
    const sb = machine();
    const customer = (await approvedCustomer(mock)).id;
    const before = await liveBalance();
    const issuesBefore = (await sentWith(mock.keys.live)).issues;
    const r = await sb.run([...issue(customer), '--yes'], { env: envOf(mock.keys.live, 'test') });
    expectRefusedBeforeSending(r, [/CARDCTL_MODE says test, but key \w+ is a live key/, /Set CARDCTL_MODE=live/]);
    expect(await liveBalance()).toBe(before);
    expect((await sentWith(mock.keys.live)).issues).toBe(issuesBefore);
  });

  it('`request POST /cards` follows the same rule', async () => {
    const sb = machine();
    const customer = (await approvedCustomer(mock)).id;
    const before = await liveBalance();
    const r = await sb.run(
      [
        'request',
        'POST',
        '/cards',
        '--data',
        JSON.stringify({ customer_id: customer, amount_minor: 1200 }),
        '--no-input',
      ],
      { env: envOf(mock.keys.live) },
    );
    expectRefusedBeforeSending(r, [/refusing to send a LIVE money operation/, /Pass --yes/]);
    expect(await liveBalance()).toBe(before);
  });

  it('`ops replay` of a live operation sent with CARDCTL_MODE unset asks for the confirmation like the first send', async () => {
    const sb = machine();
    const card = await activeCard(mock, { mode: 'live' });
    await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: '500_after_commit', count: 1 });
    const lost = await sb.run(
      ['cards', 'recharge', card.id, '--amount', '300', '--retries', '0', '--yes', '--no-input'],
      { env: envOf(mock.keys.live) },
    );
    expect(lost.code, lost.stderr).toBe(7);
    const op = /`cardctl ops replay (op_\w+)`/.exec(lost.stderr)![1]!;
    const refused = await sb.run(['ops', 'replay', op, '--no-input'], { env: envOf(mock.keys.live) });
    expectRefusedBeforeSending(refused, [/refusing to send a LIVE money operation/, /Pass --yes/]);
    const replayed = await sb.run(['ops', 'replay', op, '--yes', '--no-input', '--json'], {
      env: envOf(mock.keys.live),
    });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(JSON.parse(replayed.stdout).data).toMatchObject({ id: card.id, balance_minor: card.balance_minor + 300 });
  });
});

describe('a profile that says test holding a live key', () => {
  it('a single command and a --batch are refused before the first row (exit 2), naming the profile, both modes and the fix', async () => {
    const sb = machine();
    await addProfile(sb, 'staging', mock.keys.live, 'test');
    const customer = (await approvedCustomer(mock)).id;
    const before = await liveBalance();
    const issuesBefore = (await sentWith(mock.keys.live)).issues;
    const said = [
      /profile "staging" says test, but key \w+ is a live key/,
      /cardctl profiles add staging --key-id \w+ --mode live .*--force/,
    ];

    const single = await sb.run([...issue(customer), '--profile', 'staging']);
    expectRefusedBeforeSending(single, said);

    const rows = join(sb.dir, 'rows.csv');
    writeFileSync(rows, `customer,amount\n${customer},1200\n${customer},1300\n`);
    const batch = await sb.run(['cards', 'issue', '--batch', rows, '--profile', 'staging', '--yes', '--no-input']);
    expectRefusedBeforeSending(batch, said);
    expect(batch.stderr).not.toMatch(/idempotency keys/); // stopped before its first row

    expect(await liveBalance()).toBe(before);
    expect((await sentWith(mock.keys.live)).issues).toBe(issuesBefore);
  });
});

describe('the probe: once per key id and machine', () => {
  it('a test key in a profile saying test goes; the first money command asks the API once, the next ones not at all; the file holds no secret', async () => {
    const sb = machine();
    const key = await newKey(mock, { mode: 'test' });
    await addProfile(sb, 'ci', key, 'test');
    const customer = (await approvedCustomer(mock)).id;
    for (let i = 0; i < 2; i++) {
      const r = await sb.run([...issue(customer, 500), '--profile', 'ci']);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(await sentWith(key)).toEqual({ probes: 1, issues: 2 });
    // a batch of two rows: no question more (the key is known), both rows issued
    const rows = join(sb.dir, 'rows.csv');
    writeFileSync(rows, `customer,amount\n${customer},100\n${customer},200\n`);
    const batch = await sb.run(['cards', 'issue', '--batch', rows, '--profile', 'ci', '--no-input']);
    expect(batch.code, batch.stderr).toBe(0);
    expect(await sentWith(key)).toEqual({ probes: 1, issues: 4 });
    const remembered = readFileSync(join(sb.stateDir, 'cardctl', 'key-modes.json'), 'utf8');
    expect(JSON.parse(remembered).keys[key.keyId].mode).toBe('test');
    expect(remembered).not.toContain(key.secret);
  });

  it('a live key in a profile saying live, with --yes: one question, then the confirmation alone; a batch of a new key asks once, before its first row', async () => {
    const sb = machine();
    const key = await newKey(mock, { mode: 'live' });
    await addProfile(sb, 'prod', key, 'live');
    const customer = (await approvedCustomer(mock)).id;
    for (let i = 0; i < 2; i++)
      expect((await sb.run([...issue(customer, 500), '--profile', 'prod', '--yes'])).code).toBe(0);
    expect(await sentWith(key)).toEqual({ probes: 1, issues: 2 });

    const other = machine();
    await addProfile(other, 'prod', key, 'live');
    const rows = join(other.dir, 'rows.csv');
    writeFileSync(rows, `customer,amount\n${customer},100\n${customer},200\n${customer},300\n`);
    const batch = await other.run(['cards', 'issue', '--batch', rows, '--profile', 'prod', '--yes', '--no-input']);
    expect(batch.code, batch.stderr).toBe(0);
    expect(await sentWith(key)).toEqual({ probes: 2, issues: 5 });
  });

  it('a damaged memory is "unknown": asked again, no crash, written anew', async () => {
    const sb = machine();
    const key = await newKey(mock, { mode: 'test' });
    await addProfile(sb, 'ci', key, 'test');
    const customer = (await approvedCustomer(mock)).id;
    expect((await sb.run([...issue(customer, 500), '--profile', 'ci'])).code).toBe(0);
    const file = join(sb.stateDir, 'cardctl', 'key-modes.json');
    writeFileSync(file, '{"version":1,"keys":{"' + key.keyId + '":{"mode":"te');
    const r = await sb.run([...issue(customer, 500), '--profile', 'ci']);
    expect(r.code, r.stderr).toBe(0);
    expect(await sentWith(key)).toEqual({ probes: 2, issues: 2 });
    expect(JSON.parse(readFileSync(file, 'utf8')).keys[key.keyId].mode).toBe('test');
  });

  it('when the API cannot tell (the key lacks deposits.read), the mode counts as live: --yes needed; the card answer then teaches it', async () => {
    const sb = machine();
    const key = await newKey(mock, {
      mode: 'test',
      scopes: ['customers.read', 'customers.write', 'cards.read', 'cards.write'],
    });
    const customer = (await approvedCustomer(mock)).id;
    const refused = await sb.run(issue(customer, 500), { env: envOf(key, 'test') });
    expectRefusedBeforeSending(refused, [
      /the API could not tell key \w+'s mode: out_of_scope; an unknown mode is treated as live/,
      /Pass --yes/,
    ]);
    expect((await sentWith(key)).issues).toBe(0);
    expect((await sb.run([...issue(customer, 500), '--yes'], { env: envOf(key, 'test') })).code).toBe(0);
    // the card's answer said `mode: test`: known from now on, no confirmation and no question
    const probes = (await sentWith(key)).probes;
    expect((await sb.run(issue(customer, 500), { env: envOf(key, 'test') })).code).toBe(0);
    expect(await sentWith(key)).toEqual({ probes, issues: 2 });
  });
});

describe('when the question itself fails', () => {
  it('a revoked key: the question is refused (401), the command stops there, exit 3, no money request sent', async () => {
    const sb = machine();
    const key = await newKey(mock, { mode: 'test' });
    await ctl(mock, 'POST', `/keys/${key.keyId}/revoke`);
    const customer = (await approvedCustomer(mock)).id;
    const newest = ((await ctl(mock, 'GET', '/requests?plane=api&limit=1')) as Array<{ id: string }>)[0]!.id;
    const r = await sb.run([...issue(customer, 500), '--yes'], { env: envOf(key, 'test') });
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/nothing was sent: asked about key \w+'s mode, the API refused the key/);
    // a revoked key's requests are logged without a key id: all the API requests since
    const since = (await ctl(mock, 'GET', `/requests?plane=api&order=oldest&after=${newest}`)) as Array<{
      method: string;
      path: string;
      status: number;
    }>;
    expect(since.map((q) => `${q.method} ${q.path} ${q.status}`)).toEqual(['GET /api/v1/deposit-addresses 401']);
  });

  it('a 429 on the question: the mode is unknown, so it counts as live (--yes needed); asked again by the next command', async () => {
    const srv = await startSignedServer();
    try {
      srv.answerProbes = false; // the question is answered from the script, like any request
      const sb = machine();
      const limited = {
        status: 429,
        headers: { 'Retry-After': '0' },
        body: { success: false, message: 'Too many requests.', errors: { rate_limit: ['exceeded'] } },
      };
      srv.script(limited);
      const refused = await sb.run(
        ['cards', 'recharge', '01J0000000000000000000CARD', '--amount', '5', '--retries', '0', '--no-input'],
        { env: srv.env('test') },
      );
      expectRefusedBeforeSending(refused, [
        /the API could not tell key \w+'s mode: .*; an unknown mode is treated as live/,
        /Pass --yes/,
      ]);
      expect(srv.requests.map((q) => `${q.method} ${q.path}`)).toEqual(['GET /api/v1/deposit-addresses']);
      srv.script(limited, {
        status: 200,
        body: { success: true, data: { id: '01J0000000000000000000CARD', mode: 'test', balance_minor: 5 } },
      });
      const confirmed = await sb.run(
        ['cards', 'recharge', '01J0000000000000000000CARD', '--amount', '5', '--retries', '0', '--yes', '--no-input'],
        { env: srv.env('test') },
      );
      expect(confirmed.code, confirmed.stderr).toBe(0);
      expect(srv.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
        'GET /api/v1/deposit-addresses',
        'GET /api/v1/deposit-addresses',
        'POST /api/v1/cards/01J0000000000000000000CARD/recharge',
      ]);
    } finally {
      await srv.close();
    }
  });
});

describe('learned passively from a card answer', () => {
  it('live: `cards get` of a live card teaches the key; the money command is then refused without a question to the API', async () => {
    const sb = machine();
    const key = await newKey(mock, { mode: 'live' });
    const card = await activeCard(mock, { mode: 'live', key });
    expect((await sb.run(['cards', 'get', card.id], { env: envOf(key) })).code).toBe(0);
    const before = await liveBalance();
    const r = await sb.run(['cards', 'recharge', card.id, '--amount', '100', '--no-input'], { env: envOf(key) });
    expectRefusedBeforeSending(r, [/refusing to send a LIVE money operation/, /is a live key, as the API says/]);
    expect(await liveBalance()).toBe(before);
    expect((await sentWith(key)).probes).toBe(0);
  });

  it('test: a profile saying live holding a test key, known from a card answer, is refused (exit 2) without a question to the API', async () => {
    const sb = machine();
    const key = await newKey(mock, { mode: 'test' });
    await addProfile(sb, 'prod', key, 'live');
    const card = await activeCard(mock, { key });
    expect((await sb.run(['cards', 'get', card.id, '--profile', 'prod'])).code).toBe(0);
    const r = await sb.run(['cards', 'recharge', card.id, '--amount', '100', '--profile', 'prod', '--yes']);
    expectRefusedBeforeSending(r, [
      /profile "prod" says live, but key \w+ is a test key/,
      /cardctl profiles add prod --key-id \w+ --mode test .*--force/,
    ]);
    expect((await sentWith(key)).probes).toBe(0);
  });
});
