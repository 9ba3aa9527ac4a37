// Build step of scripts/build.mjs: the start-up bundles of the npm install, dist/bundle/
// (docs/ARCHITECTURE.md, "Fast path"). Node's ES module loader resolves, reads and compiles every
// module a command imports, one by one (43 of ours for `cards get`), and Node 20 keeps no
// compiled code between runs. So esbuild bundles the fast path and the commands out of dist/ into
// CommonJS scripts, which bin/run.js compiles with V8's code cache of an earlier run (kept in the
// user's cache folder):
// - fast-path.cjs: src/cli/fast-path.ts alone (it imports nothing of ours);
// - one script per topic of the manifest (cards.cjs, customers.cjs, mock.cjs, sign.cjs...: the
//   first folder under dist/commands/, bin/run.js finds a command's script by the same rule), a
//   table of `() => import()` of each of its commands, with everything they import: a command
//   compiles only its topic's code (sign does not read the HTTP client, cards get not the mock);
// - manifest.json: oclif.manifest.json without its texts, for the fast path.
// Driven by the manifest: a command added, moved or removed needs nothing here. Code the topics
// share is in each of them (a process runs one command: one topic's script).
// - Our lazy imports stay lazy: esbuild turns `await import('./x.js')` into an initialiser that
//   runs x's module when that line runs, not before (the journal, the mock, the diagnosis...).
// - The packages (oclif, zod, conf, chalk, jq-web...) are not bundled: a static import becomes a
//   `require` and a dynamic one `__cardctlImport()`, which bin/run.js answers with import().
// - import.meta.url stays the module's own file in dist/ (package.json, the manifest, the
//   completions and the worker scripts are found from it).
// - Each script is one function expression, its first line naming a hash of the whole build:
//   bin/run.js keys the code caches on it.
// oclif's path (help, usage errors), the package exports and the workers keep loading dist/.
// No source map: Node applies none to a script compiled by vm; under `--enable-source-maps`
// bin/run.js runs dist/ itself, and the bundles mark where each module of dist/ begins.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outdir = join(root, 'dist', 'bundle');
const t0 = Date.now();
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));

// dist/commands/cards/get.js -> cards; dist/commands/sign.js -> sign (the same rule in bin/run.js)
const topics = {};
for (const p of new Set(Object.values(manifest.commands).map((c) => c.relativePath.join('/')))) {
  (topics[p.split('/')[2].replace(/\.js$/, '')] ??= []).push(p);
}
const entries = { 'fast-path': "export { tryFastPath } from './dist/cli/fast-path.js';" };
for (const [topic, paths] of Object.entries(topics)) {
  entries[topic] = [
    'export const commands = {',
    ...paths.sort().map((p) => `  ${JSON.stringify(p)}: () => import(${JSON.stringify(`./${p}`)}),`),
    '};',
  ].join('\n');
}

const plugin = {
  name: 'cardctl-bundle',
  setup(b) {
    b.onResolve({ filter: /^cardctl-bundle:/ }, (args) => ({
      path: args.path.slice('cardctl-bundle:'.length),
      namespace: 'cardctl-bundle',
    }));
    b.onLoad({ filter: /.*/, namespace: 'cardctl-bundle' }, (args) => ({
      contents: entries[args.path],
      resolveDir: root,
      loader: 'js',
    }));
    b.onLoad({ filter: /\.js$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      const rel = relative(outdir, args.path).split('\\').join('/');
      text = text.replaceAll(
        'import.meta.url',
        `new URL(${JSON.stringify(rel)}, require("node:url").pathToFileURL(__filename)).href`,
      );
      // a script has no top-level await: src/cli/oclif.ts picks lite-oclif or oclif synchronously
      if (rel === '../cli/oclif.js') text = text.replace(/await import\(('[^']+')\)/g, 'require($1)');
      // import() of a package, a built-in or a computed path: bin/run.js's (a script compiled by vm has none)
      text = text.replace(/\bimport\((?!\s*['"]\.)/g, '__cardctlImport(');
      return { contents: text, loader: 'js' };
    });
  },
};

const HASH = '0'.repeat(16);
/** What every script of bin/run.js's is built with: a function of what bin/run.js gives it (as Node wraps a CommonJS module), its build's hash first. */
const asScript = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  banner: {
    js: `/*cardctl-bundle ${HASH}*/ (function (exports, require, module, __filename, __dirname, __cardctlImport) {`,
  },
  footer: { js: '})' },
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
};
const result = await build({
  ...asScript,
  entryPoints: Object.fromEntries(Object.keys(entries).map((name) => [name, `cardctl-bundle:${name}`])),
  outdir,
  outExtension: { '.js': '.cjs' },
  packages: 'external',
  plugins: [plugin],
});
// node:tls for the postgres package, loaded at its first use: the package loads it at the start, and
// loading it costs a command more than the rest of the package (measured: 30 ms on Node 24 here,
// and a thread reading the certificate store), when most shared journals on a private network or
// loopback are never asked for TLS.
const tlsWhenUsed = {
  name: 'tls-when-used',
  setup(b) {
    b.onResolve({ filter: /^(node:)?tls$/ }, (args) =>
      args.importer.includes(`${join('node_modules', 'postgres')}`)
        ? { path: 'tls', namespace: 'tls-when-used' }
        : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'tls-when-used' }, () => ({
      contents: "module.exports = { connect: (...args) => process.getBuiltinModule('node:tls').connect(...args) };",
      loader: 'js',
    }));
  },
};

// The shared journal's connection started before the command's script is compiled (bin/run.js,
// src/client/journal-db/early-connection.ts): a script like the topics' (run with its code cache),
// the postgres package inside, read only when a shared journal is named.
const early = await build({
  ...asScript,
  entryPoints: [join(root, 'dist', 'client', 'journal-db', 'early-connection.js')],
  outfile: join(outdir, 'journal-early.cjs'),
  plugins: [
    tlsWhenUsed,
    {
      // the package's CommonJS build: its built-in modules required as they are (its ES build,
      // made CommonJS, copied every export of fs, crypto, net, ... at the start)
      name: 'postgres-commonjs',
      setup(b) {
        b.onResolve({ filter: /^postgres$/ }, () => ({
          path: join(root, 'node_modules', 'postgres', 'cjs', 'src', 'index.js'),
        }));
      },
    },
  ],
});
// (of the same build as the topics' scripts: a run's code cache files of another build are removed)
result.outputFiles.push(...early.outputFiles);
const hash = createHash('sha256');
for (const { text } of result.outputFiles) hash.update(text);
const buildId = hash.digest('hex').slice(0, 16);
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
for (const { path, text } of result.outputFiles) writeFileSync(path, text.replace(HASH, buildId));

// The manifest the fast path reads at every start (src/cli/fast-path.ts): oclif's, without its
// texts (help and usage errors read oclif.manifest.json itself), and without indentation.
const texts = {
  command: ['description', 'summary', 'examples'],
  flag: ['description', 'summary', 'helpGroup'],
  arg: ['description'],
};
const omit = (o, keys) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
const commands = Object.fromEntries(
  Object.entries(manifest.commands).map(([id, c]) => [
    id,
    {
      ...omit(c, texts.command),
      flags: Object.fromEntries(Object.entries(c.flags ?? {}).map(([n, f]) => [n, omit(f, texts.flag)])),
      args: Object.fromEntries(Object.entries(c.args ?? {}).map(([n, a]) => [n, omit(a, texts.arg)])),
    },
  ]),
);
writeFileSync(join(outdir, 'manifest.json'), JSON.stringify({ ...manifest, commands }));

// The postgres package in one module, for a shared journal's connection
// (src/client/journal-db/postgres.ts imports it from here when it is there): a command compiles
// one file, with Node's compile cache, instead of resolving and reading the package's dozen.
await build({
  stdin: { contents: "export { default } from 'postgres';", resolveDir: root, loader: 'js' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node22',
  outfile: join(outdir, 'journal-postgres.mjs'),
  logLevel: 'warning',
  plugins: [tlsWhenUsed],
});

const size = result.outputFiles.reduce((n, f) => n + f.contents.length, 0);
console.log(
  `build-bundle: dist/bundle/, the fast path and ${Object.keys(topics).length} topics' scripts, ${(size / 1024).toFixed(0)} KiB (${Date.now() - t0} ms)`,
);
