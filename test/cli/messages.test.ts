// Messages that teach the way out (issue 38): an amount given in major units says what it is in
// minor units; a profile whose key a restarted mock no longer knows is told to restart it with
// --save-profiles. (A card left pending by an async_202 fault, whose --wait names
// `mock provision`: test/cli/quiet-output.test.ts, "--wait says its replay line once".)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

let sb: Sandbox;
const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  inProcessRunner(sb)(args, { env, input });
const mocks: MockHandle[] = [];

beforeAll(() => {
  sb = makeSandbox();
});
afterAll(async () => {
  for (const m of mocks) await m.close();
  sb?.cleanup();
});

describe('amounts are whole minor units', () => {
  it.each([
    [['cards', 'issue', '--customer', '01J0000000000000000000000A', '--amount', '50.00'], '50.00 is --amount 5000'],
    [['cards', 'issue', '--customer', '01J0000000000000000000000A', '--amount', '50'], undefined],
    [['cards', 'recharge', '01J0000000000000000000000A', '--amount', '12.5'], '12.5 is --amount 1250'],
    [['cards', 'recharge', '01J0000000000000000000000A', '--amount', '0,99'], '0,99 is --amount 99'],
  ])('%j', async (args, said) => {
    const r = await run(args, {
      CARDCTL_API_KEY: 'k',
      CARDCTL_API_SECRET: 's',
      CARDCTL_BASE_URL: 'http://127.0.0.1:9/api/v1',
    });
    if (said === undefined) {
      expect(r.stderr).not.toMatch(/minor units \(cents\)/); // a whole number is not refused for that
      return;
    }
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--amount takes whole minor units (cents): ${said}.`);
    expect(r.stderr).not.toMatch(/at Object|\.js:\d+/);
  });

  it('a word is still "expects a whole number"', async () => {
    const r = await run(['cards', 'recharge', '01J0000000000000000000000A', '--amount', 'ten']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--amount expects a whole number of at least 1\./);
  });
});

describe('a mock restarted without --save-profiles', () => {
  it('names the restart with --save-profiles, for a profile it saved and for one of the user', async () => {
    const before = (await startMock({ port: 0, seed: 1, providerLatencyMs: 0 })) as unknown as MockHandle;
    // the "restart": another mock with new keys, at the address the profiles point to
    await before.close();
    const after = (await startMock({ port: before.port, providerLatencyMs: 0 })) as unknown as MockHandle;
    mocks.push(after);
    expect(after.keys.test.keyId).not.toBe(before.keys.test.keyId);
    for (const name of ['mock-test', 'sandbox']) {
      const added = await run(
        [
          'profiles',
          'add',
          name,
          '--key-id',
          before.keys.test.keyId,
          '--mode',
          'test',
          '--base-url',
          before.baseUrl,
          '--secret-stdin',
        ],
        {},
        `${before.keys.test.secret}\n`,
      );
      expect(added.code, added.stderr).toBe(0);
      const r = await run(['customers', 'list', '-p', name]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain('Restart it with `cardctl mock start --save-profiles`');
      if (name === 'sandbox') expect(r.stderr).toContain('then use `-p mock-test`');
      expect(r.stderr).not.toContain(before.keys.test.secret);
    }
  });
});
