// Start-up of cardctl commands as a ratio to `node -e 0`, median of alternating runs
// (alternating spreads the machine's noise over all the commands evenly), plus the peak memory
// of `cards get`. The API commands run against the embedded mock in its own process
// (bench/serve-mock.mjs), with a profile read from a temporary config folder and a temporary
// journal, as a user's shell loop would run them. Every run is without NODE_EXTRA_CA_CERTS (see
// bench/cli-harness.mjs: on Node 20 it costs every start ~85 ms here, which deflated the ratios
// measured before 2026-11-26); an info line says what it costs when this shell sets it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bin, extraCaCertsCase, extraCaCertsInfo, node, pairedRatio, root, timeInRounds, withBenchMock } from './cli-harness.mjs';
import { fmt, median, timeRun } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 25);

await withBenchMock(async ({ fixture, env, tmp }) => {
  const signEnv = { ...env, CARDCTL_API_SECRET: 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=' };
  // [argv, env, target ratio or null (information only)]
  const cases = {
    'node -e 0': [['-e', '0'], env, null],
    'cardctl --version': [[bin, '--version'], env, 1.3],
    'cardctl sign': [[bin, 'sign', '--method', 'POST', '--path', '/api/v1/cards', '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W',
      '--timestamp', '1763800000', '--nonce', '6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f',
      '--data', '{"customer_id":"01JD2Q9ZZZZZZZZZZZZZZZZZZZ","amount_minor":5000}', '--json'], signEnv, 1.6],
    'cards get ID': [[bin, 'cards', 'get', fixture.cardId], env, 2.0],
    'customers list --per-page 1': [[bin, 'customers', 'list', '--per-page', '1'], env, 2.0],
    'cards issue (money)': [[bin, 'cards', 'issue', '--customer', fixture.customerId, '--amount', String(fixture.minLoad)], env, 2.5],
    // what the fast path saves: the same command through oclif
    'cards get via oclif (info)': [[bin, 'cards', 'get', fixture.cardId], { ...env, CARDCTL_NO_FAST_PATH: '1' }, null],
  };
  const RSS_GOAL_MIB = 60;

  const times = timeInRounds({ ...Object.fromEntries(Object.entries(cases).map(([name, [args, caseEnv]]) => [name, [node, args, caseEnv]])), ...extraCaCertsCase(env) }, RUNS);
  // peak memory in separate runs (the preload that reports it is not in the timed runs)
  const rssFile = join(tmp, 'rss');
  for (let i = 0; i < 5; i++) timeRun(node, ['--require', join(root, 'bench', 'report-rss.cjs'), ...cases['cards get ID'][0]], { env: { ...env, BENCH_RSS_FILE: rssFile } });
  const rssMiB = median(readFileSync(rssFile, 'utf8').trim().split('\n').map(Number)) / 1024;

  const base = median(times['node -e 0']);
  console.log(`start-up, wall time, median of ${RUNS} rounds' ratios to the same round's node -e 0 (baseline node -e 0 = ${fmt(base, 1)} ms on ${process.version}; NODE_EXTRA_CA_CERTS ${env.NODE_EXTRA_CA_CERTS ? 'SET' : 'unset'})`);
  for (const [name, [, , target]] of Object.entries(cases)) {
    const m = median(times[name]);
    const ratio = pairedRatio(times, name, 'node -e 0');
    const verdict = target === null ? '' : ratio <= target ? `ok (target <= ${target}x)` : `OVER target ${target}x`;
    console.log(`  ${name.padEnd(28)} ${fmt(m, 1).padStart(7)} ms  ratio=${fmt(ratio)}  ${verdict}`);
  }
  console.log(`  ${'cards get ID peak RSS'.padEnd(28)} ${fmt(rssMiB, 1).padStart(7)} MiB  ${rssMiB <= RSS_GOAL_MIB ? 'ok' : 'OVER'} (target <= ${RSS_GOAL_MIB} MiB)`);
  const info = extraCaCertsInfo(times, 'node -e 0', fmt);
  if (info) console.log(info);
});
