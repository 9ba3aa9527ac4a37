// The journal's place, and the profile store's, are absolute (issue 36): a relative
// CARDCTL_STATE_DIR (CARDCTL_CONFIG_DIR) is refused, exit 2 saying why; a relative
// XDG_STATE_HOME (XDG_CONFIG_HOME) is ignored, as the XDG Base Directory specification says; an
// empty HOME with no other place is refused. Otherwise the journal followed the working
// directory, and the same command run from another folder the next day was charged again.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, cardBalance, type MockHandle } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let work: string;
let home: string;
let keys: Record<string, string>;
/** Only what each test names: no sandbox folders, the working directory `work`. */
const run = (args: string[], env: Record<string, string | undefined>) =>
  runCli(args, {
    cwd: work,
    env: {
      ...keys,
      HOME: home,
      CARDCTL_STATE_DIR: undefined,
      XDG_STATE_HOME: undefined,
      CARDCTL_CONFIG_DIR: undefined,
      XDG_CONFIG_HOME: undefined,
      ...env,
    },
  });

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 40, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  work = join(sb.dir, 'work');
  home = join(sb.dir, 'home');
  mkdirSync(work);
  mkdirSync(home);
  keys = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe("the journal's place", () => {
  it('a relative CARDCTL_STATE_DIR: exit 2 saying why, nothing sent, nothing written under the working directory', async () => {
    const card = await activeCard(mock, { amount: 100 });
    const r = await run(['cards', 'recharge', card.id, '--amount', '5', '--yes'], { CARDCTL_STATE_DIR: '.cardctl' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('CARDCTL_STATE_DIR is a relative path');
    expect(r.stderr).toContain('absolute path');
    expect(await cardBalance(mock, card.id)).toBe(100);
    expect(readdirSync(work)).toEqual([]);
    const doctor = await run(['doctor'], { CARDCTL_STATE_DIR: 'state' });
    expect(doctor.stdout + doctor.stderr).toContain('CARDCTL_STATE_DIR is a relative path');
  });

  it('a relative XDG_STATE_HOME is ignored: the journal is under $HOME/.local/state, whatever the working directory', async () => {
    const card = await activeCard(mock, { amount: 100 });
    const r = await run(['cards', 'recharge', card.id, '--amount', '5', '--idempotency-key', 'place-1'], {
      XDG_STATE_HOME: 'rel-state',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(work)).toEqual([]);
    expect(existsSync(join(home, '.local', 'state', 'cardctl'))).toBe(true);
    const list = await run(['ops', 'list', '--all', '--json'], { XDG_STATE_HOME: 'elsewhere' });
    expect(JSON.parse(list.stdout).data.map((e: { idempotency_key: string }) => e.idempotency_key)).toContain(
      'place-1',
    );
  });

  it('an empty HOME with no other place: exit 2 naming HOME, nothing sent', async () => {
    const card = await activeCard(mock, { amount: 100 });
    const r = await run(['cards', 'recharge', card.id, '--amount', '5', '--yes'], { HOME: '', XDG_STATE_HOME: 'rel' });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('there is no absolute place for the operations journal: HOME is empty or relative');
    expect(await cardBalance(mock, card.id)).toBe(100);
    expect(readdirSync(work)).toEqual([]);
  });
});

describe("the profile store's place", () => {
  const add = ['profiles', 'add', 'p1', '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--secret-stdin', '--mode', 'test'];
  it('a relative CARDCTL_CONFIG_DIR: exit 2 saying why', async () => {
    const r = await runCli(['profiles', 'list'], { cwd: work, env: { HOME: home, CARDCTL_CONFIG_DIR: 'conf' } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('CARDCTL_CONFIG_DIR is a relative path');
    expect(readdirSync(work)).toEqual([]);
  });

  it('a relative XDG_CONFIG_HOME is ignored: the store is under $HOME/.config', async () => {
    const r = await runCli(add, {
      cwd: work,
      env: { HOME: home, XDG_CONFIG_HOME: 'conf', XDG_STATE_HOME: join(sb.dir, 'st') },
      input: `${Buffer.alloc(32, 1).toString('base64')}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(work)).toEqual([]);
    expect(existsSync(join(home, '.config', 'cardctl'))).toBe(true);
  });

  it('an empty HOME with no other place: exit 2', async () => {
    const r = await runCli(['profiles', 'list'], { cwd: work, env: { HOME: '', XDG_CONFIG_HOME: 'conf' } });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('there is no absolute place for the profile store');
  });
});
