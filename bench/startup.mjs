// Start-up of cardctl commands as a ratio to `node -e 0`, median of alternating runs
// (alternating spreads the machine's noise over all the commands evenly), plus the peak memory
// of `cards get`. The API commands run against the embedded mock in its own process
// (bench/serve-mock.mjs), with a profile read from a temporary config folder, a temporary journal
// and a temporary cache folder (the start-up bundle's code caches: each case's warm-up run writes
// its own, as a user's first run does), as a user's shell loop would run them. Every run is
// without NODE_EXTRA_CA_CERTS (see bench/cli-harness.mjs: on Node 20 it costs every start ~85 ms
// here, which deflated the ratios measured before 2026-11-26); an info line says what it costs
// when this shell sets it.
// BENCH_BEFORE=DIR (another checkout, built) runs each command of DIR's bin/run.js in the same
// rounds too, and prints this one's against it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  bin,
  extraCaCertsCase,
  extraCaCertsInfo,
  node,
  pairedRatio,
  root,
  timeInRounds,
  verdict,
  withBenchMock,
} from './cli-harness.mjs';
import { fmt, median, timeRun } from './lib.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const before = process.env.BENCH_BEFORE ? join(process.env.BENCH_BEFORE, 'bin', 'run.js') : undefined;

await withBenchMock(async ({ fixture, env, tmp }) => {
  const signEnv = { ...env, CARDCTL_API_SECRET: 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=' };
  // [cardctl's arguments, env, target ratio or null (information only)]
  const commands = {
    '--version': [['--version'], env, 1.3],
    sign: [
      [
        'sign',
        '--method',
        'POST',
        '--path',
        '/api/v1/cards',
        '--key-id',
        '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        '--timestamp',
        '1763800000',
        '--nonce',
        '6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f',
        '--data',
        '{"customer_id":"01JD2Q9ZZZZZZZZZZZZZZZZZZZ","amount_minor":5000}',
        '--json',
      ],
      signEnv,
      1.8,
    ],
    'cards get ID': [['cards', 'get', fixture.cardId], env, 2.5],
    'customers list --per-page 1': [['customers', 'list', '--per-page', '1'], env, 2.5],
    'cards issue (money)': [
      ['cards', 'issue', '--customer', fixture.customerId, '--amount', String(fixture.minLoad)],
      env,
      3.0,
    ],
    // a user's first run of a command: the bundle compiled without a code cache
    'cards get, no code cache (info)': [['cards', 'get', fixture.cardId], { ...env, CARDCTL_NO_CODE_CACHE: '1' }, null],
    // what the fast path saves: the same command through oclif
    'cards get via oclif (info)': [['cards', 'get', fixture.cardId], { ...env, CARDCTL_NO_FAST_PATH: '1' }, null],
  };
  const RSS_GOAL_MIB = 60;

  const cases = { 'node -e 0': [node, ['-e', '0'], env], ...extraCaCertsCase(env) };
  for (const [name, [args, caseEnv]] of Object.entries(commands)) {
    cases[name] = [node, [bin, ...args], caseEnv];
    if (before) cases[`${name} (before)`] = [node, [before, ...args], caseEnv];
  }
  const times = timeInRounds(cases, RUNS);
  // peak memory in separate runs (the preload that reports it is not in the timed runs)
  const rssFile = join(tmp, 'rss');
  for (let i = 0; i < 5; i++)
    timeRun(node, ['--require', join(root, 'bench', 'report-rss.cjs'), bin, ...commands['cards get ID'][0]], {
      env: { ...env, BENCH_RSS_FILE: rssFile },
    });
  const rssMiB = median(readFileSync(rssFile, 'utf8').trim().split('\n').map(Number)) / 1024;

  const base = median(times['node -e 0']);
  console.log(
    `start-up, wall time, median of ${RUNS} rounds' ratios to the same round's node -e 0 (baseline node -e 0 = ${fmt(base, 1)} ms on ${process.version}; NODE_EXTRA_CA_CERTS ${env.NODE_EXTRA_CA_CERTS ? 'SET' : 'unset'})`,
  );
  for (const [name, [, , target]] of Object.entries(commands)) {
    const ratio = pairedRatio(times, name, 'node -e 0');
    const was = before
      ? `  before ${fmt(pairedRatio(times, `${name} (before)`, 'node -e 0'))}x, now/before ${fmt(pairedRatio(times, name, `${name} (before)`))}`
      : '';
    console.log(
      `  ${`cardctl ${name}`.padEnd(40)} ${fmt(median(times[name]), 1).padStart(7)} ms  ratio=${fmt(ratio)}  ${verdict(ratio, target)}${was}`,
    );
  }
  console.log(
    `  ${'cards get ID peak RSS'.padEnd(40)} ${fmt(rssMiB, 1).padStart(7)} MiB  ${rssMiB <= RSS_GOAL_MIB ? 'ok' : 'OVER'} (target <= ${RSS_GOAL_MIB} MiB)`,
  );
  const info = extraCaCertsInfo(times, 'node -e 0', fmt);
  if (info) console.log(info);
});
