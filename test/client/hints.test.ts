// Hints that must not mislead (issue 11, item 2, and the exit code of item 4): the built CLI
// against the real mock (and, for a 500 the mock cannot give yet, the scripted signed server).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { createCustomer, getCustomer, UNKNOWN_ULID, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliOptions, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startSignedServer, type SignedServer } from '../helpers/signed-server.js';

let mock: MockHandle;
let srv: SignedServer;
let sb: Sandbox;
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sb)(args, options);
let testEnv: Record<string, string>;
let liveEnv: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 21, providerLatencyMs: 0 })) as unknown as MockHandle;
  srv = await startSignedServer();
  sb = makeSandbox();
  const common = { CARDCTL_BASE_URL: mock.baseUrl };
  testEnv = {
    ...common,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  liveEnv = {
    ...common,
    CARDCTL_API_KEY: mock.keys.live.keyId,
    CARDCTL_API_SECRET: mock.keys.live.secret,
    CARDCTL_MODE: 'live',
  };
});
afterAll(async () => {
  await mock?.close();
  await srv?.close();
  sb?.cleanup();
});

describe('kyc_not_approved: the hint follows the customer state', () => {
  it('rejected: the reason, then customers update and customers kyc; never "wait"', async () => {
    const c = await createCustomer(mock, { overrides: { last_name: 'Reject' } });
    expect((await getCustomer(mock, c.id)).kyc_status).toBe('rejected');
    const r = await runIn(['cards', 'issue', '--customer', c.id, '--amount', '500', '--idempotency-key', 'kyc-rej-1'], {
      env: testEnv,
    });
    expect(r.code, r.stderr).toBe(5);
    expect(r.stderr).toContain('kyc_not_approved');
    expect(r.stderr).toContain('rejected (identity_mismatch)');
    expect(r.stderr).toContain(`cardctl customers update ${c.id}`);
    expect(r.stderr).toContain(`cardctl customers kyc ${c.id}`);
    expect(r.stderr).not.toMatch(/wait for approval/i);
  });

  it('pending: wait (or poll), then the same command', async () => {
    const c = await createCustomer(mock, { mode: 'live' });
    expect((await getCustomer(mock, c.id, 'live')).kyc_status).toBe('pending');
    const r = await runIn(
      ['cards', 'issue', '--customer', c.id, '--amount', '500', '--idempotency-key', 'kyc-pend-1', '--yes', '--json'],
      { env: liveEnv },
    );
    expect(r.code, r.stderr).toBe(5);
    const e = JSON.parse(r.stdout).error;
    expect(e.code).toBe('kyc_not_approved');
    expect(e.hint).toContain('pending verification: wait');
    expect(e.hint).toContain(`cardctl customers get ${c.id}`);
  });
});

describe('404', () => {
  it('names every id the request carried', async () => {
    const r = await runIn(
      [
        'cards',
        'issue',
        '--customer',
        UNKNOWN_ULID,
        '--product',
        mock.products[0]!.id,
        '--amount',
        '500',
        '--idempotency-key',
        'nf-1',
      ],
      { env: testEnv },
    );
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain(`customer ${UNKNOWN_ULID}`);
    expect(r.stderr).toContain(`product ${mock.products[0]!.id}`);
    expect(r.stderr).toContain(`cardctl customers get ${UNKNOWN_ULID}`);
  });

  it('an unmatched route says the path is wrong, not the id', async () => {
    const r = await runIn(['request', 'GET', '/cardz/01JD2QZZZZZZZZZZZZZZZZZZZZ'], { env: testEnv });
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toContain('the path (or the method) is wrong, not an id');
    expect(r.stderr).not.toContain('Check the id');
  });

  it('a single id is named', async () => {
    const r = await runIn(['cards', 'get', UNKNOWN_ULID], { env: testEnv });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(`Check the card id ${UNKNOWN_ULID}`);
  });
});

describe('profiles remove of a name that does not exist', () => {
  it('suggests profiles list, not profiles add', async () => {
    await runIn(['profiles', 'add', 'ci', '--key-id', mock.keys.test.keyId, '--mode', 'test', '--secret-stdin'], {
      input: `${mock.keys.test.secret}\n`,
    });
    const r = await runIn(['profiles', 'remove', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cardctl profiles list');
    expect(r.stderr).toContain('ci');
    expect(r.stderr).not.toContain('profiles add nope');
  });
});

describe('a 500 on a call that moves no money', () => {
  it('is exit 8, "the service failed: retry later", not "report it"', async () => {
    srv.script({ status: 500, body: { success: false, message: 'Server error.', errors: {} } });
    const r = await runIn(['cards', 'get', UNKNOWN_ULID], { env: srv.env() });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('the service failed (500)');
    expect(r.stderr).toContain('retry later');
    expect(r.stderr).not.toMatch(/report it/);
  });
});
