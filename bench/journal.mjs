// The money journal at 0, 10k, 100k and 1M operations (issue 17): each command's wall time as a
// ratio to the same command on an empty journal, measured in the same run (alternating sizes,
// so the machine's noise spreads evenly), and its peak memory (process.resourceUsage().maxRSS,
// from bench/report-rss.cjs in separate runs). Also the takeover of a 1M-operation file in the
// old format, and what the fdatasync of an op record costs. Fixtures (generated old files and
// the journals taken over from them) are cached under the temp folder
// ($TMPDIR/cardctl-bench-journal; BENCH_FRESH=1 rebuilds them): never committed.
// BENCH_SIZES=0,10000 limits the sizes; BENCH_RUNS=N the timed runs per command (default 7);
// BENCH_NO_EXPORT=1 skips the (long) export of every operation.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fmt, median, timeRun } from './lib.mjs';
import { writeLegacyJournal } from './journal-fixture.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const node = process.execPath;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SIZES = (process.env.BENCH_SIZES ?? '0,10000,100000,1000000').split(',').map(Number);
const cache = join(tmpdir(), 'cardctl-bench-journal');
if (process.env.BENCH_FRESH) rmSync(cache, { recursive: true, force: true });
mkdirSync(cache, { recursive: true });

/** A state folder holding a journal of n operations, taken over from a generated old file (timed once, cached). */
function journalOf(n) {
  const dir = join(cache, `state-${n}`);
  const done = join(cache, `state-${n}.json`);
  if (existsSync(done)) return { dir, ...JSON.parse(readFileSync(done, 'utf8')) };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  if (n > 0) writeLegacyJournal(join(dir, 'operations.ndjson'), n);
  const generatedMs = Date.now() - t0;
  const oldBytes = n > 0 ? statSync(join(dir, 'operations.ndjson')).size : 0;
  const rss = join(cache, `takeover-${n}.rss`);
  rmSync(rss, { force: true });
  const t1 = Date.now();
  const r = spawnSync(node, ['--require', join(root, 'bench', 'report-rss.cjs'), bin, 'ops', 'list', '--limit', '1'], { env: { ...process.env, CARDCTL_STATE_DIR: dir, BENCH_RSS_FILE: rss }, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`takeover of ${n} ops failed (${r.status})`);
  const info = { n, generatedMs, oldBytes, takeoverMs: Date.now() - t1, takeoverRssKiB: Number(readFileSync(rss, 'utf8').trim()) };
  writeFileSync(done, JSON.stringify(info));
  return { dir, ...info };
}

const peakMiB = (args, env) => {
  const file = join(cache, 'peak.rss');
  rmSync(file, { force: true });
  const r = spawnSync(node, ['--require', join(root, 'bench', 'report-rss.cjs'), ...args], { env: { ...env, BENCH_RSS_FILE: file }, stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return Number(readFileSync(file, 'utf8').trim()) / 1024;
};

const journals = SIZES.map(journalOf); // before the mock: a takeover is timed on a quiet machine

/** The bench mock in its own process (bench/serve-mock.mjs); its setup is retried once if it fails. */
async function startBenchMock() {
  for (let attempt = 1; ; attempt++) {
    const child = spawn(node, [join(root, 'bench', 'serve-mock.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const line = await new Promise((resolve, reject) => {
        createInterface({ input: child.stdout }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`the bench mock exited (${code})`)));
      });
      return { child, fixture: JSON.parse(line) };
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
}
const { child: mock, fixture } = await startBenchMock();
const tmp = mkdtempSync(join(tmpdir(), 'cardctl-bench-'));
try {
  const baseEnv = { ...process.env, CARDCTL_CONFIG_DIR: join(tmp, 'config'), NO_COLOR: '1', CARDCTL_API_KEY: fixture.keyId, CARDCTL_API_SECRET: fixture.secret, CARDCTL_BASE_URL: fixture.baseUrl, CARDCTL_MODE: 'test', CARDCTL_JOURNAL_RETENTION: 'off' }; // no background compaction during the measurements
  let k = 0;
  // [name, argv for a journal of n ops, target ratio, target MiB]
  const cases = [
    ['cards recharge (money)', () => [bin, 'cards', 'recharge', fixture.cardId, '--amount', '1', '--idempotency-key', `bench-run-${process.pid}-${k++}`], 1.2, 70],
    ['ops list --unresolved', () => [bin, 'ops', 'list', '--unresolved'], 1.5, 100],
    // a key in the middle of the journal (on the empty one: the first key the money command recorded there)
    ['ops show KEY', (n) => [bin, 'ops', 'show', n > 0 ? `bench-${Math.floor(n / 2)}` : `bench-run-${process.pid}-0`], null, null],
  ];
  const times = new Map();
  for (const j of journals) {
    const env = { ...baseEnv, CARDCTL_STATE_DIR: j.dir };
    for (const [name, argv] of cases) spawnSync(node, argv(j.n), { env, stdio: 'ignore' }); // warm the file cache
  }
  for (let run = 0; run < RUNS; run++) {
    for (const [name, argv] of cases) {
      for (const j of journals) {
        const env = { ...baseEnv, CARDCTL_STATE_DIR: j.dir };
        const t0 = process.hrtime.bigint();
        const r = spawnSync(node, argv(j.n), { env, stdio: ['ignore', 'ignore', 'pipe'] });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (r.status !== 0) throw new Error(`${name} at ${j.n}: exit ${r.status} ${r.stderr}`);
        const key = `${name}@${j.n}`;
        times.set(key, [...(times.get(key) ?? []), ms]);
      }
    }
  }
  console.log(`journal (median of ${RUNS} runs; ratio to the same command on an empty journal in this run; peak RSS of one more run)`);
  console.log(`| command | ${SIZES.map((n) => `${n.toLocaleString('en')} ops`).join(' | ')} | target at 1M |`);
  console.log(`|---|${SIZES.map(() => '---').join('|')}|---|`);
  for (const [name, argv, ratio, mib] of cases) {
    const base = median(times.get(`${name}@${SIZES[0]}`));
    const cells = journals.map((j) => {
      const m = median(times.get(`${name}@${j.n}`));
      const peak = peakMiB(argv(j.n), { ...baseEnv, CARDCTL_STATE_DIR: j.dir });
      return `${fmt(m, 0)} ms ${fmt(m / base)}x, ${fmt(peak, 0)} MiB`;
    });
    console.log(`| ${name} | ${cells.join(' | ')} | ${ratio ? `<= ${ratio}x, <= ${mib} MiB` : '-'} |`);
  }
  // the export of everything, once per size (it reads every segment; BENCH_NO_EXPORT=1 skips it)
  const exportCells = process.env.BENCH_NO_EXPORT ? journals.map(() => 'skipped') : journals.map((j) => {
    const env = { ...baseEnv, CARDCTL_STATE_DIR: j.dir };
    const ms = timeRun(node, [bin, 'ops', 'list', '--all', '--ndjson'], { env });
    return `${fmt(ms / 1000, 1)} s, ${fmt(peakMiB([bin, 'ops', 'list', '--all', '--ndjson'], env), 0)} MiB`;
  });
  console.log(`| ops list --all --ndjson (once) | ${exportCells.join(' | ')} | <= 150 MiB |`);
  console.log('');
  for (const j of journals.filter((x) => x.n > 0)) {
    console.log(`takeover of ${j.n.toLocaleString('en')} ops (${fmt(j.oldBytes / 1048576, 0)} MiB old file, generated in ${fmt(j.generatedMs / 1000, 1)} s): ${fmt(j.takeoverMs / 1000, 1)} s, peak ${fmt(j.takeoverRssKiB / 1024, 0)} MiB (target at 1M: <= 60 s)`);
  }
  // what the sync of an op record costs: the same appends with and without fdatasync, in this process
  const { appendLines } = await import(new URL('../dist/client/journal-store/files.js', import.meta.url).href);
  const rec = { type: 'op', id: 'op_bench', time: new Date().toISOString(), pad: 'x'.repeat(600) };
  const perAppend = (sync) => {
    const file = join(tmp, `sync-${sync}.ndjson`);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 200; i++) appendLines(file, [rec], sync);
    return Number(process.hrtime.bigint() - t0) / 1e6 / 200;
  };
  const unsynced = perAppend(false);
  const synced = perAppend(true);
  console.log(`fdatasync of a 600-byte record: ${fmt(synced, 3)} ms per append synced, ${fmt(unsynced, 3)} ms unsynced; an op record is synced in 3 files (key bucket, segment, id index) and its outcome in 2: about ${fmt(5 * (synced - unsynced), 2)} ms per money operation`);
} finally {
  mock.stdin.end();
  rmSync(tmp, { recursive: true, force: true });
}
