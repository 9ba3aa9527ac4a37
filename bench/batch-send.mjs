// --batch SENDING throughput: do rows overlap? The same recharge batch (BENCH_SEND_ROWS rows,
// default 400, recharges of 1 on the bench card, --allow-duplicates) sent with --concurrency 1
// and --concurrency 8 to the bench mock (its own process, rate limit practically off, no provider
// latency), each into a fresh journal, alternating c1/c8 BENCH_SEND_ROUNDS times (default 2) so
// that a change of the machine's load hits both alike. Prints rows/s of each and the ratio
// c8 / c1 (median of the rounds). Each row's op record is synced (fdatasync) in its key bucket
// and its segment before its request leaves (docs/journal.md, "Durability and concurrency"): the
// ratio says whether those syncs overlap across rows.
// BENCH_SEND_BASELINE=/path/to/another/checkout (built): its bin/run.js is timed too, in the same
// rounds, and each level's rows/s are also given as a ratio to it (before/after a change).
// Also printed: the batch process's own CPU time per row (user + system, bench/report-cpu.cjs),
// which the machine's load changes less than the wall time.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fmt, median } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const builds = [['this checkout', join(root, 'bin', 'run.js')]];
if (process.env.BENCH_SEND_BASELINE) builds.push(['baseline', join(process.env.BENCH_SEND_BASELINE, 'bin', 'run.js')]);
const node = process.execPath;
const ROWS = Number(process.env.BENCH_SEND_ROWS ?? 400);
const ROUNDS = Number(process.env.BENCH_SEND_ROUNDS ?? 2);
const LEVELS = (process.env.BENCH_SEND_CONCURRENCY ?? '1,8').split(',').map(Number);
const work = mkdtempSync(join(tmpdir(), 'cardctl-bench-send-'));

const server = spawn(node, [join(root, 'bench', 'serve-mock.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
const info = JSON.parse(
  await new Promise((resolve) => createInterface({ input: server.stdout }).once('line', resolve)),
);
const env = {
  ...process.env,
  CARDCTL_BASE_URL: info.baseUrl,
  CARDCTL_API_KEY: info.keyId,
  CARDCTL_API_SECRET: info.secret,
  CARDCTL_MODE: 'test',
  CARDCTL_JOURNAL_RETENTION: 'off',
};

const csv = join(work, 'rows.csv');
const fd = openSync(csv, 'w');
writeSync(fd, 'card,amount\n' + `${info.cardId},1\n`.repeat(ROWS));
closeSync(fd);

let runs = 0;
const cpuTimes = new Map(); // `${build} ${concurrency}` -> CPU ms of each run
/** One batch into a fresh journal: its wall time (ms). Every row must succeed. */
function send(bin, concurrency, label) {
  const state = join(work, `state-${runs++}`);
  const cpuFile = join(work, 'cpu');
  rmSync(cpuFile, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(
    node,
    [
      '--require',
      join(root, 'bench', 'report-cpu.cjs'),
      bin,
      'cards',
      'recharge',
      '--batch',
      csv,
      '--allow-duplicates',
      '--concurrency',
      String(concurrency),
      '--json',
    ],
    {
      env: { ...env, CARDCTL_STATE_DIR: state, BENCH_CPU_FILE: cpuFile },
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1 << 28,
    },
  );
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (!cpuTimes.has(label)) cpuTimes.set(label, []);
  cpuTimes.get(label).push(Number(readFileSync(cpuFile, 'utf8').trim()) / 1000);
  const ok = String(r.stdout)
    .split('\n')
    .filter((l) => l.includes('"status":"ok"')).length;
  if (r.status !== 0 || ok !== ROWS)
    throw new Error(
      `--concurrency ${concurrency}: exit ${r.status}, ${ok} of ${ROWS} rows ok: ${String(r.stderr).slice(-2000)}`,
    );
  rmSync(state, { recursive: true, force: true });
  return ms;
}

const out = [];
try {
  const times = new Map(builds.flatMap(([name]) => LEVELS.map((c) => [`${name} ${c}`, []])));
  for (let round = 0; round < ROUNDS; round++)
    for (const c of LEVELS)
      for (const [name, bin] of builds) times.get(`${name} ${c}`).push(send(bin, c, `${name} ${c}`));
  const rate = (name, c) => ROWS / (median(times.get(`${name} ${c}`)) / 1000);
  const [lo, hi] = [LEVELS[0], LEVELS.at(-1)];
  for (const [name] of builds) {
    for (const c of LEVELS) {
      const t = times.get(`${name} ${c}`);
      const vsBase =
        builds.length > 1 && name !== 'baseline'
          ? `, ${fmt(rate(name, c) / rate('baseline', c), 2)}x the baseline's`
          : '';
      const cpu = median(cpuTimes.get(`${name} ${c}`));
      out.push(
        `${name}, --concurrency ${c}: ${ROWS} rows in ${fmt(median(t) / 1000, 2)} s (median of ${t.map((ms) => fmt(ms / 1000, 2)).join(', ')} s): ${fmt(rate(name, c), 0)} rows/s${vsBase} (best run ${fmt(ROWS / (Math.min(...t) / 1000), 0)} rows/s); its CPU ${fmt(cpu / 1000, 2)} s (${fmt(cpu / ROWS, 2)} ms a row)`,
      );
    }
    out.push(
      `${name}: ratio --concurrency ${hi} / --concurrency ${lo}: ${fmt(rate(name, hi) / rate(name, lo), 2)}x rows/s`,
    );
  }
} finally {
  server.stdin.end();
  for (const line of out) console.log(line);
  rmSync(work, { recursive: true, force: true });
}
