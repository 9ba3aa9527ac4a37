// The entry of the single-file binary (docs/binary.md): bin/run.js for a bundle that has no
// files beside it (`--version` is answered before, by scripts/binary/prelude.cjs). scripts/build-binary.mjs bundles it with dist/ and every dependency into one
// CommonJS script, and gives it `cardctl-binary:embedded`: the package's files the code reads at
// run time (package.json, the manifest, completions), served under a virtual root, and the
// table of the modules that are loaded by path (the commands; oclif's help class and hook).
import fs from 'node:fs';
import { getAsset } from 'node:sea';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FILES, MODULES, VROOT } from 'cardctl-binary:embedded';

const BINARY = Symbol.for('cardctl.binary');
const IMPORT = Symbol.for('cardctl.import');

/** The completion scripts (FILES holds null for each): the SEA's asset completions.json, read when one is asked for. */
let completions;
function fromAsset(rel) {
  completions ??= JSON.parse(getAsset('completions.json', 'utf8'));
  return completions[rel];
}

/** The embedded file at a path or file: URL under VROOT, or undefined. */
function embedded(target) {
  let path;
  if (target instanceof URL) path = target.protocol === 'file:' ? fileURLToPath(target) : undefined;
  else if (typeof target === 'string') path = target.startsWith('file:') ? fileURLToPath(target) : target;
  if (!path || !path.startsWith(VROOT + '/')) return undefined;
  const rel = path.slice(VROOT.length + 1);
  return { rel, text: Object.hasOwn(FILES, rel) ? (FILES[rel] ?? fromAsset(rel)) : undefined };
}

const notFound = (path) =>
  Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), {
    code: 'ENOENT',
    errno: -2,
    syscall: 'open',
    path: String(path),
  });
const asEncoded = (text, options) =>
  (typeof options === 'string' ? options : options?.encoding) ? text : Buffer.from(text, 'utf8');

// Reads of the package's own files (new URL('../../package.json', import.meta.url) and the like)
const { readFileSync, existsSync } = fs;
fs.readFileSync = function (target, options) {
  const e = embedded(target);
  if (!e) return readFileSync.apply(this, arguments);
  if (e.text === undefined) throw notFound(target);
  return asEncoded(e.text, options);
};
fs.existsSync = function (target) {
  const e = embedded(target);
  if (!e) return existsSync.apply(this, arguments);
  return e.text !== undefined || Object.hasOwn(MODULES, e.rel);
};
// fs/promises' readFile, for the modules of dist/ (the build points their imports at a shim that
// asks this first; fs/promises itself is not loaded before it is needed)
globalThis[Symbol.for('cardctl.readEmbedded')] = (target, options) => {
  const e = embedded(target);
  if (!e) return undefined;
  return e.text === undefined ? Promise.reject(notFound(target)) : Promise.resolve(asEncoded(e.text, options));
};

/** oclif reads package.json and the manifest with fs.promises (not touched before: loading it costs a start). */
function embedPromisesReadFile() {
  const readFile = fs.promises.readFile;
  fs.promises.readFile = async function (target, options) {
    const e = embedded(target);
    if (!e) return readFile.apply(this, arguments);
    if (e.text === undefined) throw notFound(target);
    return asEncoded(e.text, options);
  };
}

// import() by path: the commands (fast path, oclif), oclif's help class and hooks
globalThis[IMPORT] = async (specifier) => {
  const e = embedded(specifier);
  const load = e && MODULES[e.rel];
  if (!load)
    throw Object.assign(new Error(`Cannot find module '${specifier}' in the cardctl binary`), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
  return load();
};
globalThis[BINARY] = true;

async function main() {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
    const pkg = JSON.parse(FILES['package.json']);
    process.stdout.write(`cardctl/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`);
    return;
  }
  const manifestUrl = pathToFileURL(`${VROOT}/oclif.manifest.json`);
  const { tryFastPath } = await import('../../dist/cli/fast-path.js');
  if (await tryFastPath(argv, manifestUrl)) return;
  embedPromisesReadFile();
  const { execute } = await import('@oclif/core');
  await execute({ args: argv, dir: pathToFileURL(`${VROOT}/bin/run.js`).href });
}

main().catch((err) => {
  process.stderr.write(`cardctl: ${err?.message ?? err}\n`);
  process.exitCode = 1;
});
