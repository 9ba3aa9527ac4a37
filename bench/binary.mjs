// The single-file binary (dist-bin/cardctl, `npm run build:binary`; docs/binary.md) against the
// npm install, as whole processes: each pair runs A then B, and the ratio quoted is the median
// of the pairs' ratios (a pair shares the machine's state of the moment). The API command runs
// against the embedded mock in its own process (bench/serve-mock.mjs) with a profile read from
// a temporary config folder, as in bench/startup.mjs. BENCH_RUNS=N pairs (default 21).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fmt, median, timeRun } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const exe = join(root, 'dist-bin', 'cardctl');
const RUNS = Number(process.env.BENCH_RUNS ?? 21);
const node = process.execPath;
if (!existsSync(exe)) {
  console.error('bench/binary.mjs: no dist-bin/cardctl: run `npm run build:binary` first (`npm run bench:binary` does).');
  process.exit(1);
}

const tmp = mkdtempSync(join(tmpdir(), 'cardctl-bench-bin-'));
const mock = spawn(node, [join(root, 'bench', 'serve-mock.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
try {
  const fixture = JSON.parse(await new Promise((resolve, reject) => {
    createInterface({ input: mock.stdout }).once('line', resolve);
    mock.once('exit', (code) => reject(new Error(`the bench mock exited (${code})`)));
  }));
  const env = { ...process.env, CARDCTL_CONFIG_DIR: join(tmp, 'config'), CARDCTL_STATE_DIR: join(tmp, 'state'), NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && k !== 'CARDCTL_CONFIG_DIR' && k !== 'CARDCTL_STATE_DIR') delete env[k];
  const added = spawnSync(node, [bin, 'profiles', 'add', 'bench', '--key-id', fixture.keyId, '--mode', 'test', '--base-url', fixture.baseUrl, '--secret-stdin'], { env, input: `${fixture.secret}\n` });
  if (added.status !== 0) throw new Error(`profiles add: ${added.stderr}`);

  const get = ['cards', 'get', fixture.cardId];
  // [name, A, B, target]: A and B as [command, args]
  const pairs = [
    ['binary --version / node bin/run.js --version', [exe, ['--version']], [node, [bin, '--version']], 1.0],
    ['binary cards get ID / node -e 0', [exe, get], [node, ['-e', '0']], 1.3],
    ['npm install cards get ID / node -e 0 (info)', [node, [bin, ...get]], [node, ['-e', '0']], null],
    ['binary --version / node -e 0 (info)', [exe, ['--version']], [node, ['-e', '0']], null],
  ];
  for (const [, a, b] of pairs) timeRun(...a, { env }), timeRun(...b, { env }); // warm the file cache
  const ratios = pairs.map(() => []);
  const base = [];
  for (let i = 0; i < RUNS; i++) {
    pairs.forEach(([, a, b], j) => {
      const ta = timeRun(...a, { env });
      const tb = timeRun(...b, { env });
      ratios[j].push(ta / tb);
      if (j === 1) base.push(tb);
    });
  }
  console.log(`single-file binary, median of ${RUNS} paired ratios (node -e 0 = ${fmt(median(base), 1)} ms; ${node} ${process.version})`);
  pairs.forEach(([name, , , target], j) => {
    const r = median(ratios[j]);
    const verdict = target === null ? '' : r <= target ? `ok (target <= ${target}x)` : `OVER target ${target}x`;
    console.log(`  ${name.padEnd(46)} ratio=${fmt(r)}  ${verdict}`);
  });
  console.log(`  ${'size of dist-bin/cardctl'.padEnd(46)} ${fmt(statSync(exe).size / 2 ** 20, 1)} MiB (node itself: ${fmt(statSync(node).size / 2 ** 20, 1)} MiB)`);
} finally {
  mock.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
