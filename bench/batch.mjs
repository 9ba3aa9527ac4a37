// --batch at scale (issue 17 item 7). A 1,000-row recharge batch sent to the bench mock (its own
// process, rate limit practically off) and its rerun: the pace of sending. Then, for 100,000 and
// 1,000,000 rows: the first reading alone (every row checked, then refused: identical rows), and
// a rerun against a journal that already holds every row of the file (generated in the old
// one-file format and taken over once, as bench/journal.mjs does: sending them would take hours
// at the journal's synced pace), which sends nothing, its results read through a pipe (as `| jq`
// reads them). Peak RSS (process.resourceUsage().maxRSS,
// bench/report-rss.cjs) as a ratio to a 1-row batch measured in the same run; rows a second.
// BENCH_BATCH_SENT=1000 the rows sent; BENCH_BATCH_SIZES=100000,1000000 the large sizes.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { batchFixtures } from './batch-fixture.mjs';
import { fmt } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const node = process.execPath;
const SENT = Number(process.env.BENCH_BATCH_SENT ?? 1000);
const SIZES = (process.env.BENCH_BATCH_SIZES ?? '100000,1000000').split(',').map(Number);
const work = mkdtempSync(join(tmpdir(), 'cardctl-bench-batch-'));

const server = spawn(node, [join(root, 'bench', 'serve-mock.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
const info = JSON.parse(
  await new Promise((resolve) => createInterface({ input: server.stdout }).once('line', resolve)),
);
// the timed processes run without NODE_EXTRA_CA_CERTS (these machines set it; Node parses it at every start)
const { NODE_EXTRA_CA_CERTS: _ca, ...outerEnv } = process.env;
const env = {
  ...outerEnv,
  CARDCTL_BASE_URL: info.baseUrl,
  CARDCTL_API_KEY: info.keyId,
  CARDCTL_API_SECRET: info.secret,
  CARDCTL_MODE: 'test',
};

/** One run of the CLI: wall time (ms), peak RSS (MiB), exit code. stdout goes to /dev/null. */
function run(args, state, expectCode = 0, extraEnv = {}, stdout = 'ignore') {
  const rss = join(work, 'peak.rss');
  rmSync(rss, { force: true });
  const t0 = process.hrtime.bigint();
  const r = spawnSync(node, ['--require', join(root, 'bench', 'report-rss.cjs'), bin, ...args], {
    env: { ...env, CARDCTL_STATE_DIR: state, BENCH_RSS_FILE: rss, ...extraEnv },
    stdio: ['ignore', stdout, 'pipe'],
    maxBuffer: 1 << 29,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== expectCode)
    throw new Error(`${args.join(' ')} exited ${r.status}: ${String(r.stderr).slice(-2000)}`);
  return { ms, mib: Number(readFileSync(rss, 'utf8').trim()) / 1024 };
}

const { csvOf, keysOf, journalOf } = batchFixtures(info, work);

const rowsPerSecond = (n, ms) => Math.round(n / (ms / 1000));
const out = [];
try {
  const base = run(['cards', 'recharge', '--batch', csvOf(1, 'one.csv'), '--json'], join(work, 'state-one'));
  out.push(`baseline: a 1-row batch ${fmt(base.ms, 0)} ms, peak ${fmt(base.mib, 0)} MiB`);

  // sent for real: the pace is the journal's (each row synced before it leaves) and the mock's
  const state = join(work, 'state-sent');
  const args = [
    'cards',
    'recharge',
    '--batch',
    csvOf(SENT, 'sent.csv'),
    '--allow-duplicates',
    '--concurrency',
    '16',
    '--json',
  ];
  const first = run(args, state);
  out.push(
    `${SENT} rows sent: ${fmt(first.ms / 1000, 1)} s (${rowsPerSecond(SENT, first.ms)} rows/s); peak ${fmt(first.mib, 0)} MiB (${fmt(first.mib / base.mib, 2)}x)`,
  );
  const again = run(args, state);
  out.push(
    `${SENT} rows rerun (nothing sent): ${fmt(again.ms / 1000, 1)} s, ${rowsPerSecond(SENT, again.ms)} rows/s; peak ${fmt(again.mib, 0)} MiB (${fmt(again.mib / base.mib, 2)}x)`,
  );

  for (const n of SIZES) {
    const big = csvOf(n, `rows-${n}.csv`);
    const checked = run(['cards', 'recharge', '--batch', big], join(work, `state-plan-${n}`), 2);
    out.push(
      `${n} rows read and checked, then refused (identical rows): ${fmt(checked.ms / 1000, 1)} s, ${rowsPerSecond(n, checked.ms)} rows/s; peak ${fmt(checked.mib, 0)} MiB (${fmt(checked.mib / base.mib, 2)}x)`,
    );
    const mstate = join(work, `state-${n}`);
    journalOf(n, await keysOf(`bench${n}`), mstate);
    const takeover = run(['ops', 'list', '--limit', '1'], mstate);
    out.push(`  (a journal holding the ${n} rows, taken over in ${fmt(takeover.ms / 1000, 1)} s)`);
    const rerunArgs = [
      'cards',
      'recharge',
      '--batch',
      big,
      '--allow-duplicates',
      '--idempotency-prefix',
      `bench${n}`,
      '--json',
    ];
    // its results through a pipe, as `| jq` reads them (the reader here is this process, which keeps up)
    const rerun = run(rerunArgs, mstate, 0, {}, 'pipe');
    out.push(
      `${n} rows rerun (all from the journal, nothing sent): ${fmt(rerun.ms / 1000, 1)} s, ${rowsPerSecond(n, rerun.ms)} rows/s; peak ${fmt(rerun.mib, 0)} MiB (${fmt(rerun.mib / base.mib, 2)}x)`,
    );
    rmSync(mstate, { recursive: true, force: true });
  }
} finally {
  server.stdin.end();
  for (const line of out) console.log(line);
  rmSync(work, { recursive: true, force: true });
}
