// CARDCTL_BASE_URL and CARDCTL_MODE count only with CARDCTL_API_KEY + CARDCTL_API_SECRET. With a
// profile in use they are not used, and cardctl says so on stderr when they would have changed
// where the request goes: a user who exported CARDCTL_BASE_URL for a sandbox while the default
// profile points elsewhere learned nothing, and the request (a money one too) went to the profile's URL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type MockServer } from '../../src/mock/index.js';
import { makeSandbox } from '../helpers/cli.js';

const sb = makeSandbox();
let mock: MockServer;

beforeAll(async () => {
  mock = await startMock({ port: 0, seed: 5, providerLatencyMs: 0 });
  const add = await sb.run(
    [
      'profiles',
      'add',
      'here',
      '--key-id',
      mock.keys.test.keyId,
      '--mode',
      'test',
      '--base-url',
      mock.baseUrl,
      '--secret-stdin',
    ],
    { input: `${mock.keys.test.secret}\n` },
  );
  expect(add.code, add.stderr).toBe(0);
});
afterAll(async () => {
  await mock?.close();
  sb.cleanup();
});

describe('CARDCTL_BASE_URL and CARDCTL_MODE beside a profile', () => {
  it('are named as not used, with the URL and mode the profile sends to', async () => {
    const r = await sb.run(['customers', 'list', '--json'], {
      env: { CARDCTL_BASE_URL: 'https://sandbox.example.com/api/v1' },
    });
    expect(r.code, r.stderr).toBe(0); // sent to the profile's mock, as the precedence says
    expect(r.stderr).toContain(
      `Note: CARDCTL_BASE_URL is set but not used: the credentials are profile "here"'s (the default profile), which sends to ${mock.baseUrl} (test).`,
    );
    const both = await sb.run(['customers', 'list', '-p', 'here', '--json'], {
      env: { CARDCTL_BASE_URL: 'https://sandbox.example.com/api/v1', CARDCTL_MODE: 'live' },
    });
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).toContain('Note: CARDCTL_BASE_URL and CARDCTL_MODE are set but not used');
    expect(both.stderr).toContain('(--profile)');
  });

  it('say nothing when they agree with the profile, or when they go with CARDCTL_API_KEY', async () => {
    const same = await sb.run(['customers', 'list', '--json'], {
      env: { CARDCTL_BASE_URL: mock.baseUrl, CARDCTL_MODE: 'test' },
    });
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).not.toContain('not used');
    const env = await sb.run(['customers', 'list', '--json'], {
      env: {
        CARDCTL_BASE_URL: mock.baseUrl,
        CARDCTL_API_KEY: mock.keys.test.keyId,
        CARDCTL_API_SECRET: mock.keys.test.secret,
      },
    });
    expect(env.code, env.stderr).toBe(0);
    expect(env.stderr).not.toContain('not used');
  });
});
