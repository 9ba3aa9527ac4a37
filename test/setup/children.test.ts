// The teardown guarantee of test/setup/children.ts: a test that fails, or times out, while the
// children it started (spawn, execFile, beforeAll) still run leaves none behind. Runs a fixture
// file under its own vitest (test/fixtures/teardown) and checks each recorded pid is gone.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

/** Whether the process runs: a zombie (killed, not yet reaped by whoever inherited it) does not. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return true; // no /proc: kill(0) said it exists
  }
}

/** The pids still running once a SIGKILL sent in teardown had time to land (up to 2 s). */
function running(pids: number[]): number[] {
  for (let i = 0; i < 40 && pids.some(alive); i++) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  return pids.filter(alive);
}

it('children of failed and timed-out tests are killed in teardown', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-teardown-'));
  const pidsFile = join(dir, 'pids');
  let pids: number[] = [];
  try {
    const run = spawnSync(
      process.execPath,
      [
        join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
        'run',
        '--config',
        'test/fixtures/teardown/vitest.config.ts',
      ],
      {
        cwd: ROOT,
        env: { ...process.env, PIDS_FILE: pidsFile },
        encoding: 'utf8',
        timeout: 15_000,
      },
    );
    expect(run.stdout + run.stderr).toMatch(/2 failed/); // the fixture's tests did fail
    pids = readFileSync(pidsFile, 'utf8').trim().split('\n').map(Number);
    expect(pids).toHaveLength(3);
    expect(running(pids)).toEqual([]);
  } finally {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
