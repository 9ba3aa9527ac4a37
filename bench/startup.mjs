// Start-up of `cardctl --version` and `cardctl sign ...` as a ratio to `node -e 0`,
// median of alternating runs (alternating spreads machine noise over all three evenly).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, median, timeRun } from './lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'run.js');
const RUNS = Number(process.env.BENCH_RUNS ?? 25);
const TARGET = 2.4;

const env = {
  ...process.env,
  CARDCTL_CONFIG_DIR: join(root, 'bench', '.tmp-config'),
  CARDCTL_API_SECRET: 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=',
};
const cases = {
  'node -e 0': [process.execPath, ['-e', '0']],
  'cardctl --version': [process.execPath, [bin, '--version']],
  'cardctl sign': [
    process.execPath,
    [bin, 'sign', '--method', 'POST', '--path', '/api/v1/cards', '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W',
      '--timestamp', '1763800000', '--nonce', '6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f',
      '--data', '{"customer_id":"01JD2Q9ZZZZZZZZZZZZZZZZZZZ","amount_minor":5000}', '--json'],
  ],
};

// For information (no target): the same `sign` through oclif, i.e. what the fast path saves,
// and what any other command costs.
cases['sign via oclif (info)'] = [cases['cardctl sign'][0], cases['cardctl sign'][1]];
const caseEnv = { 'sign via oclif (info)': { ...env, CARDCTL_NO_FAST_PATH: '1' } };

const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (const [name, [cmd, args]] of Object.entries(cases)) timeRun(cmd, args, { env: caseEnv[name] ?? env }); // warm the file cache
for (let i = 0; i < RUNS; i++) {
  for (const [name, [cmd, args]] of Object.entries(cases)) times[name].push(timeRun(cmd, args, { env: caseEnv[name] ?? env }));
}

const base = median(times['node -e 0']);
const results = [];
console.log(`start-up, median of ${RUNS} alternating runs (baseline node -e 0 = ${fmt(base, 1)} ms)`);
for (const name of Object.keys(cases)) {
  const m = median(times[name]);
  const ratio = m / base;
  const verdict = name === 'node -e 0' || name.endsWith('(info)') ? '' : ratio <= TARGET ? `ok (target <= ${TARGET}x)` : `OVER target ${TARGET}x`;
  console.log(`  ${name.padEnd(20)} ${fmt(m, 1).padStart(7)} ms  ratio=${fmt(ratio)}  ${verdict}`);
  results.push({ name, median_ms: m, ratio });
}
export default results;
