// The resource commands (cards, customers, deposit-addresses, deposits) end to end: the built
// CLI against the embedded mock, checked against the mock's own books. Rendering, flags and
// refusals run the CLI in this process (test/helpers/in-process.ts); the money paths (an issue
// charged once, its replay, a recharge and the refund, --wait, a 202, the live confirmation) as
// child processes.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  advance,
  approvedCustomer,
  ctl,
  customerInput,
  getCustomer,
  wallet,
  type MockHandle,
} from '../helpers/api.js';
import { BIN, makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

let mock: MockHandle;
let sb: Sandbox;
let testEnv: Record<string, string>;
let liveEnv: Record<string, string>;
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox: rendering, flags, refusals. */
const run = (args: string[], extra: Record<string, string> = {}, input?: string) =>
  inProcessRunner(sb)(args, { env: { ...testEnv, ...extra }, input });
const live = (args: string[]) => inProcessRunner(sb)(args, { env: liveEnv });
/** ... and as a child process: the money paths end to end (charged once, replays, --wait, 202, the live confirmation). */
const spawnRun = (args: string[], extra: Record<string, string> = {}, input?: string) =>
  sb.run(args, { env: { ...testEnv, ...extra }, input });
const liveSpawned = (args: string[]) => sb.run(args, { env: liveEnv });
const json = (r: CliResult): any => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

/** CustomerInput as flags: `first_name` -> `--first-name VALUE`, `true` -> the bare flag. */
/** The mock's counts of everything (customers, cards, idempotency keys, ...), without the clock. */
async function counts(): Promise<Record<string, unknown>> {
  const { clock: _clock, ...rest } = (await ctl(mock, 'GET', '/state')) as Record<string, unknown>;
  return rest;
}

function customerFlags(input: Record<string, unknown>): string[] {
  return Object.entries(input).flatMap(([k, v]) =>
    v === true ? [`--${k.replace(/_/g, '-')}`] : [`--${k.replace(/_/g, '-')}`, String(v)],
  );
}

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 11, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  const common = { CARDCTL_BASE_URL: mock.baseUrl };
  testEnv = {
    ...common,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  liveEnv = {
    ...sb.env,
    ...common,
    CARDCTL_API_KEY: mock.keys.live.keyId,
    CARDCTL_API_SECRET: mock.keys.live.secret,
    CARDCTL_MODE: 'live',
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('customers', () => {
  it('create takes one flag per field, answers 202 unsubmitted, and get then shows the test-mode approval', async () => {
    const input = customerInput({ country: 'nga' });
    const created = json(await run(['customers', 'create', ...customerFlags(input), '--json']));
    expect(created).toMatchObject({
      first_name: 'Ada',
      last_name: input.last_name,
      country: 'NGA',
      id_number_last4: '5678',
      status: 'active',
    });
    expect(created.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const shown = await run(['customers', 'get', created.id.toLowerCase()]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^kyc_status\s+approved$/m);
    expect(shown.stdout).toMatch(new RegExp(`^id\\s+${created.id}$`, 'm'));
  });

  it('--from FILE gives the fields and flags override them; --id-front-image @FILE sends the file base64-encoded', async () => {
    const image = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 250]);
    writeFileSync(join(sb.dir, 'front.jpg'), image);
    writeFileSync(
      join(sb.dir, 'cust.json'),
      JSON.stringify(customerInput({ id_type: 'passport', country: 'GBR', first_name: 'Grace' })),
    );
    const created = json(
      await run([
        'customers',
        'create',
        '--from',
        join(sb.dir, 'cust.json'),
        '--first-name',
        'Hopper',
        '--id-front-image',
        `@${join(sb.dir, 'front.jpg')}`,
        '--json',
      ]),
    );
    expect(created).toMatchObject({ first_name: 'Hopper', id_type: 'passport', country: 'GBR' });
    // The mock refuses a document customer without an image, so the created one proves it arrived.
    const fromStdin = json(
      await run(['customers', 'create', '--from', '-', '--json'], {}, JSON.stringify(customerInput())),
    );
    expect(fromStdin.first_name).toBe('Ada');
  });

  it("a bad body is refused before sending (exit 2) with the API's own field messages, and nothing reaches the mock", async () => {
    const before = await counts();
    const r = await run([
      'customers',
      'create',
      ...customerFlags(customerInput({ date_of_birth: '2015-01-01', phone_number: '+44 12' })),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing was sent');
    expect(r.stderr).toMatch(/date_of_birth: .*18/);
    expect(r.stderr).toMatch(/phone_number: /);
    const viaJson = JSON.parse((await run(['customers', 'create', '--first-name', 'Ada', '--json'])).stdout);
    expect(viaJson.error).toMatchObject({ code: 'validation_failed', status: null });
    expect(viaJson.error.errors).toHaveProperty('email');
    expect(viaJson.error.errors).not.toHaveProperty('first_name');
    expect(await counts()).toEqual(before);
  });

  it('update --status disabled keeps the verification and blocks new issues (exit 5); an empty update is refused', async () => {
    const customer = await approvedCustomer(mock);
    const updated = json(await run(['customers', 'update', customer.id, '--status', 'disabled', '--json']));
    expect(updated).toMatchObject({ id: customer.id, status: 'disabled', kyc_status: 'approved' });
    const refused = await run(['cards', 'issue', '--customer', customer.id, '--amount', '1000', '--json']);
    expect(refused.code).toBe(5);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ status: 422, code: 'invalid' });
    const empty = await run(['customers', 'update', customer.id]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('nothing to update');
  });

  it('kyc resubmits a customer and list shows customers newest first, one page or all of them', async () => {
    const customer = await approvedCustomer(mock);
    expect(json(await run(['customers', 'kyc', customer.id, '--json']))).toMatchObject({
      id: customer.id,
      kyc_status: 'approved',
    }); // 200, unchanged
    await ctl(mock, 'POST', `/customers/${customer.id}/kyc`, { verdict: 'rejected' });
    expect(json(await run(['customers', 'get', customer.id, '--json']))).toMatchObject({ kyc_status: 'rejected' });
    expect(json(await run(['customers', 'kyc', customer.id, '--json']))).toMatchObject({
      id: customer.id,
      kyc_status: 'pending',
    }); // 202, resubmitted
    expect(json(await run(['customers', 'get', customer.id, '--json']))).toMatchObject({ kyc_status: 'approved' }); // test mode: the verdict comes at once
    const page = json(await run(['customers', 'list', '--per-page', '1', '--json']));
    expect(page.data).toHaveLength(1);
    expect(page.meta).toMatchObject({ per_page: 1, has_more: true });
    const all = json(await run(['customers', 'list', '--all', '--per-page', '2', '--json']));
    expect(all.meta).toMatchObject({ has_more: false, next_cursor: null }); // the last page's: no cursor left to follow
    const state = (await ctl(mock, 'GET', '/state')) as { customers: number };
    expect(all.data).toHaveLength(state.customers);
    expect(all.data[0].id).toBe(page.data[0].id);
    expect(new Set(all.data.map((c: { id: string }) => c.id)).size).toBe(all.data.length);
    const table = await run(['customers', 'list', '--per-page', '1']);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+EMAIL\s+TYPE\s+KYC\s+STATUS\s+CREATED$/);
    expect(table.stderr).toMatch(/More customers: add --cursor \S+/);
    const next = /--cursor (\S+)/.exec(table.stderr)![1]!;
    const second = json(await run(['customers', 'list', '--per-page', '1', '--cursor', next, '--json']));
    expect(second.data[0].id).toBe(all.data[1].id);
  });
});

describe('cards', () => {
  it('issue charges load plus fee once; the same command again returns the same card', async () => {
    const customer = await approvedCustomer(mock);
    const before = await wallet(mock, 'test');
    const args = [
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '4000',
      '--idempotency-key',
      'res-issue-1',
      '--json',
    ];
    const card = json(await spawnRun(args));
    expect(card).toMatchObject({ customer_id: customer.id, status: 'active', balance_minor: 4000, mode: 'test' });
    expect(json(await spawnRun(args)).id).toBe(card.id);
    const fee = mock.products.find((p) => p.default)!.issue_fee_minor;
    expect(before.balance_minor - (await wallet(mock, 'test')).balance_minor).toBe(4000 + fee);
    const journal = json(await spawnRun(['ops', 'list', '--all', '--json'])).data as Array<{
      idempotency_key: string;
      outcome: string;
      resource_id: string;
    }>;
    expect(
      journal
        .filter((e) => e.idempotency_key === 'res-issue-1')
        .every((e) => e.outcome === 'resolved' && e.resource_id === card.id),
    ).toBe(true);
  });

  it('without --idempotency-key a key is generated and printed on stderr, and a retyped command with it replays', async () => {
    const customer = await approvedCustomer(mock);
    const first = await spawnRun(['cards', 'issue', '--customer', customer.id, '--amount', '100', '--json']);
    const key = /Idempotency-Key: (\S+) \(generated/.exec(first.stderr)?.[1];
    expect(key).toBeDefined();
    const again = json(
      await spawnRun([
        'cards',
        'issue',
        '--customer',
        customer.id,
        '--amount',
        '100',
        '--idempotency-key',
        key!,
        '--json',
      ]),
    );
    expect(again.id).toBe(json(first).id);
  });

  it('recharge, freeze, unfreeze, terminate: each state change, its refusals and exit codes, and the refund', async () => {
    const card = await activeCard(mock, { amount: 1000 });
    expect(json(await spawnRun(['cards', 'recharge', card.id, '--amount', '250', '--json'])).balance_minor).toBe(1250);
    const frozen = await spawnRun(['cards', 'freeze', card.id]);
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(frozen.stdout).toMatch(/^status\s+frozen$/m);
    const twice = await spawnRun(['cards', 'freeze', card.id]);
    expect(twice.code).toBe(5);
    expect(twice.stderr).toContain('invalid_state');
    expect(json(await spawnRun(['cards', 'unfreeze', card.id, '--json'])).status).toBe('active');
    const young = await spawnRun(['cards', 'terminate', card.id, '--reason', 'lost']);
    expect(young.code).toBe(5);
    expect(young.stderr).toContain('termination_blocked');
    await advance(mock, 3601);
    const before = await wallet(mock, 'test');
    const done = json(await spawnRun(['cards', 'terminate', card.id, '--reason', 'lost', '--json']));
    expect(done).toMatchObject({ id: card.id, status: 'terminated' });
    expect((await wallet(mock, 'test')).balance_minor - before.balance_minor).toBe(1250);
    expect((await spawnRun(['cards', 'recharge', card.id, '--amount', '1'])).code).toBe(5);
  });

  it('refuses bad ids and amounts before sending (exit 2); an unknown card is exit 4', async () => {
    const notId = await run(['cards', 'get', 'card_123']);
    expect(notId.code).toBe(2);
    expect(notId.stderr).toContain('26-character ULID');
    expect((await run(['cards', 'recharge', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--amount', '0'])).code).toBe(2);
    expect(
      (await run(['cards', 'issue', '--customer', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--amount', '100000001'])).code,
    ).toBe(2);
    expect((await run(['cards', 'terminate', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--reason', 'bored'])).code).toBe(2);
    const missing = await run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W']);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('not found');
  });

  it('transactions: a page as a table with the next cursor on stderr, --all --ndjson streams every row newest first', async () => {
    const card = await activeCard(mock);
    for (const amount of [100, 200, 300, 400, 500]) {
      await ctl(mock, 'POST', `/cards/${card.id}/transactions`, {
        type: 'capture',
        status: 'completed',
        amount_minor: amount,
        occurred_at: `2026-01-0${amount / 100}T10:00:00Z`,
      });
    }
    const page = await run(['cards', 'transactions', card.id, '--per-page', '2']);
    expect(page.code, page.stderr).toBe(0);
    const lines = page.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^ID\s+TYPE\s+STATUS\s+AMOUNT_MINOR\s+CURRENCY\s+OCCURRED$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[3])).toEqual(['500', '400']);
    expect(page.stderr).toMatch(/More transactions: add --cursor \S+ \(or --all/);
    const streamed = await run(['cards', 'transactions', card.id, '--per-page', '2', '--all', '--ndjson']);
    expect(streamed.code, streamed.stderr).toBe(0);
    expect(
      streamed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).amount_minor),
    ).toEqual([500, 400, 300, 200, 100]);
    const both = await run(['cards', 'transactions', card.id, '--json', '--ndjson']);
    expect(both.code).toBe(2);
  });

  it('--wait replays a 202 until the card is active, charged once; without it the pending card exits 7', async () => {
    const customer = await approvedCustomer(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: 'async_202', count: 1 });
    const before = await wallet(mock, 'test');
    const child = spawn(
      process.execPath,
      [
        BIN,
        'cards',
        'issue',
        '--customer',
        customer.id,
        '--amount',
        '800',
        '--idempotency-key',
        'res-wait-1',
        '--wait',
        '--json',
      ],
      {
        env: { ...process.env, ...sb.env, ...testEnv, NO_COLOR: '1' },
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
    // the mock holds the pending card; find it once the first replay says which one it is
    let pendingId: string | undefined;
    for (let i = 0; i < 100 && !pendingId; i++) {
      await new Promise((r) => setTimeout(r, 100));
      pendingId = /pending \(card (\w{26})\)/.exec(stderr)?.[1];
    }
    expect(pendingId, stderr).toBeDefined();
    await ctl(mock, 'POST', `/cards/${pendingId}/provision`, { outcome: 'active' });
    expect(await exited, stderr).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ id: pendingId, status: 'active', balance_minor: 800 });
    const fee = mock.products.find((p) => p.default)!.issue_fee_minor;
    expect(before.balance_minor - (await wallet(mock, 'test')).balance_minor).toBe(800 + fee);
    // one journal entry for the issue and its replays, resolved with the card
    const entries = (
      json(await spawnRun(['ops', 'list', '--all', '--json'])).data as Array<{
        idempotency_key: string;
        outcome: string;
        resource_id: string | null;
        status: number;
      }>
    ).filter((e) => e.idempotency_key === 'res-wait-1');
    expect(entries).toEqual([expect.objectContaining({ outcome: 'resolved', resource_id: pendingId, status: 201 })]);

    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: 'async_202', count: 1 });
    const timedOut = await spawnRun([
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '800',
      '--idempotency-key',
      'res-wait-2',
      '--wait',
      '--wait-timeout',
      '1',
    ]);
    expect(timedOut.code).toBe(7);
    expect(timedOut.stderr).toContain('still pending after 1 s');
    expect(timedOut.stderr).toContain('res-wait-2');
    expect(timedOut.stdout).toMatch(/^status\s+pending$/m);
    const unresolved = json(await spawnRun(['ops', 'list', '--unresolved', '--all', '--json'])).data as Array<{
      idempotency_key: string;
    }>;
    expect(unresolved.map((e) => e.idempotency_key)).toContain('res-wait-2');
  });

  it('a 202 with --json prints one JSON value, the error with the key to replay (exit 7)', async () => {
    const customer = await approvedCustomer(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: 'async_202', count: 1 });
    const r = await spawnRun([
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '300',
      '--idempotency-key',
      'res-202-json',
      '--json',
    ]);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stdout)).toMatchObject({ error: { status: 202, idempotency_key: 'res-202-json' } });
    // replayed while pending: the API answers the pending card, and the error carries it (the id to poll)
    const again = await spawnRun([
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '300',
      '--idempotency-key',
      'res-202-json',
      '--json',
    ]);
    expect(again.code).toBe(7);
    expect(JSON.parse(again.stdout).error).toMatchObject({
      status: 202,
      data: { status: 'pending', customer_id: customer.id },
    });
  });
});

describe('funding (live keys only)', () => {
  it('deposit-addresses: 403 for a test key (exit 3); a live key gets one address per network, the same one again', async () => {
    const refused = await run(['deposit-addresses', 'create', '--network', 'trc20']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(/live keys only/i);
    const first = json(await live(['deposit-addresses', 'create', '--network', 'trc20', '--json']));
    expect(first).toMatchObject({ network: 'trc20' });
    expect(json(await live(['deposit-addresses', 'create', '--network', 'trc20', '--json'])).id).toBe(first.id);
    const listed = json(await live(['deposit-addresses', 'list', '--json']));
    expect(listed).toEqual({
      data: [expect.objectContaining({ id: first.id, network: 'trc20' })],
      meta: { has_more: false, next_cursor: null },
    });
    const offNetwork = await live(['deposit-addresses', 'create', '--network', 'sol']);
    expect(offNetwork.code).toBe(2);
  });

  it('deposits list shows what the mock credited, and the live wallet moved by it', async () => {
    await ctl(mock, 'POST', '/deposits', { network: 'erc20', asset_amount: '25.75' });
    const rows = json(await live(['deposits', 'list', '--json']));
    expect(rows.data[0]).toMatchObject({
      network: 'erc20',
      asset_amount: '25.75',
      credited_amount_minor: 2575,
      status: 'credited',
    });
    expect((await wallet(mock, 'live')).deposits_credited_minor).toBeGreaterThanOrEqual(2575);
    const table = await live(['deposits', 'list']);
    expect(table.stdout).toMatch(/erc20\s+USDT\s+25\.75\s+2575\s+USD\s+credited/);
  });

  it('a live card issue needs --yes when nobody can confirm', async () => {
    const customer = await getCustomer(mock, (await approvedCustomer(mock)).id, 'live');
    const before = await counts();
    const refused = await liveSpawned(['cards', 'issue', '--customer', customer.id, '--amount', '500']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(refused.stderr).not.toContain('Idempotency-Key'); // nothing was sent: no key to replay
    expect(await counts()).toEqual(before);
  });
});
