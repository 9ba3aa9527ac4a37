// A canary secret goes through every API and local command of cardctl, with --verbose, --json
// and failing inputs. It must appear in no output and in no file but the profile store,
// in any of the forms a leak would take (raw, base64-decoded, hex, URL-encoded, base64url).
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type MockServer } from '../../src/mock/index.js';
import { signRequest } from '../../src/signing/index.js';
import { approvedCustomer, createCustomer, ctl, customerInput, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliResult } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startReceiver } from '../helpers/webhook-receivers.js';

// 32 bytes whose base64 holds '+' and '/', so the URL-encoded and query-encoded forms differ from the raw one
const CANARY_BYTES = Buffer.concat([
  Buffer.from('CANARY-SECRET-CANARY-SECRET'),
  Buffer.from([0xfb, 0xef, 0xff, 0xfb, 0xf0]),
]);
const CANARY = CANARY_BYTES.toString('base64'); // the API secret as shown to a merchant: 44 chars
const WEBHOOK_CANARY = 'whsec_CANARYWEBHOOKSECRET0123456789abcdef';
const KEY_ID = '01JD2Q7N8V3K4M5P6R7S8T9CAN';

/** Every form in which a leaked secret could show up. */
function leakForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'base64');
  const forms = [
    secret,
    Buffer.from(secret).toString('hex'),
    encodeURIComponent(secret),
    secret.replace(/=+$/, ''),
    encodeURIComponent(secret).replace(/%20/g, '+'),
  ];
  if (bytes.toString('base64') === secret) {
    forms.push(bytes.toString('hex'), bytes.toString('base64url'), bytes.toString('latin1'));
  }
  return forms.filter((f) => f.length >= 16);
}
const FORMS = [...leakForms(CANARY), ...leakForms(WEBHOOK_CANARY)];

const sandbox = makeSandbox();
let mock: MockServer;
const outputs: Array<{ args: string[]; result: CliResult }> = [];

/**
 * Runs cardctl in the sandbox and keeps its output for the checks at the end: in this process
 * (test/helpers/in-process.ts: what the command, oclif, console and process.stdout/stderr print),
 * or as a child process (`cliChild`): the money paths end to end (cards, the journal, a batch) and
 * a `webhooks listen` that waits while another command triggers its delivery.
 */
async function cli(
  args: string[],
  options: { input?: string; env?: Record<string, string> } = {},
  how: 'in-process' | 'child' = 'in-process',
): Promise<CliResult> {
  const result = how === 'child' ? await sandbox.run(args, options) : await inProcessRunner(sandbox)(args, options);
  outputs.push({ args, result });
  return result;
}
const cliChild = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) =>
  cli(args, options, 'child');

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

let customerFile: string;
let customer: string;
let payload: string;

beforeAll(async () => {
  mock = await startMock({ port: 0, providerLatencyMs: 0, keys: [{ keyId: KEY_ID, secret: CANARY, mode: 'test' }] });
  customer = join(sandbox.dir, 'customer.json');
  writeFileSync(customer, JSON.stringify({ first_name: 'Ada' }));
  customerFile = join(sandbox.dir, 'customer-full.json');
  writeFileSync(customerFile, JSON.stringify(customerInput()));
  payload = join(sandbox.dir, 'event.json');
  writeFileSync(
    payload,
    '{"type":"card.issued","occurred_at":"2026-11-22T10:00:00+00:00","data":{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM"}}',
  );
  // the profile every group below uses: both secrets through stdin
  const add = await cli(
    [
      'profiles',
      'add',
      'canary',
      '--key-id',
      KEY_ID,
      '--mode',
      'test',
      '--base-url',
      mock.baseUrl,
      '--secret-stdin',
      '--webhook-secret-stdin',
    ],
    { input: `${CANARY}\n${WEBHOOK_CANARY}\n` },
  );
  expect(add.code, add.stderr).toBe(0);
  expect((await cli(['profiles', 'use', 'canary'])).code).toBe(0);
});
afterAll(async () => {
  await mock?.close();
  sandbox.cleanup();
});

const signArgs = [
  'sign',
  '--method',
  'POST',
  '--path',
  '/api/v1/cards',
  '--data',
  '{"amount_minor":1}',
  '--timestamp',
  '1763800000',
  '--nonce',
  'n-1',
];

// Small independent groups: one long sequence of ~80 runs took 33 s at rest and timed out (60 s)
// under load. Run concurrently they only slowed each other on 2 cores, so they run one after another.
describe('the canary secret goes through every command', () => {
  it('profiles: add refused, list, show', async () => {
    const add = [
      'profiles',
      'add',
      'canary',
      '--key-id',
      KEY_ID,
      '--mode',
      'test',
      '--base-url',
      mock.baseUrl,
      '--secret-stdin',
      '--webhook-secret-stdin',
    ];
    expect((await cli(add, { input: `${CANARY}\n${WEBHOOK_CANARY}\n` })).code).toBe(2); // exists already
    expect(
      (
        await cli(['profiles', 'add', 'bad', '--key-id', 'nope', '--mode', 'test', '--secret-stdin'], {
          input: `${CANARY}\n`,
        })
      ).code,
    ).toBe(2);
    expect(
      (await cli(['profiles', 'add', 'flag', '--key-id', KEY_ID, '--mode', 'test', `--secret=${CANARY}`])).code,
    ).toBe(2);
    expect(
      (
        await cli(['profiles', 'add', 'short', '--key-id', KEY_ID, '--mode', 'test', '--secret-stdin'], {
          input: `${CANARY.slice(0, 40)}\n`,
        })
      ).code,
    ).toBe(2);
    await cli(['profiles', 'list']);
    await cli(['profiles', 'list', '--json']);
    await cli(['profiles', 'show', 'canary']);
    await cli(['profiles', 'show', 'canary', '--json']);
    // the settings in effect and the environment (docs/environment.md): a secret is only "set"
    await cli(['config']);
    await cli(['config', '-p', 'canary', '--json']);
  });

  it('request: success, API errors, local refusals, a money operation, verbose everywhere', async () => {
    const list = await cli(['request', 'GET', '/customers', '--verbose', '--json']);
    expect(list.code).toBe(0); // the canary secret really signed a request the mock accepted
    expect((await cli(['request', 'GET', '/cards/01JD2QA1B2C3D4E5F6G7H8J9KM', '--verbose'])).code).toBe(4);
    await cli(['request', 'POST', '/customers', '--data', `@${customer}`, '--verbose', '--include']);
    await cli([
      'request',
      'POST',
      '/cards',
      '--data',
      '{"customer_id":"01JD2QA1B2C3D4E5F6G7H8J9KM","amount_minor":1000}',
      '--idempotency-key',
      'canary-1',
      '--verbose',
      '--json',
    ]);
    await cli(['request', 'POST', '/cards', '--data', '{not json', '--verbose']);
    await cli(['request', 'GET', '/customers', '--verbose'], {
      env: {
        CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9XXX',
        CARDCTL_API_SECRET: CANARY,
        CARDCTL_BASE_URL: mock.baseUrl,
      },
    });
    await cli(['request', 'GET', '/customers', '--verbose', '--json'], {
      env: { CARDCTL_API_KEY: KEY_ID, CARDCTL_API_SECRET: CANARY, CARDCTL_BASE_URL: 'http://127.0.0.1:9/api/v1' },
    });
  });

  it('customers: create, refused, get, list, update', async () => {
    const created = await cli(['customers', 'create', '--from', customerFile, '--verbose', '--json']);
    expect(created.code).toBe(0);
    const customerId = JSON.parse(created.stdout).id as string;
    await cli(['customers', 'create', '--first-name', 'Ada', '--verbose']); // refused locally
    await cli(['customers', 'get', customerId, '--verbose']);
    await cli(['customers', 'list', '--all', '--ndjson', '--verbose']);
    await cli(['customers', 'update', customerId, '--status', 'active', '--verbose', '--json']);
  });

  it('cards: a whole life, refusals, live-only calls', async () => {
    const customerId = (await approvedCustomer(mock as unknown as MockHandle)).id as string;
    const issued = await cliChild([
      'cards',
      'issue',
      '--customer',
      customerId,
      '--amount',
      '1000',
      '--verbose',
      '--json',
    ]);
    expect(issued.code).toBe(0);
    const cardId = JSON.parse(issued.stdout).id as string;
    await cliChild(['cards', 'recharge', cardId, '--amount', '5', '--verbose']);
    await cliChild(['cards', 'freeze', cardId, '--verbose', '--json']);
    await cliChild(['cards', 'terminate', cardId, '--verbose']); // too new: refused
    await cliChild(['cards', 'transactions', cardId, '--verbose', '--json']);
    await cliChild(['cards', 'get', 'not-an-id', '--verbose']);
    await cliChild(['deposit-addresses', 'create', '--network', 'trc20', '--verbose', '--json']); // test key: 403
    await cliChild(['deposits', 'list', '--verbose']);
  });

  it('--dry-run: the canonical string it shows, never the signature the API would accept for it', async () => {
    const customerId = (await approvedCustomer(mock as unknown as MockHandle)).id as string;
    const shown = [
      await cliChild([
        'cards',
        'issue',
        '--customer',
        customerId,
        '--amount',
        '100',
        '--dry-run',
        '--json',
        '--verbose',
      ]),
      await cli(['request', 'POST', '/customers', '--data', `@${customer}`, '--dry-run', '--json']),
      await cli(['customers', 'list', '--dry-run', '--json']),
    ];
    for (const r of shown) {
      expect(r.code, r.stderr).toBe(0);
      const canonical = JSON.parse(r.stdout).request.canonical as string;
      const accepted = signRequest({
        method: canonical.split('\n')[0]!,
        path: canonical.split('\n')[1]!,
        query: canonical.split('\n')[2]!,
        keyId: KEY_ID,
        secret: CANARY,
        timestamp: canonical.split('\n')[4]!,
        nonce: canonical.split('\n')[5]!,
        body: Buffer.from(JSON.parse(r.stdout).request.body ?? '', 'utf8'),
      });
      expect(accepted.canonical).toBe(canonical); // the string shown is the one the signature covers
      for (const form of [accepted.signature, Buffer.from(accepted.signature, 'base64').toString('hex')])
        expect(r.stdout + r.stderr).not.toContain(form);
    }
    // the text for people, too (the last checks of this file look for the secret in every output)
    expect((await cli(['customers', 'list', '--dry-run', '--verbose'])).stdout).toContain('<signed at send time>');
  });

  it('the journal of money operations: list, export, repair, show, replay, resolve', async () => {
    const customerId = (await approvedCustomer(mock as unknown as MockHandle)).id as string;
    await cliChild([
      'request',
      'POST',
      '/cards',
      '--data',
      JSON.stringify({ customer_id: customerId, amount_minor: 700 }),
      '--idempotency-key',
      'canary-ops',
      '--json',
    ]);
    const ops = await cliChild(['ops', 'list', '--all', '--json']);
    await cliChild(['ops', 'list', '--unresolved']);
    await cliChild(['ops', 'list', '--all', '--ndjson']);
    await cliChild(['ops', 'verify', '--json']);
    const opId = (JSON.parse(ops.stdout || '{"data":[]}') as { data: Array<{ id: string }> }).data[0]?.id;
    expect(opId).toBeTruthy();
    await cliChild(['ops', 'show', opId!, '--json']);
    await cliChild(['ops', 'replay', opId!, '--verbose']);
    // an unknown outcome recorded by hand, and refused inputs
    await ctl(mock as unknown as MockHandle, 'POST', '/faults', { operation: 'issue', kind: 'async_202', count: 1 });
    expect(
      (
        await cliChild([
          'cards',
          'issue',
          '--customer',
          customerId,
          '--amount',
          '800',
          '--idempotency-key',
          'canary-resolve',
          '--verbose',
        ])
      ).code,
    ).toBe(7);
    await cliChild([
      'ops',
      'resolve',
      'canary-resolve',
      '--outcome',
      'failed',
      '--note',
      'checked in the portal',
      '--json',
    ]);
    await cliChild(['ops', 'resolve', 'canary-resolve', '--outcome', 'succeeded']);
    await cliChild(['ops', 'resolve', opId!, '--outcome', 'failed']); // resolved by the API: refused
    await cliChild(['ops', 'resolve', 'no-such-op', '--outcome', 'failed', '--json']);
  });

  it('local signing tools and the completion script', async () => {
    expect((await cli([...signArgs, '--json'])).code).toBe(0);
    expect((await cli(signArgs)).code).toBe(0);
    await cli([...signArgs, '--key-id', KEY_ID], { env: { CARDCTL_API_SECRET: CANARY } });
    await cli(['sign', '--method', 'GET', '--path', '/customers', '--query', 'a=%ZZ']);
    const signed = signRequest({
      method: 'POST',
      path: '/api/v1/cards',
      keyId: KEY_ID,
      secret: CANARY,
      timestamp: 1763800000,
      nonce: 'n-2',
      body: '{"a":1}',
    });
    const raw = (body: string, sig: string) =>
      `POST /api/v1/cards HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Api-Key: ${KEY_ID}\r\nX-Timestamp: 1763800000\r\nX-Nonce: n-2\r\nX-Signature: ${sig}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const good = join(sandbox.dir, 'good.http');
    const bad = join(sandbox.dir, 'bad.http');
    writeFileSync(good, raw('{"a":1}', signed.signature));
    writeFileSync(bad, raw('{"a": 1}', signed.signature));
    expect((await cli(['sign', 'diagnose', '--request', good])).code).toBe(0);
    expect((await cli(['sign', 'diagnose', '--request', bad, '--json'])).code).toBe(3);
    await cli(['sign', 'diagnose', '--request', bad]);
    await cli(['completion', 'bash']);
  });

  it('webhook signing and verifying', async () => {
    const header = await cli(['webhooks', 'sign', '--payload', payload, '--timestamp', '1763800000']);
    expect(header.code).toBe(0);
    await cli(['webhooks', 'sign', '--payload', payload, '--json']);
    expect(
      (
        await cli([
          'webhooks',
          'verify',
          '--header',
          header.stdout.trim(),
          '--payload',
          payload,
          '--now',
          '1763800000',
          '--json',
        ])
      ).code,
    ).toBe(0);
    expect((await cli(['webhooks', 'verify', '--header', header.stdout.trim(), '--payload', customer])).code).toBe(3);
    await cli(['webhooks', 'verify', '--header', 'garbage', '--payload', payload, '--json'], {
      env: { CARDCTL_WEBHOOK_SECRET: WEBHOOK_CANARY },
    });
  });

  for (const json of [[], ['--json']]) {
    it(`a secret typed as a flag value or a stray argument by mistake is not printed back${json.length ? ' (--json)' : ''}`, async () => {
      expect((await cli(['request', 'GET', '/customers', `--secret=${CANARY}`, ...json])).code).toBe(2);
      expect((await cli(['request', 'GET', '/customers', CANARY, ...json])).code).toBe(2);
      expect((await cli([...signArgs, `--secret=${CANARY}`, ...json])).code).toBe(2);
      expect(
        (
          await cli([
            'webhooks',
            'verify',
            '--header',
            'x',
            '--payload',
            payload,
            `--webhook-secret=${WEBHOOK_CANARY}`,
            ...json,
          ])
        ).code,
      ).toBe(2);
      expect((await cli(['cards', 'get', `--api-secret=${CANARY}`, '01JD2QA1B2C3D4E5F6G7H8J9KM', ...json])).code).toBe(
        2,
      );
    });
  }

  it('doctor, and a secret pasted where a name, an id or a short flag goes', async () => {
    expect((await cli(['doctor', '--verbose'])).code).toBe(0);
    await cli(['doctor', '--json']);
    expect((await cli(['cards', 'get', CANARY])).code).toBe(2);
    expect((await cli(['customers', 'list', '-p', CANARY, '--json'])).code).toBe(2);
    expect((await cli(['customers', 'list'], { env: { CARDCTL_PROFILE: CANARY } })).code).toBe(2);
    expect((await cli(['webhooks', 'listen', `-s${WEBHOOK_CANARY}`])).code).toBe(2);
    // the argument errors (usage lines, the closest flag): a secret typed as a flag, as a flag's
    // value, as a value refused, as a stray argument, as a word where a command goes
    for (const json of [[], ['--json']]) {
      expect((await cli(['cards', 'get', `--${CANARY}`, ...json])).code).toBe(2);
      expect((await cli(['cards', 'issue', `--ammount=${CANARY}`, '--customer', KEY_ID, ...json])).code).toBe(2);
      expect((await cli(['cards', 'issue', '--amount', CANARY, '--customer', KEY_ID, ...json])).code).toBe(2);
      expect((await cli(['mock', 'faults', 'add', '--operation', 'issue', '--kind', CANARY, ...json])).code).toBe(2);
      expect((await cli(['cards', 'get', KEY_ID, CANARY, ...json])).code).toBe(2);
      expect((await cli(['cards', 'list', CANARY, ...json])).code).toBe(2);
    }
  });

  it('bulk issue from a file, verbose and json', async () => {
    const customerId = (await approvedCustomer(mock as unknown as MockHandle)).id as string;
    const batchFile = join(sandbox.dir, 'batch.csv');
    writeFileSync(batchFile, `customer_id,amount_minor\n${customerId},100\n${customerId},200\n`);
    expect((await cliChild(['cards', 'issue', '--batch', batchFile, '--verbose'])).code).toBe(0);
    await cliChild(['cards', 'issue', '--batch', batchFile, '--json']);
    // a row refused with kyc_not_approved, with the hint for the customer's state (read with the canary key)
    const rejected = (await createCustomer(mock as unknown as MockHandle)).id as string;
    await ctl(mock as unknown as MockHandle, 'POST', `/customers/${rejected}/kyc`, {
      verdict: 'rejected',
      reason: 'document_expired',
    });
    const kycFile = join(sandbox.dir, 'batch-kyc.csv');
    writeFileSync(kycFile, `customer_id,amount_minor\n${customerId},300\n${rejected},400\n`);
    expect((await cliChild(['cards', 'issue', '--batch', kycFile, '--verbose'])).code).toBe(5);
    expect((await cliChild(['cards', 'issue', '--batch', kycFile, '--json'])).code).toBe(5);
  });

  it('no argument is read from stdin: a piped secret with the NAME or id forgotten is not printed back', async () => {
    const addNoName = ['profiles', 'add', '--key-id', KEY_ID, '--mode', 'test', '--secret-stdin'];
    for (const json of [[], ['--json']]) {
      const one = await cli([...addNoName, ...json], { input: `${CANARY}\n` });
      expect(one.code).toBe(2);
      expect(one.stdout + one.stderr).toMatch(/missing NAME/);
      expect(
        (await cli([...addNoName, '--webhook-secret-stdin', ...json], { input: `${CANARY}\n${WEBHOOK_CANARY}\n` }))
          .code,
      ).toBe(2);
      expect((await cli([...addNoName, ...json], { input: `${CANARY}\n${CANARY}\n` })).code).toBe(2);
      expect((await cli(['cards', 'get', ...json], { input: `${CANARY}\n` })).code).toBe(2);
      expect((await cli(['profiles', 'show', ...json], { input: `${CANARY}\n` })).code).toBe(2);
    }
    expect((await cli(['mock', 'kyc', '--verdict', 'approved'], { input: `${CANARY}\n` })).code).toBe(2);
  });

  it('a secret put in the wrong environment variable is not printed back', async () => {
    const env = { CARDCTL_API_KEY: KEY_ID, CARDCTL_API_SECRET: CANARY, CARDCTL_BASE_URL: mock.baseUrl };
    for (const json of [[], ['--json']]) {
      expect((await cli(['customers', 'list', ...json], { env: { ...env, CARDCTL_API_KEY: CANARY } })).code).toBe(2);
      expect((await cli(['customers', 'list', ...json], { env: { ...env, CARDCTL_MODE: CANARY } })).code).toBe(2);
      expect((await cli(['customers', 'list', ...json], { env: { ...env, CARDCTL_BASE_URL: CANARY } })).code).toBe(2);
      expect(
        (await cli(['mock', 'state', ...json], { env: { CARDCTL_MOCK_URL: CANARY, CARDCTL_MOCK_TOKEN: 'x' } })).code,
      ).toBe(2);
    }
    expect((await cli([...signArgs, '--profile', 'canary'], { env: { CARDCTL_BASE_URL: CANARY } })).code).toBe(0);
    expect(
      (
        await cli(['sign', '--method', 'GET', '--path', '/customers'], {
          env: { CARDCTL_API_KEY: KEY_ID, CARDCTL_API_SECRET: CANARY, CARDCTL_BASE_URL: CANARY },
        })
      ).code,
    ).toBe(2);
  });

  it('webhooks listen (registered on the mock) and trigger', async () => {
    const mockEnv = { CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken };
    const listening = cliChild(['webhooks', 'listen', '--mock', '--max-events', '1', '--json'], { env: mockEnv });
    const endpoints = async () =>
      (
        (await (
          await fetch(`${mock.controlUrl}/webhook-endpoints`, {
            headers: { Authorization: `Bearer ${mock.controlToken}` },
          })
        ).json()) as { data: unknown[] }
      ).data;
    for (let i = 0; i < 200 && (await endpoints()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect((await cli(['webhooks', 'trigger', 'card.issued', '--json'], { env: mockEnv })).code).toBe(0);
    await listening; // valid or not (the mock's merchant signs with its own secret), its output is checked below
  });

  it('webhooks listen --mock finds the mock by -p or CARDCTL_PROFILE (the canary profile), or says none runs there', async () => {
    // this mock was started in-process, so it has no record: the profile gives the address, CARDCTL_MOCK_TOKEN the token
    const token = { CARDCTL_MOCK_TOKEN: mock.controlToken };
    for (const [args, env] of [
      [['-p', 'canary'], token],
      [[], { ...token, CARDCTL_PROFILE: 'canary' }],
    ] as Array<[string[], Record<string, string>]>) {
      const listening = cliChild(['webhooks', 'listen', '--mock', '--max-events', '1', ...args], { env });
      const endpoints = async () =>
        (
          (await (
            await fetch(`${mock.controlUrl}/webhook-endpoints`, {
              headers: { Authorization: `Bearer ${mock.controlToken}` },
            })
          ).json()) as { data: unknown[] }
        ).data;
      for (let i = 0; i < 200 && (await endpoints()).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect((await cli(['webhooks', 'trigger', 'card.issued', '-p', 'canary', '--json'], { env: token })).code).toBe(
        0,
      );
      expect((await listening).code).toBe(3); // the mock signs with its own webhook secret, not the canary's: refused, and said so
    }
    for (const json of [[], ['--json']]) {
      expect((await cli(['webhooks', 'listen', '--mock', '-p', 'canary', ...json])).code).toBe(8); // no record, no token: no mock runs there
      expect((await cli(['webhooks', 'listen', '--mock', ...json], { env: { CARDCTL_PROFILE: 'canary' } })).code).toBe(
        8,
      );
      expect((await cli(['webhooks', 'listen', '--mock', ...json], { env: { CARDCTL_PROFILE: CANARY } })).code).toBe(2);
      // trigger in the mode of the profile that found the mock, and its refusals
      expect(
        (await cli(['webhooks', 'trigger', 'card.issued', ...json], { env: { ...token, CARDCTL_PROFILE: 'canary' } }))
          .code,
      ).toBe(0);
      expect((await cli(['webhooks', 'trigger', 'card.issued', '-p', 'canary', ...json])).code).toBe(8);
      expect(
        (await cli(['webhooks', 'trigger', 'card.issued', ...json], { env: { CARDCTL_PROFILE: CANARY } })).code,
      ).toBe(2);
    }
  });

  it('mock snapshot save, list, restore (the mock holds the canary key)', async () => {
    const mockEnv = { CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken };
    for (const json of [[], ['--json']]) {
      expect((await cli(['mock', 'snapshot', 'save', 'canary-state', ...json], { env: mockEnv })).code).toBe(0);
      expect((await cli(['mock', 'snapshot', 'list', ...json], { env: mockEnv })).code).toBe(0);
      expect((await cli(['mock', 'snapshot', 'restore', 'canary-state', ...json], { env: mockEnv })).code).toBe(0);
    }
    await cli(['mock', 'snapshot', 'restore', 'no-such-snapshot'], { env: mockEnv });
  });
});

describe('the canary secret never leaks', () => {
  it('the profile is removed', async () => {
    expect((await cli(['profiles', 'remove', 'canary'])).code).toBe(0);
  });

  it('runs webhooks test with the canary webhook secret: passing, failing, JUnit file, GitHub annotations', async () => {
    for (const kind of ['correct', 'no-verification'] as const) {
      const receiver = await startReceiver(kind, WEBHOOK_CANARY);
      try {
        const junit = join(sandbox.dir, 'reports', `webhooks-${kind}.xml`);
        const env = { CARDCTL_WEBHOOK_SECRET: WEBHOOK_CANARY, GITHUB_ACTIONS: 'true' };
        const graded = await cli(['webhooks', 'test', receiver.url, '--junit', junit], { env });
        expect(graded.code, graded.stdout + graded.stderr).toBe(kind === 'correct' ? 0 : 3);
        expect(readFileSync(junit, 'utf8')).toContain('<testsuite name="cardctl webhooks test"');
        await cli(['webhooks', 'test', receiver.url, '--json'], { env });
      } finally {
        await receiver.close();
      }
    }
  });

  it('runs smoke with the canary key: passing (text, --json, JUnit) and failing with the exchange in the details', async () => {
    const env = {
      CARDCTL_API_KEY: KEY_ID,
      CARDCTL_API_SECRET: CANARY,
      CARDCTL_BASE_URL: mock.baseUrl,
      CARDCTL_MODE: 'test',
      GITHUB_ACTIONS: 'true',
    };
    const junit = join(sandbox.dir, 'reports', 'smoke.xml');
    const passed = await cli(['smoke', '--junit', junit], { env });
    expect(passed.code, passed.stdout + passed.stderr).toBe(0);
    expect(readFileSync(junit, 'utf8')).toContain('<testsuite name="cardctl smoke"');
    await cli(['smoke', '--json'], { env });
    // an unknown key id with the canary secret: setup fails, the details carry the signed probes
    const failedJunit = join(sandbox.dir, 'reports', 'smoke-failed.xml');
    const failed = await cli(['smoke', '--junit', failedJunit, '--json'], {
      env: { ...env, CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9XXX' },
    });
    expect(failed.code).toBe(3);
    expect(readFileSync(failedJunit, 'utf8')).toContain('X-Signature: ');
    expect((await cli(['smoke'], { env: { ...env, CARDCTL_MODE: 'live' } })).code).toBe(2);
  });

  it('appears in no stdout or stderr of any of those runs', () => {
    expect(outputs.length).toBeGreaterThan(30);
    for (const { args, result } of outputs) {
      for (const form of FORMS) {
        expect(result.stdout.includes(form), `stdout of cardctl ${args.join(' ')} contains the secret`).toBe(false);
        expect(result.stderr.includes(form), `stderr of cardctl ${args.join(' ')} contains the secret`).toBe(false);
      }
    }
  });

  it('appears in no file but the profile store (journal, locks, config)', () => {
    const files = filesUnder(sandbox.dir).filter((f) => !f.endsWith('profiles.json'));
    expect(files.some((f) => f.endsWith('/journal.db'))).toBe(true); // the journal was written and is checked
    for (const file of files) {
      const text = readFileSync(file).toString('latin1');
      for (const form of FORMS) expect(text.includes(form), `${file} contains the secret`).toBe(false);
    }
  });
});
