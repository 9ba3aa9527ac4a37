// Scripting output (issue 21): what `--jq` costs a whole process, as a ratio to the same command
// with `--json` measured in the same alternating runs (target <= 1.5x), and that other commands
// do not pay for it (`cards get ID --json` against `node -e 0`, compare bench/startup.mjs).
// The mock runs in its own process (bench/serve-mock.mjs), as in the start-up benchmark, and
// the runs without NODE_EXTRA_CA_CERTS (see bench/cli-harness.mjs).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
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

const RUNS = Number(process.env.BENCH_RUNS ?? 15);

await withBenchMock(async ({ fixture, env, tmp }) => {
  const times = timeInRounds(
    {
      'node -e 0': [node, ['-e', '0'], env],
      'cards get ID --json': [node, [bin, 'cards', 'get', fixture.cardId, '--json'], env],
      'cards get ID --jq .id': [node, [bin, 'cards', 'get', fixture.cardId, '--jq', '.id'], env],
      ...extraCaCertsCase(env),
    },
    RUNS,
  );
  const ratio = (a, b) => pairedRatio(times, a, b);
  console.log(
    `--jq, median of ${RUNS} alternating runs (node -e 0 = ${fmt(median(times['node -e 0']), 1)} ms; NODE_EXTRA_CA_CERTS ${env.NODE_EXTRA_CA_CERTS ? 'SET' : 'unset'})`,
  );
  console.log(
    `  cards get ID --json / node -e 0      ratio=${fmt(ratio('cards get ID --json', 'node -e 0'))}  (the start-up benchmark's figure: unchanged by --jq)`,
  );
  const jq = ratio('cards get ID --jq .id', 'cards get ID --json');
  console.log(`  cards get ID --jq .id / --json       ratio=${fmt(jq)}  ${verdict(jq, 1.5)}`);
  const info = extraCaCertsInfo(times, 'node -e 0', fmt);
  if (info) console.log(info);
  await bigListMemory(env, tmp);
});

/**
 * `customers list --all --output csv` over 50,000 customers (500 pages of 100) against a mock
 * started from a seeded snapshot: peak RSS of the whole process beside --ndjson (the target: the
 * same memory) and --json (which holds every row, for contrast).
 */
async function bigListMemory(baseEnv, tmp) {
  const ROWS = Number(process.env.BENCH_LIST_ROWS ?? 50_000);
  const { buildSeededState } = await import(new URL('../dist/mock/state.js', import.meta.url).href);
  const { newId, seededRandom } = await import(new URL('../dist/mock/random.js', import.meta.url).href);
  const now = Date.now();
  const rand = seededRandom(9);
  const { state, testKey } = buildSeededState(9, now);
  for (let i = 0; i < ROWS; i++) {
    const id = newId(rand, now);
    state.customers[id] = {
      id,
      seq: ++state.seq,
      merchant_id: state.default_merchant_id,
      fields: {
        first_name: 'Bench',
        last_name: `Mark ${i}`,
        email: `bench${i}@example.com`,
        id_type: 'bvn',
        id_number: '22212345678',
        country: 'NGA',
        line1: '1 "Quoted", Road',
      },
      status: 'active',
      kyc_status: 'approved',
      kyc_failure_reason: null,
      kyc_submitted_at: now,
      kyc_resolved_at: now,
      kyc_submit_due: null,
      kyc_verdict_due: null,
      kyc_mode: 'test',
      created_at: now,
    };
  }
  const seedFile = join(tmp, 'customers.json');
  writeFileSync(seedFile, JSON.stringify(state));
  const code = `const { startMock } = await import(${JSON.stringify(new URL('../dist/mock/index.js', import.meta.url).href)});
const m = await startMock({ port: 0, rateLimit: 1e9, providerLatencyMs: 0, snapshot: process.argv[1] });
process.stdout.write(m.baseUrl + '\\n'); process.stdin.resume(); process.stdin.on('end', () => m.close().then(() => process.exit(0)));`;
  const big = spawn(node, ['--input-type=module', '-e', code, seedFile], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const baseUrl = await new Promise((resolve, reject) => {
      createInterface({ input: big.stdout }).once('line', resolve);
      big.once('exit', (c) => reject(new Error(`the big mock exited (${c})`)));
    });
    const env = {
      ...baseEnv,
      CARDCTL_BASE_URL: baseUrl,
      CARDCTL_API_KEY: testKey.key_id,
      CARDCTL_API_SECRET: testKey.secret,
      CARDCTL_MODE: 'test',
    };
    const kinds = { '--ndjson': ['--ndjson'], '--output csv': ['--output', 'csv'], '--json': ['--json'] };
    const rss = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
    const wall = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
    const rssFile = join(tmp, 'rss-list');
    for (let i = 0; i < 3; i++) {
      for (const [name, extra] of Object.entries(kinds)) {
        writeFileSync(rssFile, '');
        const out = join(tmp, 'list.out');
        wall[name].push(
          timeRun(
            'sh',
            [
              '-c',
              `exec "$0" --require "$1" "$2" customers list --all --per-page 100 ${extra.join(' ')} > "$3"`,
              node,
              join(root, 'bench', 'report-rss.cjs'),
              bin,
              out,
            ],
            { env: { ...env, BENCH_RSS_FILE: rssFile } },
          ),
        );
        rss[name].push(Number(readFileSync(rssFile, 'utf8').trim()) / 1024);
        if (i === 0) {
          const lines = readFileSync(out, 'utf8').split('\n').filter(Boolean).length;
          if (name === '--output csv' && lines !== ROWS + 1) throw new Error(`csv has ${lines} lines, not ${ROWS + 1}`);
        }
      }
    }
    console.log(
      `customers list --all --per-page 100, ${ROWS.toLocaleString('en-US')} rows, median of 3 (peak RSS of the whole process):`,
    );
    for (const name of Object.keys(kinds))
      console.log(
        `  ${name.padEnd(14)} ${fmt(median(rss[name]), 1).padStart(7)} MiB  ${fmt(median(wall[name]) / 1000, 1)} s`,
      );
    const r = median(rss['--output csv']) / median(rss['--ndjson']);
    console.log(
      `  csv / ndjson peak RSS ratio=${fmt(r)}  ${r <= 1.1 ? 'ok' : 'OVER'} (target: the same memory, <= 1.1x)`,
    );
  } finally {
    big.stdin.end();
  }
}
