// Issue 30: `--jq EXPR` filters exactly the document `--json` prints, on every command that
// offers `--jq`. This walks oclif.manifest.json: each command that has the flag runs twice
// through the built CLI (in this process: test/helpers/in-process.ts; the fixtures are made by
// child processes), with `--json` and with `--jq .`, against the real mock (port 0) and a
// sandbox put back in the same state before each run (a mock snapshot, a copy of the config and
// state folders); jq's `.` prints the same value compact, so the two parsed values must be equal.
// Values that change by themselves between two runs (times, generated ids, nonces, durations) are
// masked the same way in both; the shape and every other value must match.
// A command with no fixture below fails the test: a new command gets one (or a reason in SKIPPED).
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  advance,
  approvedCustomer,
  ctl,
  fault,
  fundLive,
  issueCard,
  newKey,
  type MockHandle,
} from '../helpers/api.js';
import { ROOT, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receivers.js';

/** Commands that cannot run to an end in a test, and why. Keep this short. */
const SKIPPED: Record<string, string> = {
  'mock:start':
    'runs a mock until Ctrl-C (its --json banner is one document while it runs; test/commands and test/mock cover it)',
  'webhooks:listen':
    'runs a receiver until Ctrl-C or --max-events deliveries arrive from another process (test/commands/webhooks-listen.test.ts)',
  demo: 'runs the whole guided tour, dozens of child processes and its own mock (test/demo)',
};

interface Manifest {
  commands: Record<string, { flags: Record<string, unknown> }>;
}
const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest;
const withJq = Object.entries(manifest.commands)
  .filter(([, c]) => 'jq' in c.flags)
  .map(([id]) => id)
  .sort();

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
let receiver: Receiver;
let backup: string;
const fx: Record<string, string> = {};
/** A fixture made in beforeAll (fails loudly when it is not). */
const the = (name: string): string =>
  fx[name] ??
  (() => {
    throw new Error(`fixture ${name} missing`);
  })();

interface Fixture {
  args: string[];
  input?: string;
  /** added to the environment (a live key for the live-only deposit routes) */
  env?: Record<string, string>;
}

/** The argv of each command (after its words), from the fixtures made in beforeAll. */
function argvFor(id: string): Fixture | undefined {
  const table: Record<string, Fixture> = {
    completion: { args: ['bash'] },
    config: { args: [] },
    doctor: { args: [] },
    request: { args: ['GET', '/api/v1/customers', '--query', 'per_page=2'] },
    smoke: { args: ['--mock'] },
    'cards:freeze': { args: [fx.card!] },
    'cards:get': { args: [fx.card!] },
    'cards:issue': { args: ['--customer', fx.customer!, '--amount', '5000', '--idempotency-key', 'parity-issue'] },
    'cards:recharge': { args: [fx.card!, '--amount', '100', '--idempotency-key', 'parity-recharge'] },
    'cards:terminate': { args: [fx.frozenCard!, '--idempotency-key', 'parity-terminate'] },
    'cards:transactions': { args: [fx.card!] },
    'cards:unfreeze': { args: [fx.frozenCard!] },
    'customers:create': { args: ['--from', join(ROOT, 'examples', 'customer.json')] },
    'customers:get': { args: [fx.customer!] },
    'customers:kyc': { args: [fx.customer!] },
    'customers:list': { args: ['--per-page', '2'] },
    'customers:update': { args: [fx.customer!, '--occupation', 'teacher'] },
    'deposit-addresses:create': { args: ['--network', fx.network!], env: live() },
    'deposit-addresses:list': { args: [], env: live() },
    'deposits:list': { args: [], env: live() },
    'mock:kyc': { args: [fx.customer!, '--verdict', 'approved'] },
    'mock:provision': { args: [fx.pendingCard!, '--outcome', 'active'] },
    'mock:reset': { args: [] },
    'mock:state': { args: [] },
    'mock:wallets': { args: [] },
    'mock:webhook-deliveries': { args: [] },
    'mock:clock:advance': { args: ['60'] },
    'mock:clock': { args: [] },
    'mock:deposits:add': { args: ['--network', fx.network!, '--asset-amount', '10'] },
    'mock:events:emit': { args: ['card.issued', '--data', JSON.stringify({ card_id: fx.card })] },
    'mock:events': { args: [] },
    'mock:faults:add': { args: ['--operation', 'cards.get', '--kind', '503'] },
    'mock:faults': { args: [] },
    'mock:faults:clear': { args: [] },
    'mock:console': { args: [] },
    'mock:keys:create': { args: ['--mode', 'test'] },
    'mock:keys:revoke': { args: [fx.spareKey!] },
    'mock:keys:roll': { args: [fx.spareKey!] },
    'mock:keys:rotate': { args: [fx.spareKey!] },
    'mock:merchants:create': { args: [] },
    'mock:networks': { args: [] },
    'mock:networks:set': { args: [fx.network!] },
    'mock:products': { args: [] },
    'mock:products:set': { args: [fx.product!, '--available'] },
    'mock:requests': { args: ['--path', '/api/v1/customers', '--limit', '3'] },
    'mock:requests:show': { args: [fx.request!] },
    'mock:snapshot:list': { args: [] },
    'mock:snapshot:restore': { args: ['parity-base'] },
    'mock:snapshot:save': { args: ['parity-other'] },
    'mock:transactions:add': { args: [fx.card!, '--type', 'authorization', '--amount', '100'] },
    'mock:webhook-endpoints:add': { args: [receiver.url] },
    'mock:webhook-endpoints:enable': { args: [fx.endpoint!] },
    'mock:webhook-endpoints': { args: [] },
    'mock:webhook-endpoints:remove': { args: [fx.endpoint!] },
    'mock:withdrawals:add': { args: ['--amount', '100'] },
    'ops:compact': { args: [] },
    // an empty journal into another file: the same document both runs (a copy of operations would find them there the second time)
    'ops:copy': { args: ['--journal', join(sb.dir, 'empty-journal.db'), '--to', join(sb.dir, 'copy-of-it.db')] },
    'ops:list': { args: [] },
    'ops:verify': { args: [] },
    'ops:replay': { args: [fx.op!, '--yes'] },
    'ops:resolve': { args: [fx.unknownOp!, '--outcome', 'failed'] },
    'ops:show': { args: [fx.op!] },
    'profiles:add': {
      args: ['other', '--key-id', mock.keys.test.keyId, '--mode', 'test', '--base-url', mock.baseUrl, '--secret-stdin'],
      input: mock.keys.test.secret,
    },
    'profiles:list': { args: [] },
    'profiles:remove': { args: ['parity'] },
    'profiles:show': { args: ['parity'] },
    'profiles:use': { args: ['parity'] },
    'sign:diagnose': { args: ['--request', fx.requestFile!, '--now', '1700000000'] },
    sign: { args: ['--method', 'GET', '--path', '/api/v1/cards', '--timestamp', '1700000000', '--nonce', 'n-1'] },
    'webhooks:sign': { args: ['--payload', fx.payloadFile!, '--timestamp', '1700000000'] },
    'webhooks:test': { args: [receiver.url, '--timeout', '5'] },
    'webhooks:trigger': { args: ['card.issued', '--data', JSON.stringify({ card_id: fx.card })] },
    'webhooks:verify': { args: ['--header', fx.webhookHeader!, '--payload', fx.payloadFile!, '--now', '1700000000'] },
  };
  return table[id];
}

const VOLATILE_KEY =
  /^(unix|duration_ms|time_ms|age_seconds|bytes|objects|sha256|body_sha256|nonce|idempotency_key|secret|webhook_secret|tx_id|address|last4|masked_pan)$/i;
const VOLATILE_STRING = [
  /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/, // a time
  /^[0-9A-HJKMNP-TV-Z]{26}$/, // a generated id (ULID)
  /^[a-z]+_[0-9A-HJKMNP-TV-Z]{26}$/i, // a prefixed id
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, // a uuid
  /\/_console\/login\?code=[A-Za-z0-9_-]+$/, // the console's login address: a new one-time code each time
];

/** The value with what changes between two runs by itself replaced by a mark (the same in both). */
function masked(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  if (VOLATILE_KEY.test(key) && (typeof value === 'number' || typeof value === 'string')) return `<${typeof value}>`;
  if (typeof value === 'string') {
    if (VOLATILE_STRING.some((re) => re.test(value))) return '<volatile>';
    return value
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/[0-9A-HJKMNP-TV-Z]{26}/g, '<id>')
      .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, '<dur>')
      .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>') // `smoke --mock` starts its own mock
      .replace(/\d+ of \d+ left/g, '<n> of <n> left'); // the rate limit doctor reports
  }
  return value;
}

/** Every JSON value of a text (one document, or one per line). */
function values(text: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as unknown);
  }
}

async function restoreState(): Promise<void> {
  await ctl(mock, 'POST', '/snapshots/parity-base/restore');
  rmSync(sb.configDir, { recursive: true, force: true });
  rmSync(sb.stateDir, { recursive: true, force: true });
  cpSync(join(backup, 'config'), sb.configDir, { recursive: true });
  cpSync(join(backup, 'state'), sb.stateDir, { recursive: true });
}

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 30, providerLatencyMs: 0 })) as unknown as MockHandle;
  receiver = await startReceiver('correct', mock.webhookSecret);
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_WEBHOOK_SECRET: mock.webhookSecret,
    CARDCTL_MODE: 'test',
    CARDCTL_MOCK_URL: mock.controlUrl,
    CARDCTL_MOCK_TOKEN: mock.controlToken,
  };
  mkdirSync(sb.configDir, { recursive: true });
  mkdirSync(sb.stateDir, { recursive: true });
  fx.customer = (await approvedCustomer(mock)).id;
  fx.card = (await activeCard(mock, { customerId: the('customer') })).id;
  fx.frozenCard = (await activeCard(mock, { customerId: the('customer') })).id;
  await sb.run(['cards', 'freeze', the('frozenCard')], { env });
  await fault(mock, 'issue', 'async_202'); // a pending card: its id comes with the replay of the 202
  await issueCard(mock, { customerId: the('customer'), idempotencyKey: 'parity-pending' });
  fx.pendingCard = (
    await issueCard(mock, { customerId: the('customer'), idempotencyKey: 'parity-pending' })
  ).body.data.id;
  await advance(mock, 2 * 86_400); // the cards are old enough to terminate
  await fundLive(mock);
  fx.network = mock.networks[0]!;
  fx.product = mock.products[0]!.id;
  fx.spareKey = (await newKey(mock)).keyId;
  fx.endpoint = (await ctl<{ id: string }>(mock, 'POST', '/webhook-endpoints', { url: receiver.url })).id;
  // a journal: one operation that went through, one whose outcome is unknown
  const issued = await sb.run(
    ['cards', 'issue', '--customer', the('customer'), '--amount', '5000', '--idempotency-key', 'parity-op', '--json'],
    { env },
  );
  expect(issued.code, issued.stderr).toBe(0);
  await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: '500_after_commit', count: 1 });
  const unknown = await sb.run(
    [
      'cards',
      'issue',
      '--customer',
      the('customer'),
      '--amount',
      '5000',
      '--idempotency-key',
      'parity-unknown',
      '--retries',
      '0',
    ],
    { env },
  );
  expect(unknown.code, unknown.stderr).toBe(7);
  const ops = (await sb.run(['ops', 'list', '--ndjson'], { env })).stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { id: string; idempotency_key: string });
  fx.op = ops.find((o) => o.idempotency_key === 'parity-op')!.id;
  fx.unknownOp = ops.find((o) => o.idempotency_key === 'parity-unknown')!.id;
  const profile = await sb.run(
    [
      'profiles',
      'add',
      'parity',
      '--key-id',
      mock.keys.test.keyId,
      '--mode',
      'test',
      '--base-url',
      mock.baseUrl,
      '--secret-stdin',
    ],
    { env, input: mock.keys.test.secret },
  );
  expect(profile.code, profile.stderr).toBe(0);
  const requests = (await sb.run(['mock', 'requests', '--path', '/api/v1/customers', '--ndjson'], { env })).stdout
    .trim()
    .split('\n');
  fx.request = (JSON.parse(requests[0]!) as { id: string }).id;
  const signed = JSON.parse(
    (
      await sb.run(
        ['sign', '--method', 'GET', '--path', '/api/v1/cards', '--timestamp', '1700000000', '--nonce', 'n-1', '--json'],
        { env },
      )
    ).stdout,
  ) as { headers: Record<string, string> };
  fx.requestFile = join(sb.dir, 'request.txt');
  writeFileSync(
    fx.requestFile,
    `GET /api/v1/cards HTTP/1.1\r\nHost: localhost\r\n${Object.entries(signed.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\r\n')}\r\n\r\n`,
  );
  fx.payloadFile = join(sb.dir, 'payload.json');
  writeFileSync(fx.payloadFile, '{"id":"evt_1"}');
  const hook = JSON.parse(
    (await sb.run(['webhooks', 'sign', '--payload', fx.payloadFile, '--timestamp', '1700000000', '--json'], { env }))
      .stdout,
  ) as { header: string };
  fx.webhookHeader = hook.header;
  await ctl(mock, 'POST', '/snapshots', { name: 'parity-base' });
  backup = join(sb.dir, 'backup');
  cpSync(sb.configDir, join(backup, 'config'), { recursive: true });
  cpSync(sb.stateDir, join(backup, 'state'), { recursive: true });
}, 120_000);

const live = (): Record<string, string> => ({
  CARDCTL_API_KEY: mock.keys.live.keyId,
  CARDCTL_API_SECRET: mock.keys.live.secret,
  CARDCTL_MODE: 'live',
});

afterAll(async () => {
  await receiver?.close();
  await mock?.close();
  sb?.cleanup();
});

describe('--jq . prints the document --json prints, on every command that offers --jq', () => {
  it('lists every command that offers --jq (the walk below checks something)', () => {
    expect(withJq.length).toBeGreaterThan(60);
    expect(withJq).toEqual(
      expect.arrayContaining(['customers:list', 'mock:wallets', 'mock:requests', 'profiles:list']),
    );
  });

  it('has a fixture for every such command, or a reason it cannot run in a test', () => {
    const missing = withJq.filter((id) => !SKIPPED[id] && !argvFor(id));
    expect(missing).toEqual([]);
    expect(Object.keys(SKIPPED).length).toBeLessThanOrEqual(3);
  });

  for (const id of withJq.filter((c) => !SKIPPED[c])) {
    it(`${id.replaceAll(':', ' ')}`, async () => {
      const { args, input, env: extra } = argvFor(id)!;
      const env_ = { ...env, ...extra };
      const words = [...id.split(':'), ...args];
      await restoreState();
      // in-process (test/helpers/in-process.ts): the same built command, without a node process per run
      const run = inProcessRunner(sb);
      const json = await run([...words, '--json'], { env: env_, input, timeoutMs: 60_000 });
      expect(json.code, `--json: ${json.stdout}${json.stderr}`).toBe(0);
      await restoreState();
      const jq = await run([...words, '--jq', '.'], { env: env_, input, timeoutMs: 60_000 });
      expect(jq.code, `--jq .: ${jq.stderr}`).toBe(0);
      const printed = values(json.stdout);
      expect(printed).toHaveLength(1); // one JSON value
      expect(values(jq.stdout).map((v) => masked(v))).toEqual(printed.map((v) => masked(v)));
    }, 120_000);
  }
});
