// What the whole-process benchmarks of cardctl share (bench/startup.mjs, bench/scripting.mjs,
// bench/binary.mjs): the bench mock in its own process (bench/serve-mock.mjs, since the runs are
// timed with spawnSync, which blocks this event loop) with a profile `bench` read from a
// temporary config folder and a temporary journal, as a user's shell loop would run them; and
// the runs taken in rounds, every case once a round, so that the machine's noise spreads over
// all the cases evenly and each round's runs share the machine's state of the moment.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { median, timeRun } from './lib.mjs';

export const root = fileURLToPath(new URL('..', import.meta.url));
/** the npm install's entry point */
export const bin = join(root, 'bin', 'run.js');
export const node = process.execPath;

/**
 * Starts the bench mock and a temporary folder, adds the profile, and runs
 * `measure({ fixture, env, tmp })`: `fixture` is serve-mock's line ({baseUrl, keyId, secret,
 * customerId, cardId, minLoad}), `env` this shell's environment with no CARDCTL_* variable but
 * the temporary config and state folders, and none of `unsetEnv`. Stops the mock and removes
 * the folder after.
 */
export async function withBenchMock(measure, { tmpPrefix = 'cardctl-bench-', unsetEnv = [] } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
  const mock = spawn(node, [join(root, 'bench', 'serve-mock.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const fixture = JSON.parse(await new Promise((resolve, reject) => {
      createInterface({ input: mock.stdout }).once('line', resolve);
      mock.once('exit', (code) => reject(new Error(`the bench mock exited (${code})`)));
    }));
    const env = { ...process.env, CARDCTL_CONFIG_DIR: join(tmp, 'config'), CARDCTL_STATE_DIR: join(tmp, 'state'), NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && k !== 'CARDCTL_CONFIG_DIR' && k !== 'CARDCTL_STATE_DIR') delete env[k];
    for (const k of unsetEnv) delete env[k];
    const added = spawnSync(node, [bin, 'profiles', 'add', 'bench', '--key-id', fixture.keyId, '--mode', 'test', '--base-url', fixture.baseUrl, '--secret-stdin'], { env, input: `${fixture.secret}\n` });
    if (added.status !== 0) throw new Error(`profiles add: ${added.stderr}`);
    return await measure({ fixture, env, tmp });
  } finally {
    mock.kill('SIGTERM');
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Runs each case once to warm the file cache, then `rounds` rounds of every case in the order
 * given. `cases`: { name: [command, args, env] }. Returns { name: [ms of round 1, ...] }.
 */
export function timeInRounds(cases, rounds) {
  const entries = Object.entries(cases);
  for (const [, [cmd, args, env]] of entries) timeRun(cmd, args, { env });
  const times = Object.fromEntries(entries.map(([name]) => [name, []]));
  for (let i = 0; i < rounds; i++) {
    for (const [name, [cmd, args, env]] of entries) times[name].push(timeRun(cmd, args, { env }));
  }
  return times;
}

/** The median of the round-by-round ratios a / b: the two runs of a round share the machine's state, so drift cancels. */
export function pairedRatio(times, a, b) {
  return median(times[a].map((t, i) => t / times[b][i]));
}
