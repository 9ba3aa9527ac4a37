// Build step of scripts/build.mjs: the start-up bundle of the npm install,
// dist/bundle/cardctl.cjs (docs/ARCHITECTURE.md, "Fast path"). Node's ES module loader resolves,
// reads and compiles every module a command imports, one by one (43 of ours for `cards get`),
// and Node 20 keeps no compiled code between runs. So esbuild bundles the fast path and every
// command of the manifest out of dist/ into one CommonJS script, which bin/run.js compiles with
// V8's code cache of an earlier run (kept in the user's cache folder).
// - Driven by the manifest: the entry is the fast path and a table of `() => import()` of each
//   command's module (its relativePath); a command added, moved or removed needs nothing here.
// - Our lazy imports stay lazy: esbuild turns `await import('./x.js')` into an initialiser that
//   runs x's module when that line runs, not before (the journal, the mock, the diagnosis...).
// - The packages (oclif, zod, conf, chalk, jq-web...) are not bundled: a static import becomes a
//   `require` and a dynamic one `__cardctlImport()`, which bin/run.js answers with import().
// - import.meta.url stays the module's own file in dist/ (package.json, the manifest, the
//   completions and the worker scripts are found from it).
// - The script is one function expression, its first line naming a hash of the content: bin/run.js
//   keys the code cache on it.
// oclif's path (help, usage errors), the package exports and the workers keep loading dist/.
// No source map: Node applies none to a script compiled by vm; under `--enable-source-maps`
// bin/run.js runs dist/ itself (stack traces name its files), and the bundle marks where each
// module of dist/ begins.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, 'dist', 'bundle', 'cardctl.cjs');
const t0 = Date.now();
const manifest = JSON.parse(readFileSync(join(root, 'oclif.manifest.json'), 'utf8'));
const commandPaths = [...new Set(Object.values(manifest.commands).map((c) => c.relativePath.join('/')))].sort();

const entry = [
  "export { tryFastPath } from './dist/cli/fast-path.js';",
  'export const commands = {',
  ...commandPaths.map((p) => `  ${JSON.stringify(p)}: () => import(${JSON.stringify(`./${p}`)}),`),
  '};',
].join('\n');

const plugin = {
  name: 'cardctl-bundle',
  setup(b) {
    b.onResolve({ filter: /^cardctl-bundle:entry$/ }, () => ({ path: 'entry', namespace: 'cardctl-bundle' }));
    b.onLoad({ filter: /.*/, namespace: 'cardctl-bundle' }, () => ({ contents: entry, resolveDir: root, loader: 'js' }));
    b.onLoad({ filter: /\.js$/ }, (args) => {
      let text = readFileSync(args.path, 'utf8');
      const rel = relative(dirname(outfile), args.path).split('\\').join('/');
      text = text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, require("node:url").pathToFileURL(__filename)).href`);
      // a script has no top-level await: src/cli/oclif.ts picks lite-oclif or oclif synchronously
      if (rel === '../cli/oclif.js') text = text.replace(/await import\(('[^']+')\)/g, 'require($1)');
      // import() of a package, a built-in or a computed path: bin/run.js's (a script compiled by vm has none)
      text = text.replace(/\bimport\((?!\s*['"]\.)/g, '__cardctlImport(');
      return { contents: text, loader: 'js' };
    });
  },
};

const HASH = '0'.repeat(16);
const result = await build({
  entryPoints: ['cardctl-bundle:entry'],
  outfile,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  // the script is a function of what bin/run.js gives it (as Node wraps a CommonJS module)
  banner: { js: `/*cardctl-bundle ${HASH}*/ (function (exports, require, module, __filename, __dirname, __cardctlImport) {` },
  footer: { js: '})' },
  legalComments: 'none',
  write: false,
  logLevel: 'warning',
  plugins: [plugin],
});
rmSync(dirname(outfile), { recursive: true, force: true });
mkdirSync(dirname(outfile), { recursive: true });
for (const { path, text } of result.outputFiles) {
  writeFileSync(path, path === outfile ? text.replace(HASH, createHash('sha256').update(text).digest('hex').slice(0, 16)) : text);
}
const size = result.outputFiles.find((f) => f.path === outfile).contents.length;
console.log(`build-bundle: dist/bundle/cardctl.cjs, ${commandPaths.length} commands, ${(size / 1024).toFixed(0)} KiB (${Date.now() - t0} ms)`);
