// Issue 21 item 4: with CI=true or --no-input cardctl never prompts, even on a terminal; it fails at once
// naming the flag to pass. `script` gives the child a real pseudo-terminal as stdin.
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, fundLive, wallet, type MockHandle } from '../helpers/api.js';
import { BIN, makeSandbox } from '../helpers/cli.js';

const sandbox = makeSandbox();
afterAll(() => sandbox.cleanup());

function onTerminal(args: string, env: Record<string, string>) {
  const quoted = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args}`;
  return spawnSync('script', ['-qec', quoted, '/dev/null'], {
    env: { ...process.env, ...sandbox.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 20_000,
    killSignal: 'SIGKILL',
  });
}

describe('CI=true on a terminal', () => {
  it('profiles add fails at once instead of prompting for the secret, naming --secret-stdin', () => {
    const r = onTerminal('profiles add ci --key-id 01JD2Q7N8V3K4M5P6R7S8T9V0W --mode test', { CI: 'true' });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stdout).toContain('CI is set');
    expect(r.stdout).toContain('--secret-stdin');
    expect(r.stdout).not.toContain('not shown');
  });
});

describe('--no-input on a terminal (CI unset)', () => {
  let mock: MockHandle;
  beforeAll(async () => {
    mock = (await startMock({ port: 0, seed: 21, providerLatencyMs: 0 })) as unknown as MockHandle;
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('profiles add fails at once naming --secret-stdin and saying --no-input is why', () => {
    const r = onTerminal('profiles add noinput --key-id 01JD2Q7N8V3K4M5P6R7S8T9V0W --mode test --no-input', { CI: '' });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stdout).toContain('--no-input is given');
    expect(r.stdout).toContain('--secret-stdin');
    expect(r.stdout).not.toContain('not shown');
  });

  it('a live recharge fails at once naming --yes, and nothing is charged (both the fast path and oclif)', async () => {
    await fundLive(mock);
    const card = await activeCard(mock, { mode: 'live' });
    const before = await wallet(mock, 'live');
    const live = {
      CI: '',
      CARDCTL_BASE_URL: mock.baseUrl,
      CARDCTL_API_KEY: mock.keys.live.keyId,
      CARDCTL_API_SECRET: mock.keys.live.secret,
      CARDCTL_MODE: 'live',
    };
    // the key's mode is learned first (from the card's answer; src/client/key-mode.ts): the mock runs in this process, which spawnSync below blocks
    expect((await sandbox.run(['cards', 'get', card.id], { env: live })).code).toBe(0);
    for (const noFastPath of ['', '1']) {
      const r = onTerminal(`cards recharge ${card.id} --amount 100 --no-input`, {
        ...live,
        CARDCTL_NO_FAST_PATH: noFastPath,
      });
      expect(r.signal).toBeNull();
      expect(r.status).toBe(2);
      expect(r.stdout).toContain('Pass --yes');
      expect(r.stdout).toContain('--no-input is given');
    }
    expect(await wallet(mock, 'live')).toEqual(before);
  });
});
