// Hints that name what the user actually used, and refusals that say the state the user can see
// (issue 19, item 5): the built CLI against the real mock.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, advance, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliOptions, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

let mock: MockHandle;
let sb: Sandbox;
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sb)(args, options);
let env: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 19, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('a refusal for the card state says which state', () => {
  it('freeze on a frozen card: "already frozen", what would work, exit 5; --json carries the same', async () => {
    const card = await activeCard(mock);
    expect((await runIn(['cards', 'freeze', card.id], { env })).code).toBe(0);
    const again = await runIn(['cards', 'freeze', card.id], { env });
    expect(again.code).toBe(5);
    expect(again.stderr).toBe(
      `Error: card ${card.id} is already frozen: nothing was changed.\n  card: invalid_state\nTo let it spend again: \`cardctl cards unfreeze ${card.id}\`.\n`,
    );
    const json = await runIn(['cards', 'freeze', card.id, '--json'], { env });
    expect(JSON.parse(json.stdout).error).toMatchObject({
      code: 'invalid_state',
      message: `card ${card.id} is already frozen: nothing was changed.`,
      hint: `To let it spend again: \`cardctl cards unfreeze ${card.id}\`.`,
    });
    expect((await runIn(['cards', 'unfreeze', card.id], { env })).code).toBe(0);
    const active = await runIn(['cards', 'unfreeze', card.id], { env });
    expect(active.code).toBe(5);
    expect(active.stderr).toContain(`card ${card.id} is already active (not frozen): nothing was changed.`);
  });

  it('a recharge on a terminated card: terminated, issue a new one', async () => {
    const card = await activeCard(mock);
    await advance(mock, 3600);
    expect((await runIn(['cards', 'terminate', card.id], { env })).code).toBe(0);
    const r = await runIn(['cards', 'recharge', card.id, '--amount', '100'], { env });
    expect(r.code).toBe(5);
    expect(r.stderr).toContain(`card ${card.id} is terminated: nothing was changed.`);
    expect(r.stderr).toContain('issue a new one');
  });
});

describe('an unreachable API: the hint names where the base URL came from', () => {
  const key = {
    CARDCTL_API_KEY: '01JD2QA1B2C3D4E5F6G7H8J9KM',
    CARDCTL_API_SECRET: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXh4eHg=',
  };
  it('CARDCTL_BASE_URL, the default, or the profile (and how it was chosen)', async () => {
    const byEnv = await runIn(['customers', 'list', '--retries', '0'], {
      env: { ...key, CARDCTL_BASE_URL: 'http://127.0.0.1:9' },
    });
    expect(byEnv.code).toBe(8);
    expect(byEnv.stderr).toContain('Check CARDCTL_BASE_URL and that the service is up');
    expect(byEnv.stderr).not.toContain('of the profile');
    // The default base URL is the mock's fixed address, 127.0.0.1:4010, which may be in use on this
    // machine (the README runs the mock there): the request goes through a proxy of this test that
    // answers every request with a redirect, whose hint names the base URL's origin the same way.
    const redirector = http.createServer((_req, res) =>
      res.writeHead(301, { Location: 'https://portal.example.invalid/' }).end(),
    );
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', () => r()));
    try {
      const proxy = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`;
      const byDefault = await runIn(['customers', 'list', '--retries', '0', '--json'], {
        env: { ...key, CARDCTL_BASE_URL: '', HTTP_PROXY: proxy, http_proxy: proxy, NO_PROXY: '', no_proxy: '' },
      });
      const { error } = JSON.parse(byDefault.stdout);
      expect(error.message).toContain('GET http://127.0.0.1:4010/api/v1/customers');
      expect(error.hint).toMatch(
        /^Check the default base URL \(http:\/\/127\.0\.0\.1:4010\/api\/v1, the local mock: CARDCTL_BASE_URL is not set\)/,
      );
    } finally {
      redirector.closeAllConnections();
      await new Promise<void>((r) => redirector.close(() => r()));
    }
    const add = await runIn(
      [
        'profiles',
        'add',
        'far',
        '--key-id',
        key.CARDCTL_API_KEY,
        '--mode',
        'test',
        '--base-url',
        'http://127.0.0.1:9',
        '--secret-stdin',
      ],
      { input: `${key.CARDCTL_API_SECRET}\n` },
    );
    expect(add.code, add.stderr).toBe(0);
    expect((await runIn(['customers', 'list', '--retries', '0', '-p', 'far'])).stderr).toContain(
      'Check the base URL of profile "far" (--profile)',
    );
    expect(
      (await runIn(['customers', 'list', '--retries', '0'], { env: { CARDCTL_PROFILE: 'far' } })).stderr,
    ).toContain('Check the base URL of profile "far" (CARDCTL_PROFILE)');
  });
});

describe('a signature the server refuses: the hint names the secret in use', () => {
  it('CARDCTL_API_SECRET for credentials from the environment, the profile otherwise', async () => {
    const wrong = Buffer.alloc(32, 7).toString('base64'); // 44 base64 characters, not the key's secret
    const byEnv = await runIn(['customers', 'list', '--json'], { env: { ...env, CARDCTL_API_SECRET: wrong } });
    expect(byEnv.code).toBe(3);
    expect(JSON.parse(byEnv.stdout).error).toMatchObject({
      code: 'invalid_signature',
      hint: expect.stringContaining(
        `check that the secret of CARDCTL_API_SECRET belongs to key ${mock.keys.test.keyId}`,
      ),
    });
    const add = await runIn(
      [
        'profiles',
        'add',
        'wrongsecret',
        '--key-id',
        mock.keys.test.keyId,
        '--mode',
        'test',
        '--base-url',
        mock.baseUrl,
        '--secret-stdin',
      ],
      { input: `${wrong}\n` },
    );
    expect(add.code, add.stderr).toBe(0);
    expect((await runIn(['customers', 'list', '-p', 'wrongsecret'])).stderr).toContain(
      'check that the secret of profile "wrongsecret" belongs to key',
    );
  });
});
