// The journal shared by a fleet (PostgreSQL on loopback, fsync on) against the local SQLite file,
// measured in the same run (docs/journal.md, "A journal shared by a fleet"; issue 35's targets):
// 1. a money command (`cards recharge`) with each, alternating: wall time, the ratio of medians;
// 2. `ops copy --to` of a local journal of N resolved operations into the shared one: operations a second;
// 3. a batch rerun of those N rows answered from each journal (nothing sent): rows a second and
//    peak RSS (bench/report-rss.cjs).
// BENCH_PG_URL uses a server of yours (a database the bench may fill); else one is started with
// the tests' harness. BENCH_SHARED_ROWS=100000 the rerun's rows; BENCH_RUNS=9 the timed commands.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { batchFixtures } from './batch-fixture.mjs';
import { fmt, median } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const node = process.execPath;
const ROWS = Number(process.env.BENCH_SHARED_ROWS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const work = mkdtempSync(join(tmpdir(), 'cardctl-bench-shared-'));

/** A child serving until its stdin closes, and the JSON line it printed first. */
async function server(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'], cwd: root });
  const line = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  return { info: JSON.parse(line), stop: () => child.stdin.end() };
}

const mockServer = await server(node, [join(root, 'bench', 'serve-mock.mjs')]);
const pgServer = process.env.BENCH_PG_URL
  ? { info: { url: process.env.BENCH_PG_URL }, stop: () => {} }
  : await server(node, [join(root, 'node_modules', 'vite-node', 'vite-node.mjs'), join('bench', 'postgres-server.ts')]);
const info = mockServer.info;
const pgUrl = pgServer.info.url;
// the timed processes run without NODE_EXTRA_CA_CERTS (these machines set it; Node parses it at every start)
const { NODE_EXTRA_CA_CERTS: _ca, ...outerEnv } = process.env;
const env = {
  ...outerEnv,
  CARDCTL_BASE_URL: info.baseUrl,
  CARDCTL_API_KEY: info.keyId,
  CARDCTL_API_SECRET: info.secret,
  CARDCTL_MODE: 'test',
};

/** One run of the CLI: wall time (ms), peak RSS (MiB). */
function run(args, extraEnv, expectCode = 0) {
  const rss = join(work, 'peak.rss');
  rmSync(rss, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(node, ['--require', join(root, 'bench', 'report-rss.cjs'), bin, ...args], {
    env: { ...env, BENCH_RSS_FILE: rss, ...extraEnv },
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 1 << 29,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== expectCode)
    throw new Error(`${args.join(' ')} exited ${r.status}: ${String(r.stderr).slice(-1500)}`);
  return { ms, mib: Number(readFileSync(rss, 'utf8').trim()) / 1024 };
}

const out = [];
try {
  // 1. a money command, alternating local and shared (the first of each warms the caches)
  const local = { CARDCTL_STATE_DIR: join(work, 'state-single') };
  const shared = { ...local, CARDCTL_JOURNAL_URL: pgUrl };
  const recharge = ['cards', 'recharge', info.cardId, '--amount', '1'];
  run(recharge, local);
  run(recharge, shared);
  const times = { local: [], shared: [] };
  for (let i = 0; i < RUNS; i++) {
    times.local.push(run(recharge, local).ms);
    times.shared.push(run(recharge, shared).ms);
  }
  const [l, s] = [median(times.local), median(times.shared)];
  out.push(
    `a money command (cards recharge): local ${fmt(l, 0)} ms, shared ${fmt(s, 0)} ms: ${fmt(s / l)}x (median of ${RUNS} each, alternating)`,
  );

  // 2. a local journal of ROWS resolved rows (taken over from the old one-file format), copied into the shared one
  const { csvOf, keysOf, journalOf } = batchFixtures(info, work);
  const state = join(work, 'state-rows');
  journalOf(ROWS, await keysOf('bench'), state);
  run(['ops', 'list', '--limit', '1'], { CARDCTL_STATE_DIR: state }); // the takeover
  const copy = run(['ops', 'copy', '--to', pgUrl], { CARDCTL_STATE_DIR: state });
  out.push(
    `ops copy --to of ${ROWS} operations: ${fmt(copy.ms / 1000, 1)} s, ${Math.round(ROWS / (copy.ms / 1000))} operations/s, peak ${fmt(copy.mib, 0)} MiB`,
  );

  // 3. the batch rerun, answered from each journal
  const file = csvOf(ROWS, 'rows.csv');
  const rerun = ['cards', 'recharge', '--batch', file, '--idempotency-prefix', 'bench', '--allow-duplicates', '--json'];
  const fromLocal = run(rerun, { CARDCTL_STATE_DIR: state });
  const fromShared = run(rerun, { CARDCTL_STATE_DIR: join(work, 'state-fresh-runner'), CARDCTL_JOURNAL_URL: pgUrl });
  const pace = (r) => `${fmt(r.ms / 1000, 1)} s, ${Math.round(ROWS / (r.ms / 1000))} rows/s, peak ${fmt(r.mib, 0)} MiB`;
  out.push(`a ${ROWS}-row batch rerun answered from the local journal: ${pace(fromLocal)}`);
  out.push(
    `the same from the shared journal, on a fresh runner: ${pace(fromShared)} (${fmt(fromShared.ms / fromLocal.ms)}x)`,
  );
} finally {
  mockServer.stop();
  pgServer.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(out.join('\n'));
