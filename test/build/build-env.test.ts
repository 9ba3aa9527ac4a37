// The build runs the oclif dev tool; its "oclif update available" warning printed on every build
// (issue 11, item 7). scripts/build.mjs runs its tools with toolEnv(), which turns the check off.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script, without types
import { toolEnv } from '../../scripts/tool-env.mjs';
import { ROOT } from '../helpers/cli.js';

const cache = mkdtempSync(join(tmpdir(), 'cardctl-oclif-cache-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));
// a fresh cached registry answer naming a newer oclif, as after a real check: no network needed
mkdirSync(join(cache, 'oclif'));
writeFileSync(join(cache, 'oclif', 'version'), JSON.stringify({ latest: '99.0.0' }));

/** stdout and stderr of `oclif --version` (the dev tool the build runs) in this environment. */
function oclifOutput(env: NodeJS.ProcessEnv): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'oclif', 'bin', 'run.js'), '--version'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 20_000,
  });
  return `${r.stdout}${r.stderr}`;
}

describe('build tool environment', () => {
  it('the oclif dev tool warns about its own updates, but not in the environment the build gives it', () => {
    const base: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cache };
    delete base.OCLIF_SKIP_NEW_VERSION_CHECK;
    expect(oclifOutput(base)).toContain('update available'); // the case the build must avoid
    const quiet = oclifOutput(toolEnv(base));
    expect(quiet).toContain('oclif/');
    expect(quiet).not.toContain('update available');
  });

  it('scripts/build.mjs runs its tools in that environment', () => {
    expect(readFileSync(join(ROOT, 'scripts', 'build.mjs'), 'utf8')).toMatch(/env: toolEnv\(\)/);
  });
});
