// A state folder that cannot be written (XDG_STATE_HOME on a file, a file where the journal's
// folder should be): every money command refuses with exit 2 (a configuration the user fixes,
// as an unreadable profile store), names the folder and what to do, and sends nothing (the
// mock's request log and wallet prove it); `doctor` reports it (issue 21 decisions, item 3).
// The built CLI against the mock on port 0. (Tests run as root here, where a read-only folder is
// still writable: a file in the way gives the same refusal, ENOTDIR or EEXIST.)
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, approvedCustomer, ctl, wallet, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let apiEnv: Record<string, string>;
let customerId: string;
let cardId: string;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 91, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  apiEnv = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  customerId = (await approvedCustomer(mock)).id;
  cardId = (await activeCard(mock, { customerId })).id;
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

/** API requests the mock answered after request `after` (its log; reading the log is not logged). */
async function apiRequestsAfter(after: number): Promise<Array<{ method: string; path: string }>> {
  return ctl(mock, 'GET', `/requests?plane=api&after=${after}&order=oldest&limit=1000`);
}
async function lastRequest(): Promise<number> {
  const [newest] = await ctl<Array<{ id: string }>>(mock, 'GET', '/requests?limit=1');
  return newest ? Number(newest.id.replace('req_', '')) : 0;
}

describe('a state folder that cannot be written', () => {
  const aFile = (): string => {
    const path = join(sb.dir, `not-a-folder-${Math.random().toString(16).slice(2)}`);
    writeFileSync(path, 'a file, not a folder\n');
    return path;
  };

  it('XDG_STATE_HOME on a file: issue, recharge, terminate and --batch exit 2 naming the folder and what to do; nothing is sent', async () => {
    const xdg = aFile();
    const env = { ...apiEnv, XDG_STATE_HOME: xdg };
    const before = await wallet(mock, 'test');
    const since = await lastRequest();
    const batch = join(sb.dir, 'issue.csv');
    writeFileSync(batch, `customer_id,amount_minor\r\n${customerId},500\r\n`);
    for (const args of [
      ['cards', 'issue', '--customer', customerId, '--amount', '500'],
      ['cards', 'recharge', cardId, '--amount', '300'],
      ['cards', 'terminate', cardId, '--yes'],
      ['cards', 'issue', '--batch', batch],
    ]) {
      const r = await sb.run(args, { env });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      // the folder named from the variable, its value never quoted (docs/profiles.md)
      expect(r.stderr).toContain('cannot write the operations journal in $XDG_STATE_HOME/cardctl');
      expect(r.stderr).toContain('a part of that path is a file, not a folder');
      expect(r.stderr).toContain('it is $XDG_STATE_HOME/cardctl');
      expect(r.stdout + r.stderr).not.toContain(xdg);
      expect(r.stderr).toMatch(
        /Fix its permissions .*or set XDG_STATE_HOME \(or CARDCTL_STATE_DIR\) to a folder you can write/,
      );
      expect(r.stderr).not.toMatch(/unexpected|    at /);
      expect(r.stdout).not.toMatch(/^1 /m); // no batch row line: the whole batch is refused up front
    }
    expect(await apiRequestsAfter(since)).toEqual([]);
    expect(await wallet(mock, 'test')).toEqual(before);
  });

  it('--json: the error object with code state_folder_unwritable, exit 2', async () => {
    const r = await sb.run(['cards', 'recharge', cardId, '--amount', '300', '--json'], {
      env: { ...apiEnv, CARDCTL_STATE_DIR: join(aFile(), 'state') },
    });
    expect(r.code, r.stderr).toBe(2);
    const { error } = JSON.parse(r.stdout);
    expect(error.code).toBe('state_folder_unwritable');
    expect(error.message).toMatch(/the money operation was not sent\.$/);
    expect(error.hint).toMatch(/it is CARDCTL_STATE_DIR\).*set CARDCTL_STATE_DIR to a folder you can write/);
  });

  it("a folder where the journal's database should be: exit 2, nothing sent; ops list says the same", async () => {
    const xdg = join(sb.dir, 'state-with-folder');
    mkdirSync(join(xdg, 'cardctl', 'journal.db'), { recursive: true });
    const env = { ...apiEnv, XDG_STATE_HOME: xdg };
    const since = await lastRequest();
    const r = await sb.run(['cards', 'issue', '--customer', customerId, '--amount', '500'], { env });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('a folder is where a file should be');
    expect(await apiRequestsAfter(since)).toEqual([]);
    const ops = await sb.run(['ops', 'list'], { env });
    expect(ops.code, ops.stderr).toBe(2);
    expect(ops.stderr).toContain('cannot write the operations journal in $XDG_STATE_HOME/cardctl');
  });

  it('a state folder that is a symbolic link to nowhere: exit 2 naming the link and what to do, nothing sent; ops list says the same', async () => {
    const link = join(sb.dir, `state-link-${Math.random().toString(16).slice(2)}`);
    symlinkSync(join(sb.dir, 'no-such-folder'), link);
    for (const env of [
      { ...apiEnv, CARDCTL_STATE_DIR: link },
      { ...apiEnv, XDG_STATE_HOME: sb.dir, CARDCTL_STATE_DIR: undefined },
    ]) {
      if (!env.CARDCTL_STATE_DIR) symlinkSync(join(sb.dir, 'no-such-folder'), join(sb.dir, 'cardctl'));
      const variable = env.CARDCTL_STATE_DIR ? '$CARDCTL_STATE_DIR' : '$XDG_STATE_HOME/cardctl';
      const since = await lastRequest();
      for (const args of [
        ['cards', 'issue', '--customer', customerId, '--amount', '500'],
        ['ops', 'list'],
      ]) {
        const r = await sb.run(args, { env });
        expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
        expect(r.stderr).toContain(
          `${variable} is a symbolic link to ${join(sb.dir, 'no-such-folder')}, which does not exist`,
        );
        expect(r.stderr).toMatch(
          /Create the folder the link points to, remove the link .*, or set .*CARDCTL_STATE_DIR.* to a folder you can write/,
        );
        expect(r.stderr).not.toMatch(/unexpected|    at /);
      }
      expect(await apiRequestsAfter(since)).toEqual([]);
    }
  });

  it('doctor fails its journal check with the same message and hint, exit 2; with a writable folder the same command works', async () => {
    const xdg = aFile();
    const r = await sb.run(['doctor'], { env: { ...apiEnv, XDG_STATE_HOME: xdg } });
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(r.stdout).toMatch(
      /✗ journal +cannot write the operations journal in .*money operations are refused until it can be written/,
    );
    expect(r.stdout).toContain('it is $XDG_STATE_HOME/cardctl');
    expect(r.stdout).not.toContain(xdg);
    const ok = await sb.run(['cards', 'recharge', cardId, '--amount', '300', '--json'], { env: apiEnv });
    expect(ok.code, ok.stderr).toBe(0);
  });
});
