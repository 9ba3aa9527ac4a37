// The repeat check of a `--batch` (src/client/batch/repeats.ts) against a busy day: a journal
// holding BENCH_REPEAT_OPS operations sent within the last 24 hours (default 864,000: one key at the
// API's rate limit, 600 a minute, for a day), generated in the old one-file format and taken over
// once (cached under $TMPDIR/cardctl-bench-repeats; BENCH_FRESH=1 rebuilds it). A 10-row recharge
// batch with new keys reads the day's segments for repeats before its first row; the same batch
// with --allow-repeat skips the check and is the baseline, in alternating runs of the same session.
// The API is a closed port (nothing is sent either way: every row is refused before it leaves).
// Wall time (median of BENCH_RUNS, default 5) as a ratio to the baseline; peak memory (VmHWM,
// bench/report-rss.cjs) in separate runs. NODE_EXTRA_CA_CERTS is left out of the timed processes.
// BENCH_BEFORE=DIR (another checkout, built) runs its repeat check in the same rounds too.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeLegacyJournal } from './journal-fixture.mjs';
import { fmt, median } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const node = process.execPath;
const OPS = Number(process.env.BENCH_REPEAT_OPS ?? 864_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const cache = join(tmpdir(), 'cardctl-bench-repeats');
const state = join(cache, `state-${OPS}`);
if (process.env.BENCH_FRESH) rmSync(cache, { recursive: true, force: true });

const { NODE_EXTRA_CA_CERTS: _ca, ...base } = process.env;
const env = {
  ...base,
  CARDCTL_STATE_DIR: state,
  CARDCTL_CONFIG_DIR: join(cache, 'config'),
  CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W', // the fixture's key id: the day's sends are this account's
  CARDCTL_API_SECRET: Buffer.alloc(32, 3).toString('base64'),
  CARDCTL_BASE_URL: 'http://127.0.0.1:9/api/v1',
  CARDCTL_MODE: 'test',
};

// the fixture: a day of sends, taken over into the journal's folder (the first command does it)
const made = join(cache, `state-${OPS}.json`);
if (!existsSync(made) || Date.now() - JSON.parse(readFileSync(made, 'utf8')).at > 3_600_000) {
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state, { recursive: true });
  writeLegacyJournal(join(state, 'operations.ndjson'), OPS, { days: 1, unknownEvery: 1e9 });
  const t = Date.now();
  spawnSync(node, [bin, 'ops', 'list', '--limit', '1'], { env, stdio: 'ignore' });
  console.log(
    `fixture: ${OPS.toLocaleString('en')} operations in the last 24 h, taken over in ${fmt((Date.now() - t) / 1000, 1)} s`,
  );
  writeFileSync(made, JSON.stringify({ at: Date.now() }));
}
const rows = join(cache, 'rows.csv');
writeFileSync(
  rows,
  `card_id,amount\n${Array.from({ length: 10 }, (_, i) => `01JD2QA1B2C3D4E5F6G7H8J9K${i},${1000 + i}`).join('\n')}\n`,
);
const args = ['cards', 'recharge', '--batch', rows, '--yes', '--retries', '0'];
const cases = {
  'repeat check': { bin, args },
  'baseline: --allow-repeat': { bin, args: [...args, '--allow-repeat'] },
  ...(process.env.BENCH_BEFORE
    ? { 'before: repeat check': { bin: join(process.env.BENCH_BEFORE, 'bin', 'run.js'), args } }
    : {}),
};

const run = (c, extra = {}) => {
  const r = spawnSync(
    node,
    [...(extra.rss ? ['--require', join(root, 'bench', 'report-rss.cjs')] : []), c.bin, ...c.args],
    {
      env: { ...env, ...extra.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  if (r.status !== 8) throw new Error(`exit ${r.status} (want 8: every row refused, the API unreachable): ${r.stderr}`);
};
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const a of Object.values(cases)) run(a); // warm-up: code caches, page cache
for (let i = 0; i < RUNS; i++)
  for (const [k, a] of Object.entries(cases)) {
    const t0 = process.hrtime.bigint();
    run(a);
    times[k].push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
const peak = (a) => {
  const file = join(cache, 'rss');
  rmSync(file, { force: true });
  run(a, { rss: true, env: { BENCH_RSS_FILE: file } });
  return Number(readFileSync(file, 'utf8').trim()) / 1024;
};
const baseline = median(times['baseline: --allow-repeat']);
console.log(
  `10-row recharge batch, ${OPS.toLocaleString('en')} operations in the last 24 h, median of ${RUNS} (NODE_EXTRA_CA_CERTS unset)`,
);
for (const [k, a] of Object.entries(cases)) {
  const ms = median(times[k]);
  console.log(`  ${k.padEnd(26)} ${fmt(ms, 0).padStart(6)} ms  ${fmt(ms / baseline)}x  peak ${fmt(peak(a), 0)} MiB`);
}
