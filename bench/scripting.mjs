// Scripting output (issue 21): what `--jq` costs a whole process, as a ratio to the same command
// with `--json` measured in the same alternating runs (target <= 1.5x), and that other commands
// do not pay for it (`cards get ID --json` against `node -e 0`, compare bench/startup.mjs).
// The mock runs in its own process (bench/serve-mock.mjs), as in the start-up benchmark.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { fmt, median, timeRun } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 15);
const node = process.execPath;

const tmp = mkdtempSync(join(tmpdir(), 'cardctl-bench-'));
const mock = spawn(node, [join(root, 'bench', 'serve-mock.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
try {
  const fixture = JSON.parse(await new Promise((resolve, reject) => {
    createInterface({ input: mock.stdout }).once('line', resolve);
    mock.once('exit', (code) => reject(new Error(`the bench mock exited (${code})`)));
  }));
  const env = { ...process.env, CARDCTL_CONFIG_DIR: join(tmp, 'config'), XDG_STATE_HOME: join(tmp, 'state'), NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && k !== 'CARDCTL_CONFIG_DIR') delete env[k];
  const added = spawnSync(node, [bin, 'profiles', 'add', 'bench', '--key-id', fixture.keyId, '--mode', 'test', '--base-url', fixture.baseUrl, '--secret-stdin'], { env, input: `${fixture.secret}\n` });
  if (added.status !== 0) throw new Error(`profiles add: ${added.stderr}`);

  const cases = {
    'node -e 0': ['-e', '0'],
    'cards get ID --json': [bin, 'cards', 'get', fixture.cardId, '--json'],
    'cards get ID --jq .id': [bin, 'cards', 'get', fixture.cardId, '--jq', '.id'],
  };
  const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (const args of Object.values(cases)) timeRun(node, args, { env }); // warm the file cache
  for (let i = 0; i < RUNS; i++) for (const [name, args] of Object.entries(cases)) times[name].push(timeRun(node, args, { env }));
  const ratio = (a, b) => median(times[a].map((t, i) => t / times[b][i])); // pair by pair: drift cancels
  console.log(`--jq, median of ${RUNS} alternating runs (node -e 0 = ${fmt(median(times['node -e 0']), 1)} ms)`);
  console.log(`  cards get ID --json / node -e 0      ratio=${fmt(ratio('cards get ID --json', 'node -e 0'))}  (the start-up benchmark's figure: unchanged by --jq)`);
  const jq = ratio('cards get ID --jq .id', 'cards get ID --json');
  console.log(`  cards get ID --jq .id / --json       ratio=${fmt(jq)}  ${jq <= 1.5 ? 'ok' : 'OVER'} (target <= 1.5x)`);
} finally {
  mock.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
