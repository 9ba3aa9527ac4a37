// `--jq` against `--json` (issue 38: target <= 1.3x), paired in the same run: `cards get ID` with
// each, alternating, the CPU (user + system) of the whole process (bench/report-cpu.cjs) and its
// wall time. The `--jq` runs use the cache a first run left in the user's cache folder
// (CARDCTL_CACHE_DIR: jq's checked expressions and V8's code cache, src/output/jq.ts); one more
// case runs with an empty cache folder each time (a user's very first --jq). Without
// NODE_EXTRA_CA_CERTS (bench/cli-harness.mjs).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, node, root, verdict, withBenchMock } from './cli-harness.mjs';
import { fmt, median, timeRun } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

await withBenchMock(async ({ fixture, env, tmp }) => {
  const cpuFile = join(tmp, 'cpu');
  const measure = (args, extraEnv = {}) => {
    writeFileSync(cpuFile, '');
    const wall = timeRun(node, ['--require', join(root, 'bench', 'report-cpu.cjs'), bin, ...args], {
      env: { ...env, BENCH_CPU_FILE: cpuFile, ...extraEnv },
    });
    return { wall, cpu: Number(readFileSync(cpuFile, 'utf8').trim()) / 1000 };
  };
  const cases = {
    '--json': () => measure(['cards', 'get', fixture.cardId, '--json']),
    '--jq .id': () => measure(['cards', 'get', fixture.cardId, '--jq', '.id']),
    "--jq '{id, status}'": () => measure(['cards', 'get', fixture.cardId, '--jq', '{id, status}']),
    '--jq .id, first run': () => {
      const cold = mkdtempSync(join(tmp, 'cold-'));
      try {
        return measure(['cards', 'get', fixture.cardId, '--jq', '.id'], { CARDCTL_CACHE_DIR: cold });
      } finally {
        rmSync(cold, { recursive: true, force: true });
      }
    },
  };
  for (const run of Object.values(cases)) run(); // warm: the file cache, and each case's own caches
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let i = 0; i < RUNS; i++) for (const [name, run] of Object.entries(cases)) times[name].push(run());
  const paired = (a, b, key) => median(times[a].map((t, i) => t[key] / times[b][i][key]));
  console.log(
    `--jq against --json, cards get ID, median of ${RUNS} rounds (--json: CPU ${fmt(median(times['--json'].map((t) => t.cpu)), 1)} ms, wall ${fmt(median(times['--json'].map((t) => t.wall)), 1)} ms)`,
  );
  for (const name of Object.keys(cases).filter((n) => n !== '--json')) {
    const cpu = paired(name, '--json', 'cpu');
    const target = name.includes('first run') ? null : 1.3;
    console.log(
      `  ${name.padEnd(22)} / --json  CPU ratio=${fmt(cpu)}  wall ratio=${fmt(paired(name, '--json', 'wall'))}  ${verdict(cpu, target)}`,
    );
  }
});
