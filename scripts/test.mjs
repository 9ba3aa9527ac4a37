// `npm test` (CI's `npm ci && npm test`): the whole suite on this machine's Node and, in the
// background at the same time, the tests of each other maintained Node line, one line after
// another (scripts/node-lines.mjs: the demo, the signing vectors, CLI end-to-end tests). The suite
// keeps one core busy; the lines mostly use the other. Fails when either fails.
// Arguments go to vitest, and then only vitest runs (`npm test -- test/signing`) unless NODE_LINES
// is set. NODE_LINES=22,26 picks lines, NODE_LINES=none skips them (a quick local run; CI runs
// them all).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { LINES, ROOT, runLine, stopLine } from './node-lines.mjs';

const picked = process.env.NODE_LINES;
const focused = process.argv.length > 2;
const majors = picked === 'none' || (focused && !picked) ? [] : picked ? picked.split(',').map((s) => s.trim()) : Object.keys(LINES);
const children = [];
const stopAll = () => children.forEach(stopLine);
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) process.once(signal, () => (stopAll(), process.exit(code)));

const t0 = Date.now();
const suite = new Promise((resolve) => {
  const vitest = spawn(process.execPath, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
  vitest.on('close', (code) => resolve(code ?? 1));
  vitest.on('error', () => resolve(1));
});
const lines = (async () => {
  const results = [];
  for (const m of majors) {
    const t = Date.now();
    try {
      results.push({ ...(await runLine(m, { started: (c) => children.push(c) })), seconds: (Date.now() - t) / 1000 });
    } catch (err) {
      results.push({ major: m, version: LINES[m], code: 1, output: `could not run Node ${m}: ${err.message}\n`, seconds: (Date.now() - t) / 1000 });
    }
  }
  return results;
})();

const suiteCode = await suite;
if (majors.length) process.stdout.write(`\nthe suite took ${((Date.now() - t0) / 1000).toFixed(0)} s; the Node lines (${majors.join(', ')}) ...\n`);
const results = await lines;
for (const r of results) {
  process.stdout.write(`━━ Node ${r.version ?? r.major}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`} in ${r.seconds.toFixed(0)} s ━━\n`);
  process.stdout.write(r.code === 0 ? r.output.split('\n').filter((l) => /^ *(Test Files|Tests) /.test(l)).join('\n') + '\n' : r.output);
}
process.stdout.write(`npm test: ${((Date.now() - t0) / 1000).toFixed(0)} s in all\n`);
process.exitCode = suiteCode === 0 && results.every((r) => r.code === 0) ? 0 : 1;
