// One --state file, however it is named (issue 29): a second `mock start` on a symlink to the
// file of a running mock, on `sub/../file`, or on a hard link of it is refused, naming the mock
// that owns it; the symlink is left as it was, and once the owner stops a mock started on the
// symlink reads the owner's state (not a copy of its own).
import { linkSync, lstatSync, mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createCustomer, ctl, handleFromBanner } from '../helpers/api.js';
import { makeSandbox } from '../helpers/cli.js';
import { refusedMockStart, startMockProcess, type MockProcess } from '../helpers/mock-process.js';

const sandbox = makeSandbox();
const running: MockProcess[] = [];
afterAll(async () => {
  for (const m of running) await m.stop();
  sandbox.cleanup();
});

it('a second mock on the same state file is refused whatever the name; the symlink stays a symlink', async () => {
  const dir = join(sandbox.dir, 'states');
  mkdirSync(join(dir, 'sub'), { recursive: true });
  const file = join(dir, 'state.json');
  const owner = await startMockProcess(sandbox, ['--state', file, '--seed', '7']);
  running.push(owner);
  const handle = handleFromBanner(owner.banner);
  for (let i = 0; i < 3; i++) await createCustomer(handle);

  const link = join(dir, 'link.json');
  symlinkSync('state.json', link);
  const hard = join(dir, 'hard.json');
  linkSync(file, hard);
  for (const name of [link, join(dir, 'sub', '..', 'state.json'), hard]) {
    const refused = await refusedMockStart(sandbox, ['--state', name]);
    expect(refused.code, `${name}: ${refused.stderr}`).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`in use by (another|a running) mock \\(pid ${owner.child.pid}`));
  }
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
  expect(readlinkSync(link)).toBe('state.json');

  expect(await owner.stop()).toBe(0);
  const viaLink = await startMockProcess(sandbox, ['--state', link]);
  running.push(viaLink);
  const state = await ctl(handleFromBanner(viaLink.banner), 'GET', '/_mock/state');
  expect(state.customers).toBe(3);
  expect(await viaLink.stop()).toBe(0);
  expect(lstatSync(link).isSymbolicLink()).toBe(true);
});
