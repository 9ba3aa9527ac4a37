// The money journal (SQLite, journal.db) at 0, 10k, 100k and 1M operations: each command's wall time as a
// ratio to the same command on an empty journal, measured in the same run (alternating sizes,
// so the machine's noise spreads evenly), and its peak memory (process.resourceUsage().maxRSS,
// from bench/report-rss.cjs in separate runs). Also the takeover of a 1M-operation file in the
// old format (how the fixtures are made), and what a durable commit of an op record costs. Fixtures (generated old files and
// the journals taken over from them) are cached under the temp folder
// ($TMPDIR/cardctl-bench-journal; BENCH_FRESH=1 rebuilds them): never committed.
// BENCH_SIZES=0,10000 limits the sizes; BENCH_RUNS=N the timed runs per command (default 7);
// BENCH_NO_EXPORT=1 skips the (long) export of every operation.
// Then the 24-hour rule's exactness (issue 17's target): each fixture holds, in the middle of the
// file, two recharges first sent two days ago (bench/journal-fixture.mjs, CHECK): the same command
// is run with each key against a mock on the port the fixture recorded; the resolved one must be
// reported from the journal (exit 0), the unknown one refused with exit 7, and the mock must see
// no request. A wrong answer is printed and the bench exits 1.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fmt, median, startMockWithCard, timeRun } from './lib.mjs';
import { CHECK, writeLegacyJournal } from './journal-fixture.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const node = process.execPath;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SIZES = (process.env.BENCH_SIZES ?? '0,10000,100000,1000000').split(',').map(Number);
const cache = join(tmpdir(), 'cardctl-bench-journal');
// the timed processes run without NODE_EXTRA_CA_CERTS (these machines set it; Node parses it at every start)
const { NODE_EXTRA_CA_CERTS: _ca, ...outerEnv } = process.env;
if (process.env.BENCH_FRESH) rmSync(cache, { recursive: true, force: true });
mkdirSync(cache, { recursive: true });

/**
 * Where the 24-hour check's operations were sent (their base URL and API key are part of their
 * identity): the port of a mock started once for the cache, and its test key (the mock's seed
 * makes it the same every time). Kept with the fixtures; the check starts its mock on that port.
 */
async function checkTarget() {
  const file = join(cache, 'check.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  // a port below the ephemeral range (32768 and up on Linux): less likely to be another connection's when the check comes
  for (let attempt = 0; ; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const started = await startMockWithCard({ port }).catch((err) => (attempt < 20 ? undefined : Promise.reject(err)));
    if (!started) continue;
    const { mock } = started;
    const target = { port, baseUrl: mock.baseUrl, keyId: mock.keys.test.keyId, cardId: '01JD2QA1B2C3D4E5F6G7H8J9KM' };
    await mock.close();
    writeFileSync(file, JSON.stringify(target));
    return target;
  }
}
const check = await checkTarget();

/** A state folder holding a journal of n operations, taken over from a generated old file (timed once, cached). */
function journalOf(n) {
  const dir = join(cache, `state-${n}`);
  const done = join(cache, `state-${n}.json`);
  if (existsSync(done)) {
    const info = JSON.parse(readFileSync(done, 'utf8'));
    if (n === 0 || info.check?.baseUrl === check.baseUrl) return { dir, ...info }; // else a fixture from before the check: made again
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const t0 = Date.now();
  if (n > 0) writeLegacyJournal(join(dir, 'operations.ndjson'), n, { check });
  const generatedMs = Date.now() - t0;
  const oldBytes = n > 0 ? statSync(join(dir, 'operations.ndjson')).size : 0;
  const rss = join(cache, `takeover-${n}.rss`);
  rmSync(rss, { force: true });
  const t1 = Date.now();
  const r = spawnSync(node, ['--require', join(root, 'bench', 'report-rss.cjs'), bin, 'ops', 'list', '--limit', '1'], {
    env: { ...outerEnv, CARDCTL_STATE_DIR: dir, BENCH_RSS_FILE: rss },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`takeover of ${n} ops failed (${r.status})`);
  const info = {
    n,
    generatedMs,
    oldBytes,
    takeoverMs: Date.now() - t1,
    takeoverRssKiB: Number(readFileSync(rss, 'utf8').trim()),
    check,
  };
  writeFileSync(done, JSON.stringify(info));
  return { dir, ...info };
}

const peakMiB = (args, env) => {
  const file = join(cache, 'peak.rss');
  rmSync(file, { force: true });
  const r = spawnSync(node, ['--require', join(root, 'bench', 'report-rss.cjs'), ...args], {
    env: { ...env, BENCH_RSS_FILE: file },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return Number(readFileSync(file, 'utf8').trim()) / 1024;
};

const journals = SIZES.map(journalOf); // before the mock: a takeover is timed on a quiet machine

/** A command run without blocking this process (the check's mock runs in it). */
function runAsync(args, env) {
  return new Promise((resolve) => {
    const child = spawn(node, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * The 24-hour rule on the two recharges first sent two days ago, in the middle of each journal:
 * the same command with each key, against a mock on the port their base URL names. Returns a
 * line per journal, and whether every answer was exact (resolved: exit 0, reported from the
 * journal; unknown: exit 7; no request to the mock for either).
 */
async function twoDaysBack(journals, baseEnv) {
  let mock;
  try {
    ({ mock } = await startMockWithCard({ port: check.port }));
  } catch (err) {
    throw new Error(
      `the 24-hour check needs port ${check.port} (in the base URL of its operations, kept with the fixtures): ${err.message}; free it, or rebuild the fixtures with BENCH_FRESH=1`,
    );
  }
  let requests = 0;
  mock.onRequest(() => requests++);
  const lines = [];
  let exact = mock.keys.test.keyId === check.keyId;
  if (!exact)
    lines.push(
      `WRONG: the check's mock has key ${mock.keys.test.keyId}, the fixtures' operations ${check.keyId}: rebuild them with BENCH_FRESH=1`,
    );
  try {
    for (const j of journals.filter((x) => x.n > 0)) {
      const env = {
        ...baseEnv,
        CARDCTL_STATE_DIR: j.dir,
        CARDCTL_BASE_URL: mock.baseUrl,
        CARDCTL_API_KEY: mock.keys.test.keyId,
        CARDCTL_API_SECRET: mock.keys.test.secret,
      };
      const said = [];
      for (const [key, want] of [
        [CHECK.resolvedKey, 0],
        [CHECK.unknownKey, 7],
      ]) {
        const before = requests;
        const r = await runAsync(
          [bin, 'cards', 'recharge', check.cardId, '--amount', '1', '--idempotency-key', key, '--json'],
          env,
        );
        const sent = requests - before;
        let body;
        try {
          body = JSON.parse(r.stdout);
        } catch {
          body = {};
        }
        const fromJournal =
          want === 0
            ? body.from_journal === true && body.outcome === 'succeeded'
            : body.error?.code === 'key_forgotten' && body.error?.data?.outcome === 'unknown';
        const ok = r.code === want && sent === 0 && fromJournal;
        exact &&= ok;
        const what =
          want === 0
            ? fromJournal
              ? 'reported from the journal'
              : 'NOT reported from the journal'
            : fromJournal
              ? 'outcome unknown, from the journal'
              : 'NOT refused from the journal';
        said.push(
          `${want === 0 ? 'resolved' : 'unknown'} -> exit ${r.code} (want ${want}), ${what}, ${sent} requests${ok ? '' : ` WRONG: ${(r.stderr || r.stdout).trim().split('\n').slice(-2).join(' / ').slice(0, 300)}`}`,
        );
      }
      lines.push(`${j.n.toLocaleString('en')} ops: ${said.join('; ')}`);
    }
  } finally {
    await mock.close();
  }
  return { lines, exact };
}

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
  const baseEnv = {
    ...outerEnv,
    CARDCTL_CONFIG_DIR: join(tmp, 'config'),
    NO_COLOR: '1',
    CARDCTL_API_KEY: fixture.keyId,
    CARDCTL_API_SECRET: fixture.secret,
    CARDCTL_BASE_URL: fixture.baseUrl,
    CARDCTL_MODE: 'test',
    CARDCTL_JOURNAL_RETENTION: 'off',
  }; // no background compaction during the measurements
  let k = 0;
  // [name, argv for a journal of n ops, target ratio, target MiB]
  const cases = [
    [
      'cards recharge (money)',
      () => [
        bin,
        'cards',
        'recharge',
        fixture.cardId,
        '--amount',
        '1',
        '--idempotency-key',
        `bench-run-${process.pid}-${k++}`,
      ],
      1.1,
      60,
    ],
    ['ops list --unresolved', () => [bin, 'ops', 'list', '--unresolved'], 1.2, 100],
    // a key in the middle of the journal (on the empty one: the first key the money command recorded there)
    [
      'ops show KEY',
      (n) => [bin, 'ops', 'show', n > 0 ? `bench-${Math.floor(n / 2)}` : `bench-run-${process.pid}-0`],
      null,
      null,
    ],
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
  console.log(
    `journal (median of ${RUNS} runs; ratio to the same command on an empty journal in this run; peak RSS of one more run)`,
  );
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
  const exportCells = process.env.BENCH_NO_EXPORT
    ? journals.map(() => 'skipped')
    : journals.map((j) => {
        const env = { ...baseEnv, CARDCTL_STATE_DIR: j.dir };
        const ms = timeRun(node, [bin, 'ops', 'list', '--all', '--ndjson'], { env });
        return `${fmt(ms / 1000, 1)} s, ${fmt(peakMiB([bin, 'ops', 'list', '--all', '--ndjson'], env), 0)} MiB`;
      });
  console.log(`| ops list --all --ndjson (once) | ${exportCells.join(' | ')} | <= 120 MiB |`);
  console.log('');
  const rule = await twoDaysBack(journals, baseEnv);
  console.log(
    `24-hour rule, recharges first sent two days ago in the middle of the journal (same command, same key): ${rule.exact ? 'exact' : 'WRONG'}`,
  );
  for (const l of rule.lines) console.log(`  ${l}`);
  if (!rule.exact) process.exitCode = 1;
  console.log('');
  for (const j of journals.filter((x) => x.n > 0)) {
    console.log(
      `takeover of ${j.n.toLocaleString('en')} ops (${fmt(j.oldBytes / 1048576, 0)} MiB old file, generated in ${fmt(j.generatedMs / 1000, 1)} s): ${fmt(j.takeoverMs / 1000, 1)} s, peak ${fmt(j.takeoverRssKiB / 1024, 0)} MiB (target at 1M: <= 15 s)`,
    );
  }
  // what the durable commit of an op record costs: the same inserts with synchronous=FULL and OFF, in this process
  const { DatabaseSync } = await import('node:sqlite');
  const perInsert = (sync) => {
    const db = new DatabaseSync(join(tmp, `sync-${sync}.db`));
    db.exec(`PRAGMA journal_mode = WAL; PRAGMA synchronous = ${sync}; CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)`);
    const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < 200; i++) insert.run(`k${i}`, 'x'.repeat(600));
    const ms = Number(process.hrtime.bigint() - t0) / 1e6 / 200;
    db.close();
    return ms;
  };
  const unsynced = perInsert('OFF');
  const synced = perInsert('FULL');
  console.log(
    `durable commit of a 600-byte record (WAL): ${fmt(synced, 3)} ms with synchronous=FULL, ${fmt(unsynced, 3)} ms with OFF; a money operation commits twice (its op before, its outcome after)`,
  );
} finally {
  mock.stdin.end();
  rmSync(tmp, { recursive: true, force: true });
}
