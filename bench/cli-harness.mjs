// What the whole-process benchmarks of cardctl share (bench/startup.mjs, bench/scripting.mjs,
// bench/binary.mjs): the bench mock in its own process (bench/serve-mock.mjs, since the runs are
// timed with spawnSync, which blocks this event loop) with a profile `bench` read from a
// temporary config folder and a temporary journal, as a user's shell loop would run them; and
// the runs taken in rounds, every case once a round, so that the machine's noise spreads over
// all the cases evenly and each round's runs share the machine's state of the moment.
//
// Every child runs without NODE_EXTRA_CA_CERTS unless a bench passes its own `unsetEnv`: Node 20
// parses that file at every process start (about 85 ms of CPU when it is the whole system
// certificate store, as on these machines, against ~35 ms for the rest of `node -e 0`), Node 22
// and newer only when TLS needs it. With it set, every whole-process figure carries a cost a
// user's machine does not have, and a ratio to `node -e 0` is deflated (the same 85 ms on both
// sides). A bench prints what it costs here with `extraCaCertsInfo`.
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
/** NODE_EXTRA_CA_CERTS of this shell, or undefined: the children run without it (see above) */
export const extraCaCerts = process.env.NODE_EXTRA_CA_CERTS;
/** what the benches remove from their children's environment by default (BENCH_KEEP_EXTRA_CA_CERTS=1: nothing, to compare with figures taken before 2026-11-26) */
export const UNSET_BY_DEFAULT = process.env.BENCH_KEEP_EXTRA_CA_CERTS === '1' ? [] : ['NODE_EXTRA_CA_CERTS'];

/**
 * Starts the bench mock and a temporary folder, adds the profile, and runs
 * `measure({ fixture, env, tmp })`: `fixture` is serve-mock's line ({baseUrl, keyId, secret,
 * customerId, cardId, minLoad}), `env` this shell's environment with no CARDCTL_* variable but
 * the temporary config, state and cache folders, and none of `unsetEnv` (NODE_EXTRA_CA_CERTS by
 * default). Stops the mock and removes the folder after.
 */
export async function withBenchMock(measure, { tmpPrefix = 'cardctl-bench-', unsetEnv = UNSET_BY_DEFAULT } = {}) {
  const tmp = mkdtempSync(join(tmpdir(), tmpPrefix));
  const mock = spawn(node, [join(root, 'bench', 'serve-mock.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const fixture = JSON.parse(
      await new Promise((resolve, reject) => {
        createInterface({ input: mock.stdout }).once('line', resolve);
        mock.once('exit', (code) => reject(new Error(`the bench mock exited (${code})`)));
      }),
    );
    // (the code caches of the start-up bundle too: each case's warm-up run writes its own, as a user's first run does)
    const kept = {
      CARDCTL_CONFIG_DIR: join(tmp, 'config'),
      CARDCTL_STATE_DIR: join(tmp, 'state'),
      CARDCTL_CACHE_DIR: join(tmp, 'cache'),
    };
    const env = { ...process.env, ...kept, NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && !Object.hasOwn(kept, k)) delete env[k];
    for (const k of unsetEnv) delete env[k];
    const added = spawnSync(
      node,
      [
        bin,
        'profiles',
        'add',
        'bench',
        '--key-id',
        fixture.keyId,
        '--mode',
        'test',
        '--base-url',
        fixture.baseUrl,
        '--secret-stdin',
      ],
      { env, input: `${fixture.secret}\n` },
    );
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

/** What a bench prints after a ratio: '' for information only (target null), else ok or OVER the target. */
export function verdict(ratio, target) {
  if (target === null || target === undefined) return '';
  return ratio <= target ? `ok (target <= ${target}x)` : `OVER target ${target}x`;
}

/**
 * When this shell sets NODE_EXTRA_CA_CERTS: the case that times `node -e 0` with it, to pair
 * against `node -e 0` without it (`env` the children's environment), so a bench can print one
 * info line saying what the variable costs every process start here. {} when it is not set.
 */
export function extraCaCertsCase(env) {
  return extraCaCerts && !env.NODE_EXTRA_CA_CERTS
    ? {
        'node -e 0 with NODE_EXTRA_CA_CERTS (info)': [node, ['-e', '0'], { ...env, NODE_EXTRA_CA_CERTS: extraCaCerts }],
      }
    : {};
}

/** The info line for extraCaCertsCase's runs against `baseName`'s (both in `times`), or '' when not set. */
export function extraCaCertsInfo(times, baseName, fmt) {
  const name = 'node -e 0 with NODE_EXTRA_CA_CERTS (info)';
  if (!times[name]) return '';
  const cost = median(times[name].map((t, i) => t - times[baseName][i]));
  return `  info: NODE_EXTRA_CA_CERTS is set here (${extraCaCerts}); the runs above are without it. With it, node -e 0 takes ${fmt(cost, 1)} ms more (ratio=${fmt(pairedRatio(times, name, baseName))}), paid by every process start on Node 20 (Node 22+ reads it only when TLS needs it)`;
}
