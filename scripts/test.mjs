// `npm test` (CI's `npm ci && npm test`): the whole suite on this machine's Node and, in the
// background at the same time, one job after another:
// - BACKGROUND_FILES on this Node: the release and single-file binary test (it builds the binary,
//   about 25 s, and runs the binary's demo), left out of the suite's own run;
// - each other maintained Node line (scripts/node-lines.mjs): the demo, the signing vectors, CLI
//   end-to-end tests, on that line's node.
// The suite runs two test workers (vitest.config.ts), mostly waiting on the processes they start;
// the background jobs share the cores with them. Fails when any of them fails; a failed job prints
// its whole output after the suite's.
// A test that needs a program this machine lacks (zsh, fish, jq: test/helpers/programs.ts) is
// skipped and named at the end, one line per program; CI (.ci/run, CARDCTL_REQUIRE_PROGRAMS=1)
// installs them and fails instead.
// Arguments go to vitest; with a file or filter among them only vitest runs (`npm test --
// test/signing`) unless NODE_LINES is set. NODE_LINES=22,26 picks lines, NODE_LINES=none skips them (a quick local
// run; CI runs them all).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LINES, LINE_TESTS, ROOT, nodeBinary, runVitest, stopLine } from './node-lines.mjs';

/** Files the suite leaves to the background: long, and mostly waiting on child processes. */
const BACKGROUND_FILES = ['test/build/binary.test.ts'];

const picked = process.env.NODE_LINES;
/** test files or name filters given: a focused run (options alone, like --bail=1, are not) */
const focused = process.argv.slice(2).some((a) => !a.startsWith('-'));
const majors =
  picked === 'none' || (focused && !picked)
    ? []
    : picked
      ? picked.split(',').map((s) => s.trim())
      : // the suite's own line (the pinned Node 24 of the clone's scripts) already runs everything
        Object.keys(LINES).filter((m) => m !== process.versions.node.split('.')[0]);
const jobs = [
  ...(focused
    ? []
    : [
        {
          label: `${BACKGROUND_FILES.join(', ')} on Node ${process.version.slice(1)}`,
          node: () => process.execPath,
          files: BACKGROUND_FILES,
        },
      ]),
  ...majors.map((m) => ({ label: `Node ${LINES[m] ?? m}`, node: () => nodeBinary(m), files: LINE_TESTS })),
];

const children = [];
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
])
  process.once(signal, () => (children.forEach(stopLine), process.exit(code)));

const t0 = Date.now();
const seconds = (since) => ((Date.now() - since) / 1000).toFixed(0);
// every worker appends `program<TAB>test file` here for each test it skipped for want of the program
const skipsDir = mkdtempSync(join(tmpdir(), 'cardctl-test-skips-'));
const skipsFile = join(skipsDir, 'skips.tsv');
const suite = new Promise((resolve) => {
  const exclude = focused ? [] : BACKGROUND_FILES.flatMap((f) => ['--exclude', f]);
  const vitest = spawn(
    process.execPath,
    [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...exclude, ...process.argv.slice(2)],
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: { ...process.env, CARDCTL_TEST_SKIPS: skipsFile },
    },
  );
  vitest.on('close', (code) => resolve(code ?? 1));
  vitest.on('error', () => resolve(1));
});
const background = (async () => {
  const results = [];
  for (const job of jobs) {
    const t = Date.now();
    try {
      results.push({
        ...job,
        ...(await runVitest(job.node(), job.files, { started: (c) => children.push(c) })),
        seconds: seconds(t),
      });
    } catch (err) {
      results.push({ ...job, code: 1, output: `could not run: ${err.message}\n`, seconds: seconds(t) });
    }
  }
  return results;
})();

const suiteCode = await suite;
if (jobs.length)
  process.stdout.write(
    `\nthe suite took ${seconds(t0)} s; in the background: ${jobs.map((j) => j.label).join('; ')}\n`,
  );
const results = await background;
for (const r of results) {
  process.stdout.write(`━━ ${r.label}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`} in ${r.seconds} s ━━\n`);
  process.stdout.write(
    r.code === 0
      ? r.output
          .split('\n')
          .filter((l) => /^ *(Test Files|Tests) /.test(l))
          .join('\n') + '\n'
      : r.output,
  );
}
if (jobs.length) process.stdout.write(`npm test: ${seconds(t0)} s in all\n`);
process.stdout.write(skipSummary());
rmSync(skipsDir, { recursive: true, force: true });
process.exitCode = suiteCode === 0 && results.every((r) => r.code === 0) ? 0 : 1;

/** One line per program a test needed and this machine lacks: how many tests it skipped, where, and how to run them. */
function skipSummary() {
  let text = '';
  try {
    text = readFileSync(skipsFile, 'utf8');
  } catch {
    return '';
  }
  const byProgram = new Map();
  for (const line of text.split('\n').filter(Boolean)) {
    const [program, file] = line.split('\t');
    const entry = byProgram.get(program) ?? { count: 0, files: new Set() };
    entry.count += 1;
    entry.files.add(file);
    byProgram.set(program, entry);
  }
  return [...byProgram]
    .map(
      ([program, { count, files }]) =>
        `skipped: ${count} test${count === 1 ? '' : 's'} need ${program}, which is not installed (${[...files].sort().join(', ')}); install ${program} to run them (CI does, .ci/run)\n`,
    )
    .join('');
}
