// `--timeout SECONDS` (issue 22 item 3): the deadline of each attempt, from the flag, then
// CARDCTL_TIMEOUT, then the profile's `timeout`, then 30 s. The mock's `slow` fault holds one
// answer; a counting proxy in front of the mock shows that a bad value sends nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, ctl, wallet, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliOptions, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';

let mock: MockHandle;
let proxy: CountingProxy;
let sb: Sandbox;
let env: Record<string, string>;
let card: { id: string; balance_minor: number };

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 22, providerLatencyMs: 0 })) as unknown as MockHandle;
  proxy = await startCountingProxy(mock.baseUrl);
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: proxy.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  card = await activeCard(mock);
  // a profile with a short deadline, for the profile's place in the order
  const add = await run(
    [
      'profiles',
      'add',
      'short',
      '--key-id',
      mock.keys.test.keyId,
      '--mode',
      'test',
      '--base-url',
      proxy.baseUrl,
      '--secret-stdin',
      '--timeout',
      '0.5',
    ],
    { input: `${mock.keys.test.secret}\n` },
  );
  expect(add.code, add.stderr).toBe(0);
});
afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  sb?.cleanup();
});

/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox; the money operation is a child process. */
const run = (args: string[], options?: CliOptions) => inProcessRunner(sb)(args, options);

/** The next cards.get answers after `ms`. */
const slowGet = (ms: number) => ctl(mock, 'POST', '/faults', { operation: 'cards.get', kind: 'slow', ms });

describe('--timeout', () => {
  it('ends an attempt that takes longer (exit 8, no answer), through the fast path and through oclif', async () => {
    for (const noFastPath of ['', '1']) {
      await slowGet(3000);
      const r = await run(['cards', 'get', card.id, '--retries', '0', '--timeout', '0.5'], {
        env: { ...env, CARDCTL_NO_FAST_PATH: noFastPath },
      });
      expect(r.code, r.stderr).toBe(8);
      expect(r.stderr).toContain('no answer');
    }
  });

  it('wins over CARDCTL_TIMEOUT, which wins over the profile, which wins over the default', async () => {
    await slowGet(1500);
    const flagWins = await run(['cards', 'get', card.id, '--retries', '0', '--timeout', '20', '--json'], {
      env: { ...env, CARDCTL_TIMEOUT: '0.5' },
    });
    expect(flagWins.code, flagWins.stderr).toBe(0);
    expect(JSON.parse(flagWins.stdout).id).toBe(card.id);

    await slowGet(1500);
    const envShort = await run(['cards', 'get', card.id, '--retries', '0'], {
      env: { ...env, CARDCTL_TIMEOUT: '0.5' },
    });
    expect(envShort.code, envShort.stderr).toBe(8);

    await slowGet(1500);
    const profileShort = await run(['cards', 'get', card.id, '--retries', '0', '-p', 'short']);
    expect(profileShort.code, profileShort.stderr).toBe(8);

    await slowGet(1500);
    const envOverProfile = await run(['cards', 'get', card.id, '--retries', '0', '-p', 'short'], {
      env: { CARDCTL_TIMEOUT: '20' },
    });
    expect(envOverProfile.code, envOverProfile.stderr).toBe(0);

    await slowGet(1500);
    const byDefault = await run(['cards', 'get', card.id, '--retries', '0'], { env });
    expect(byDefault.code, byDefault.stderr).toBe(0);
  });

  it('a money operation past the deadline is outcome unknown (exit 7) with the key to replay', async () => {
    await ctl(mock, 'POST', '/faults', { operation: 'cards.recharge', kind: 'slow', ms: 3000 });
    const r = await sb.run(
      [
        'cards',
        'recharge',
        card.id,
        '--amount',
        '50',
        '--idempotency-key',
        'timeout-1',
        '--retries',
        '0',
        '--timeout',
        '0.5',
      ],
      { env },
    );
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('timeout-1');
    await new Promise((resolve) => setTimeout(resolve, 3000)); // the held answer completes on the mock
    const again = await sb.run(
      ['cards', 'recharge', card.id, '--amount', '50', '--idempotency-key', 'timeout-1', '--json'],
      { env },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).balance_minor).toBe(card.balance_minor + 50); // once, not twice
  });

  it('a bad value is exit 2 naming where it came from, and nothing is sent', async () => {
    const before = proxy.seen.length;
    const balance = (await wallet(mock)).balance_minor;
    const cases: Array<{ args: string[]; env?: Record<string, string>; says: string }> = [
      { args: ['cards', 'get', card.id, '--timeout', 'soon'], says: '--timeout "soon" is not a number of seconds' },
      { args: ['cards', 'get', card.id, '--timeout', '0'], says: '--timeout 0 is out of range' },
      { args: ['cards', 'get', card.id, '--timeout', '1e3'], says: 'not a number of seconds' },
      {
        args: ['cards', 'get', card.id],
        env: { CARDCTL_TIMEOUT: '30s' },
        says: 'CARDCTL_TIMEOUT is not a number of seconds',
      },
      { args: ['cards', 'recharge', card.id, '--amount', '5', '--timeout', '90000'], says: 'at most 86400 seconds' },
      { args: ['customers', 'list', '--timeout', 'x', '--json'], says: '--timeout \\"x\\"' },
      { args: ['doctor', '--timeout', 'x'], says: '--timeout "x"' },
      { args: ['smoke', '--timeout', 'x'], says: '--timeout "x"' },
    ];
    for (const c of cases) {
      const r = await run(c.args, { env: { ...env, ...c.env } });
      expect(r.code, `${c.args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr + r.stdout).toContain(c.says);
      expect(r.stderr + r.stdout).toContain('e.g. --timeout 30');
    }
    expect(proxy.seen.length).toBe(before);
    expect((await wallet(mock)).balance_minor).toBe(balance);
  });

  it('profiles add --timeout stores seconds, shown by profiles show; a bad one saves nothing', async () => {
    const shown = await run(['profiles', 'show', 'short', '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ name: 'short', timeout: 0.5 });
    const bad = await run(
      [
        'profiles',
        'add',
        'bad',
        '--key-id',
        mock.keys.test.keyId,
        '--mode',
        'test',
        '--secret-stdin',
        '--timeout',
        'later',
      ],
      { input: `${mock.keys.test.secret}\n` },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--timeout "later"');
    expect((await run(['profiles', 'show', 'bad'])).code).not.toBe(0);
  });
});
