// The takeover of an older file journal (issue 35's target: a million operations in <= 15 s): the
// single operations.ndjson (bench/journal-fixture.mjs) and the same records as the folder journal
// kept them (each line `<crc32> <JSON>`, in its key's bucket and in its hour's segment), each taken
// over by `cardctl ops list --limit 1` in a fresh state folder: wall time, CPU time, peak RSS
// (/usr/bin/time). BENCH_BASELINE=/path/to/another/checkout (built) takes the same files over with
// that cardctl too, alternating, in the same run. BENCH_OPS (default 1,000,000), BENCH_RUNS
// (default 1), BENCH_FOLDER=0 skips the folder journal. Fixtures under $TMPDIR/cardctl-bench-takeover.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { writeLegacyJournal } from './journal-fixture.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const N = Number(process.env.BENCH_OPS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const cache = join(tmpdir(), 'cardctl-bench-takeover');
const { NODE_EXTRA_CA_CERTS: _ca, ...env } = process.env;
mkdirSync(cache, { recursive: true });

const file = join(cache, `operations-${N}.ndjson`);
if (!existsSync(file)) writeLegacyJournal(file, N);

/** The folder journal of the same records (keys/<3 hex of the key's SHA-256>.ndjson and segments/<day>/<hour>.ndjson). */
function folderOf(src) {
  const dir = join(cache, `journal-${N}`);
  if (existsSync(join(dir, 'done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  const out = new Map();
  const flush = () => {
    for (const [f, lines] of out) {
      mkdirSync(join(f, '..'), { recursive: true });
      const fd = openSync(f, 'a');
      writeSync(fd, lines.join(''));
      closeSync(fd);
    }
    out.clear();
  };
  const opOf = new Map(); // op id -> [bucket, time] (the answers follow their op)
  let count = 0;
  const take = (line) => {
    const r = JSON.parse(line);
    if (r.type === 'op')
      opOf.set(r.id, [createHash('sha256').update(r.idempotency_key).digest('hex').slice(0, 3), r.time]);
    const [bucket, time] = opOf.get(r.id);
    const text = `${crc32(line).toString(16).padStart(8, '0')} ${line}\n`;
    for (const f of [
      join(dir, 'keys', `${bucket}.ndjson`),
      join(dir, 'segments', time.slice(0, 10), `${time.slice(11, 13)}.ndjson`),
    ]) {
      if (!out.has(f)) out.set(f, []);
      out.get(f).push(text);
    }
    if (r.type === 'outcome') opOf.delete(r.id);
    if (++count % 200_000 === 0) flush();
  };
  // read 64 MiB at a time (the million's file is longer than one string may be)
  const fd = openSync(src, 'r');
  const buf = Buffer.alloc(64 << 20);
  let rest = '';
  for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0; ) {
    const lines = (rest + buf.toString('utf8', 0, n)).split('\n');
    rest = lines.pop();
    for (const line of lines) if (line) take(line);
  }
  if (rest) take(rest);
  closeSync(fd);
  flush();
  writeSync(openSync(join(dir, 'done'), 'w'), '');
  return dir;
}

function takeOver(cardctlRoot, old, label) {
  const state = join(cache, `state-${label}`);
  rmSync(state, { recursive: true, force: true });
  mkdirSync(state, { recursive: true, mode: 0o700 });
  if (old.endsWith('.ndjson')) linkSync(old, join(state, 'operations.ndjson'));
  else cpSync(old, join(state, 'journal'), { recursive: true });
  const times = join(cache, 'time.txt');
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  const r = spawnSync(
    '/usr/bin/time',
    [
      '-f',
      '%e %U %S %M',
      '-o',
      times,
      process.execPath,
      join(cardctlRoot, 'bin', 'run.js'),
      'ops',
      'list',
      '--limit',
      '1',
    ],
    {
      env: { ...env, CARDCTL_STATE_DIR: state },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  if (r.status !== 0) throw new Error(`${label}: ${r.stderr}`);
  const [wall, user, sys, kib] = readFileSync(times, 'utf8').trim().split('\n').at(-1).split(' ').map(Number);
  rmSync(state, { recursive: true, force: true });
  return { label, wall, cpu: user + sys, mib: kib / 1024, load };
}

const olds = [
  ['operations.ndjson', file],
  ...(process.env.BENCH_FOLDER === '0' ? [] : [['journal/ (two copies)', folderOf(file)]]),
];
const builds = [['this', root], ...(process.env.BENCH_BASELINE ? [['baseline', process.env.BENCH_BASELINE]] : [])];
for (let run = 0; run < RUNS; run++)
  for (const [what, old] of olds)
    for (const [who, at] of run % 2 ? [...builds].reverse() : builds) {
      const t = takeOver(at, old, `${who}`);
      console.log(
        `${what.padEnd(22)} ${who.padEnd(8)} ${N.toLocaleString('en')} ops: ${t.wall.toFixed(1)} s (cpu ${t.cpu.toFixed(1)} s), peak ${t.mib.toFixed(0)} MiB, load ${t.load}`,
      );
    }
