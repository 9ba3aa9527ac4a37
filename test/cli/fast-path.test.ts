// The start-up fast path must be invisible: for EVERY command, a corpus of command lines runs
// through the fast path and through oclif (CARDCTL_NO_FAST_PATH=1), and both must print the same
// bytes on stdout and stderr and exit with the same code. A command of the manifest without a
// corpus entry fails the test: add one when you add a command.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseFast, type Manifest } from '../../src/cli/fast-path.js';
import { startMock } from '../../src/mock/index.js';
import { activeCard, approvedCustomer, type MockHandle } from '../helpers/api.js';
import { ROOT, runCli } from '../helpers/cli.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest;
const dir = mkdtempSync(join(tmpdir(), 'cardctl-fast-'));
// a TMPDIR that is a file: the demo cannot make its folder there (a missing TMPDIR would do on
// Node 20, but from 22.1 the module compile cache creates a missing folder)
const notAFolder = join(dir, 'not-a-folder');
writeFileSync(notAFolder, '');

const WEBHOOK_SECRET = 'whsec_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const payload = join(dir, 'event.json');
writeFileSync(
  payload,
  '{"type":"card.issued","occurred_at":"2026-11-22T10:00:00+00:00","data":{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM"}}',
);
const rawRequest = join(dir, 'failing.http');
writeFileSync(
  rawRequest,
  'GET /api/v1/cards?per_page=5 HTTP/1.1\nHost: x\nX-Api-Key: 01JD2Q7N8V3K4M5P6R7S8T9V0W\nX-Timestamp: 1763800000\nX-Nonce: n-1\nX-Signature: AAAA\n\n',
);
const DOWN = 'http://127.0.0.1:1'; // nothing listens on port 1: a connection error, the same every time

let mock: MockHandle;
let card = '';
let customer = '';
const ids = { CARD: () => card, CUSTOMER: () => customer, PAYLOAD: () => payload, RAW: () => rawRequest };

/**
 * Command lines per command id. Words CARD, CUSTOMER, PAYLOAD and RAW are replaced by a card, a
 * customer of the mock and the fixture files. `oclif: true` marks a line the fast path must hand
 * to oclif (help, a usage error oclif reports); every other line must take the fast path.
 */
type Line = string[] | { argv: string[]; oclif?: true; env?: Record<string, string> };
const signArgs = [
  '--method',
  'post',
  '--path',
  '/api/v1/cards',
  '--key-id',
  '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  '--timestamp',
  '1763800000',
  '--nonce',
  'n-1',
  '--data',
  '{"amount_minor":5}',
  '--idempotency-key',
  'k-1',
];
const header = 't=1763800000, v1=821449f0ab09d19bdaa1f50339d2c293b82d39cd211fba0e0cca0a87beda0ea5';
const CORPUS: Record<string, Line[]> = {
  completion: [
    ['completion', 'bash'],
    ['completion', 'tcsh'],
  ],
  // (the settings only: the environment listing shows CARDCTL_NO_FAST_PATH, set for the oclif run)
  config: [
    ['config', '--jq', '.settings'],
    ['config', '--timeout', '3', '--retries', '1', '-o', 'json', '--jq', '.settings'],
    ['config', '-p', 'nobody', '-q', '--jq', '.problem'],
  ],
  demo: [{ argv: ['demo', '--seed', '1'], env: { TMPDIR: notAFolder } }],
  doctor: [{ argv: ['doctor', '--json'], env: { CARDCTL_BASE_URL: `${DOWN}/api/v1` } }, ['doctor', '-p', 'nobody']],
  request: [
    ['request', 'GET', '/cards/CARD', '--json'],
    ['request', 'GET', '/customers', '--query', 'per_page=1'],
    ['request', 'get', 'https://x/y'],
  ],
  'cards:freeze': [['cards', 'freeze', 'nope']],
  'cards:get': [
    ['cards', 'get', 'CARD'],
    ['cards', 'get', 'CARD', '--json'],
    ['cards', 'get', 'CARD', '-p', 'nobody', '--retries', '0'],
    ['cards', 'get', 'CARD', '--timeout', '5', '--json'],
    ['cards', 'get', 'CARD', '--jq', '.id'],
    ['cards', 'get', 'CARD', '--jq', '.id | frob'],
    ['cards', 'get', 'CARD', '--timeout', 'soon'],
    ['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--json'],
    ['cards', 'get', 'bad'],
    { argv: ['cards', 'get'], oclif: true },
    { argv: ['cards', 'get', 'CARD', '--retries', '11'], oclif: true },
    { argv: ['cards', 'get', '--help'], oclif: true },
  ],
  'cards:issue': [
    ['cards', 'issue', '--customer', 'bad', '--amount', '100'],
    ['cards', 'issue', '--json'],
    { argv: ['cards', 'issue', '--batch', 'x', '--customer', 'y'], oclif: true },
    ['cards', 'issue', '--customer', 'CUSTOMER', '--amount', '100', '--allow-repeat'],
  ],
  'cards:recharge': [
    ['cards', 'recharge', 'CARD', '--amount', '100', '--idempotency-key', ''],
    ['cards', 'recharge', 'CARD', '--amount', '100', '--allow-repeat'],
  ],
  'cards:terminate': [['cards', 'terminate', 'nope', '--json']],
  'cards:transactions': [
    ['cards', 'transactions', 'CARD'],
    ['cards', 'transactions', 'CARD', '--json', '--per-page', '2'],
  ],
  'cards:unfreeze': [['cards', 'unfreeze', 'nope']],
  'customers:create': [['customers', 'create', '--first-name', 'Ada', '--json']],
  'customers:get': [
    ['customers', 'get', 'CUSTOMER'],
    ['customers', 'get', 'CUSTOMER', '--json'],
  ],
  'customers:kyc': [['customers', 'kyc', 'nope']],
  'customers:list': [
    ['customers', 'list', '--per-page', '1'],
    ['customers', 'list', '--json', '--per-page', '1'],
    ['customers', 'list', '--ndjson', '--all'],
    ['customers', 'list', '--output', 'csv', '--columns', 'id,email'],
    ['customers', 'list', '--output', 'tsv', '--raw-cells'],
    ['customers', 'list', '--raw-cells'],
    ['customers', 'list', '--output', 'csv', '--json'],
    { argv: ['customers', 'list', '--output', 'xml'], oclif: true },
    { argv: ['customers', 'list', '--json', '--ndjson'], oclif: true },
  ],
  'customers:update': [['customers', 'update', 'CUSTOMER']],
  'deposit-addresses:create': [['deposit-addresses', 'create', '--network', 'TRON', '--json']],
  'deposit-addresses:list': [['deposit-addresses', 'list']],
  'deposits:list': [['deposits', 'list', '--json']],
  'ops:list': [
    ['ops', 'list'],
    ['ops', 'list', '--unresolved', '--json'],
  ],
  'ops:verify': [
    ['ops', 'verify'],
    ['ops', 'verify', '--json'],
  ],
  'ops:copy': [['ops', 'copy', '--to', 'local', '--json'], { argv: ['ops', 'copy'], oclif: true }],
  'ops:compact': [
    ['ops', 'compact', '--older-than', '0', '--json'],
    ['ops', 'compact', '--older-than', 'soon'],
  ],
  'ops:replay': [['ops', 'replay', 'nope']],
  'ops:resolve': [
    ['ops', 'resolve', 'nope', '--outcome', 'failed', '--json'],
    { argv: ['ops', 'resolve', 'nope', '--outcome', 'maybe'], oclif: true },
  ],
  'ops:show': [['ops', 'show', 'nope', '--json']],
  'mock:kyc': [['mock', 'kyc', 'CUSTOMER', '--verdict', 'approved', '--control-url', DOWN]],
  'mock:provision': [['mock', 'provision', 'CARD', '--control-url', DOWN]],
  'mock:reset': [['mock', 'reset', '--control-url', DOWN]],
  'mock:start': [['mock', 'start', '--host', '203.0.113.7', '--port', '0']],
  'mock:state': [['mock', 'state', '--control-url', DOWN, '--json']],
  'mock:wallets': [
    ['mock', 'wallets'],
    ['mock', 'wallets', '--json'],
  ],
  'mock:webhook-deliveries': [['mock', 'webhook-deliveries', '--json']],
  'profiles:add': [
    ['profiles', 'add', 'x', '--key-id', 'bad', '--mode', 'test', '--secret-stdin'],
    ['profiles', 'add', 'x', '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--mode', 'test', '--secret-stdin', '--json'],
    ['profiles', 'add', 'x', '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--mode', 'test', '--no-input'],
    {
      argv: ['profiles', 'add', 'x', 'extra', '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--mode', 'test'],
      oclif: true,
    },
    [
      'profiles',
      'add',
      'x',
      '--key-id',
      '01JD2Q7N8V3K4M5P6R7S8T9V0W',
      '--mode',
      'test',
      '--secret-command',
      'echo a',
      '--secret-stdin',
    ],
    {
      argv: [
        'profiles',
        'add',
        'x',
        '--key-id',
        '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        '--mode',
        'test',
        '--secret-command',
        'echo a',
        '--secret-command-timeout',
        '0',
      ],
      oclif: true,
    },
  ],
  'profiles:list': [
    ['profiles', 'list'],
    ['profiles', 'list', '--json'],
    ['profiles', 'list', '--no-input'],
  ],
  'profiles:remove': [['profiles', 'remove', 'nobody']],
  'profiles:show': [['profiles', 'show', 'nobody', '--json']],
  'profiles:use': [['profiles', 'use', 'nobody']],
  'sign:diagnose': [
    ['sign', 'diagnose', '--request', 'RAW', '--now', '1763800000'],
    ['sign', 'diagnose', '--request', 'RAW', '--now', '1763800000', '--json'],
    [
      'sign',
      'diagnose',
      '--request',
      'RAW',
      '--now',
      '1763800000',
      '--show-valid-signature',
      '--try-secret-commands',
      '--json',
    ],
  ],
  sign: [
    ['sign', ...signArgs, '--json'],
    ['sign', ...signArgs],
    ['sign', ...signArgs.slice(0, 6), '--timestamp', '17638000000000x', '--json'],
    { argv: ['sign', ...signArgs, '--nonce', 'n-2'], oclif: true },
    { argv: ['sign', '--method', 'GET'], oclif: true },
  ],
  'webhooks:listen': [['webhooks', 'listen', '--host', '203.0.113.7']],
  'webhooks:sign': [['webhooks', 'sign', '--payload', 'PAYLOAD', '--timestamp', '1763800000']],
  'webhooks:trigger': [['webhooks', 'trigger', 'card.issued', '--control-url', DOWN]],
  smoke: [
    ['smoke', '-p', 'nobody'],
    ['smoke', '-p', 'nobody', '--json'],
  ],
  'webhooks:test': [
    ['webhooks', 'test', 'not-a-url'],
    ['webhooks', 'test', 'ftp://x', '--json'],
  ],
  'webhooks:verify': [
    ['webhooks', 'verify', '--header', header, '--payload', 'PAYLOAD', '--now', '1763800000', '--json'],
    ['webhooks', 'verify', '--header', header, '--payload', 'PAYLOAD', '--now', '1763809999', '--tolerance', '60'],
    ['webhooks', 'verify', '--header', 't=1', '--payload', 'PAYLOAD', '--tolerance', 'soon'],
  ],
  'mock:clock:advance': [['mock', 'clock', 'advance', 'soon']],
  'mock:clock': [['mock', 'clock', '--control-url', DOWN]],
  'mock:deposits:add': [['mock', 'deposits', 'add', '--network', 'TRON', '--asset-amount', '5', '--control-url', DOWN]],
  'mock:faults:add': [['mock', 'faults', 'add', '--operation', 'issue', '--kind', '503', '--control-url', DOWN]],
  'mock:faults:clear': [['mock', 'faults', 'clear', '--control-url', DOWN]],
  'mock:console': [['mock', 'console', '--control-url', DOWN]],
  'mock:faults': [
    ['mock', 'faults'],
    ['mock', 'faults', '--json'],
  ],
  'mock:events:emit': [['mock', 'events', 'emit', 'card.issued', '--data', '{no']],
  'mock:events': [['mock', 'events', '--control-url', DOWN]],
  'mock:keys:create': [['mock', 'keys', 'create', '--mode', 'test', '--control-url', DOWN]],
  'mock:keys:revoke': [['mock', 'keys', 'revoke', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--json']],
  'mock:keys:roll': [['mock', 'keys', 'roll', '01JD2Q7N8V3K4M5P6R7S8T9V0W']],
  'mock:keys:rotate': [['mock', 'keys', 'rotate', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--control-url', DOWN]],
  'mock:merchants:create': [['mock', 'merchants', 'create', '--control-url', DOWN]],
  'mock:products': [
    ['mock', 'products'],
    ['mock', 'products', '--json'],
  ],
  'mock:products:set': [['mock', 'products', 'set', 'nope']],
  'mock:networks': [['mock', 'networks', '--json']],
  'mock:networks:set': [{ argv: ['mock', 'networks', 'set', 'TRON', '--control-url', DOWN], oclif: true }],
  'mock:transactions:add': [
    ['mock', 'transactions', 'add', 'CARD', '--type', 'capture', '--amount', '5', '--control-url', DOWN],
  ],
  'mock:withdrawals:add': [['mock', 'withdrawals', 'add', '--amount', '5', '--control-url', DOWN]],
  'mock:requests': [
    ['mock', 'requests', '--failed', '--limit', '5', '--control-url', DOWN],
    { argv: ['mock', 'requests', '--limit', '0'], oclif: true },
  ],
  'mock:requests:show': [['mock', 'requests', 'show', 'req_1', '--control-url', DOWN, '--json']],
  'mock:snapshot:list': [['mock', 'snapshot', 'list', '--control-url', DOWN]],
  'mock:snapshot:save': [['mock', 'snapshot', 'save', 'before', '--control-url', DOWN, '--json']],
  'mock:snapshot:restore': [['mock', 'snapshot', 'restore', 'before', '--control-url', DOWN]],
  'mock:webhook-endpoints:add': [['mock', 'webhook-endpoints', 'add', 'not a url']],
  'mock:webhook-endpoints:enable': [['mock', 'webhook-endpoints', 'enable', 'nope', '--json']],
  'mock:webhook-endpoints': [['mock', 'webhook-endpoints']],
  'mock:webhook-endpoints:remove': [['mock', 'webhook-endpoints', 'remove', 'nope']],
};

let env: Record<string, string>;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 7, providerLatencyMs: 0 })) as unknown as MockHandle;
  customer = (await approvedCustomer(mock)).id;
  card = (await activeCard(mock, { customerId: customer })).id;
  env = {
    CARDCTL_CONFIG_DIR: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CARDCTL_MOCK_URL: mock.controlUrl,
    CARDCTL_MOCK_TOKEN: mock.controlToken,
  };
});
afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

const argvOf = (line: Line): string[] =>
  (Array.isArray(line) ? line : line.argv).map((w) => (w in ids ? ids[w as keyof typeof ids]() : w));
// node's warnings carry the pid; a refusal of the mock names its record in the request log, one per request
const pidless = (s: string): string => s.replace(/\(node:\d+\)/g, '(node)').replace(/\breq_\d+\b/g, 'req_N');

describe('start-up fast path', () => {
  it('has a corpus entry for every command of the manifest', () => {
    const missing = Object.keys(manifest.commands).filter((id) => !CORPUS[id]?.length);
    expect(missing, 'add command lines for these commands to CORPUS in test/cli/fast-path.test.ts').toEqual([]);
  });

  for (const [id, lines] of Object.entries(CORPUS)) {
    for (const line of lines) {
      const shown = (Array.isArray(line) ? line : line.argv).join(' ');
      it(`${id}: \`${shown}\` prints the same and exits the same through the fast path and through oclif`, async () => {
        const argv = argvOf(line);
        const mustHandOver = !Array.isArray(line) && line.oclif === true;
        expect(
          parseFast(argv, manifest) === null,
          mustHandOver ? 'oclif must handle this line' : 'the fast path must take this line',
        ).toBe(mustHandOver);
        const lineEnv = { ...env, ...(Array.isArray(line) ? {} : line.env) };
        const fast = await runCli(argv, { env: lineEnv });
        const slow = await runCli(argv, { env: { ...lineEnv, CARDCTL_NO_FAST_PATH: '1' } });
        expect(fast.code, `${fast.stderr}\n---\n${slow.stderr}`).toBe(slow.code);
        expect(pidless(fast.stdout)).toBe(pidless(slow.stdout));
        expect(pidless(fast.stderr)).toBe(pidless(slow.stderr));
      });
    }
  }

  it('parses flags and arguments as oclif does, and hands everything unusual to oclif', () => {
    expect(parseFast(['sign', '--method', 'GET', '--path', '/cards', '--json'], manifest)).toMatchObject({
      id: 'sign',
      flags: { method: 'GET', path: '/cards', json: true },
    });
    expect(parseFast(['webhooks', 'sign', '--payload=-'], manifest)).toMatchObject({
      id: 'webhooks:sign',
      flags: { payload: '-' },
    });
    expect(parseFast(['customers', 'list', '--per-page', '5'], manifest)).toMatchObject({
      id: 'customers:list',
      flags: { 'per-page': 5, json: false, quiet: false },
    });
    expect(parseFast(['cards', 'get', 'X', '--no-input'], manifest)).toMatchObject({
      id: 'cards:get',
      flags: { 'no-input': true },
    });
    expect(parseFast(['mock', 'clock', 'advance', '60'], manifest)).toMatchObject({
      id: 'mock:clock:advance',
      args: { seconds: '60' },
    });
    expect(parseFast(['request', 'GET', '/cards', '--query', 'a=1', '--query', 'b=2'], manifest)).toMatchObject({
      flags: { query: ['a=1', 'b=2'] },
    });
    for (const argv of [
      ['sign', '--help'],
      ['sign', '-h'],
      ['sign', '--method', 'GET'],
      ['sign', '--method', 'GET', '--path', '/c', '--bogus'],
      ['sign', '--method', 'GET', '--path', '/c', 'extra'],
      ['sign', '--method', 'GET', '--path', '/c', '--data', '--json'],
      ['sign', '--method', 'GET', '--path', '/c', '--method', 'POST'],
      ['cards', 'get', 'X', '-vp', 'prod'],
      ['cards', 'get', 'X', '-pprod'],
      ['cards', 'get', 'X', '--', 'Y'],
      ['cards', 'get', 'X', '--json=true'],
      ['customers', 'list', '--per-page', '0'],
      ['customers', 'list', '--per-page', 'x'],
      ['request', 'GET', '/cards', '--query', 'a=1', 'b=2'],
      ['cards:get', 'X'],
      ['nosuch', 'command'],
      [],
      ['customers', 'list', '--no-such-flag'],
      ['customers', 'list', '--no-input=true'],
    ])
      expect(parseFast(argv, manifest), argv.join(' ')).toBeNull();
  });
});
