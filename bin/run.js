#!/usr/bin/env node
// Entry point: a CommonJS script (bin/package.json), so that Node's ES module loader starts only
// if a package is imported. Importing oclif costs more than starting node, so:
// 1. `--version` needs only package.json;
// 2. every command line the fast path fully understands runs without oclif: flags parsed from
//    the same manifest definitions, the same command class (src/cli/fast-path.ts), all from the
//    start-up bundle dist/bundle/cardctl.cjs (scripts/build-bundle.mjs: the fast path and every
//    command in one script), compiled with V8's code cache of an earlier run of the same command
//    (loadBundle below);
// 3. everything else goes to oclif, which loads dist/: help, usage errors, and a command it does
//    not know (the not-found path: oclif's command_not_found hook and suggestions live there).
// CARDCTL_NO_BUNDLE=1 (or `node --enable-source-maps`) runs the fast path from dist/ instead;
// CARDCTL_NO_CODE_CACHE=1 compiles the bundle without a cache.
'use strict';
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');

const root = join(__dirname, '..');
let fastPathRan = false;
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  process.stdout.write(`cardctl/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  // Node >= 22.1 keeps compiled modules between runs (the packages oclif's path loads, for one)
  require('node:module').enableCompileCache?.();
  main();
}

async function main() {
  const manifestUrl = pathToFileURL(join(root, 'oclif.manifest.json'));
  // (Node maps no stack trace of a script compiled by vm: under --enable-source-maps, dist/ itself)
  const fast = process.env.CARDCTL_NO_BUNDLE || process.sourceMapsEnabled ? await import('../dist/cli/fast-path.js') : loadBundle();
  fastPathRan = await fast.tryFastPath(argv, manifestUrl, fast.load);
  if (fastPathRan) return;
  // oclif: help, usage errors, unknown commands. The hook where an unknown command falls through.
  // (its `dir`: where it looks up the package.json of the CLI, not bin/'s)
  const { execute } = await import('@oclif/core');
  await execute({ args: argv, dir: root });
}

/**
 * The bundle's fast path, and a loader of its commands. V8 compiles the script with the code it
 * compiled in an earlier run of the same command (the cache of the command's words, `cards get`,
 * in the user's cache folder), or, the first time, compiles it and writes that cache at exit.
 */
function loadBundle() {
  const { Script } = require('node:vm');
  const file = join(root, 'dist', 'bundle', 'cardctl.cjs');
  const source = readFileSync(file, 'utf8');
  const cacheFile = codeCacheFile(source);
  let cachedData;
  try {
    if (cacheFile) cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const script = new Script(source, { filename: file, cachedData });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) writeCacheAtExit(script, cacheFile);
  const m = { exports: {} };
  script.runInThisContext()(m.exports, require, m, file, dirname(file), importForBundle);
  const { tryFastPath, commands } = m.exports;
  return { tryFastPath, load: (rel) => (commands[rel] ? commands[rel]() : import(pathToFileURL(join(root, rel)).href)) };
}

/** import() for the bundle: a built-in module from require (its namespace's shape), without starting the ES module loader. */
function importForBundle(specifier) {
  if (!require('node:module').isBuiltin(specifier)) return import(specifier);
  const m = require(specifier);
  return Promise.resolve({ ...m, default: m });
}

/** The cache of this command line's words for this bundle and this node, or undefined (CARDCTL_NO_CODE_CACHE). */
function codeCacheFile(source) {
  const hash = /^\/\*cardctl-bundle ([0-9a-f]{16})\*\//.exec(source)?.[1];
  if (!hash || process.env.CARDCTL_NO_CODE_CACHE) return undefined;
  const words = [];
  for (const a of argv) {
    if (words.length === 2 || !/^[a-z][a-z-]*$/.test(a)) break;
    words.push(a);
  }
  return join(cacheFolder(), `bundle-${hash}-${process.version}-${process.arch}-${words.join('-')}.cache`);
}

function cacheFolder() {
  if (process.env.CARDCTL_CACHE_DIR) return process.env.CARDCTL_CACHE_DIR;
  const home = require('node:os').homedir();
  const base = process.env.XDG_CACHE_HOME
    || (process.platform === 'win32' ? process.env.LOCALAPPDATA || join(home, 'AppData', 'Local')
      : process.platform === 'darwin' ? join(home, 'Library', 'Caches') : join(home, '.cache'));
  return join(base, 'cardctl');
}

/** At exit, the code this run of the fast path compiled, for the next run; the caches of other builds go. */
function writeCacheAtExit(script, file) {
  const v8 = require('node:v8');
  const tag = v8.cachedDataVersionTag();
  process.once('exit', () => {
    if (!fastPathRan) return; // oclif's path compiled little of the bundle
    // a run that changed V8's flags (--jq sets --liftoff-only) makes a cache no other run accepts
    if (v8.cachedDataVersionTag() !== tag) return;
    const fs = require('node:fs');
    const folder = dirname(file);
    const name = file.slice(folder.length + 1);
    try {
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(`${file}.${process.pid}`, script.createCachedData());
      fs.renameSync(`${file}.${process.pid}`, file);
      const build = name.slice(0, 'bundle-'.length + 17);
      for (const f of fs.readdirSync(folder)) if (f.startsWith('bundle-') && !f.startsWith(build)) fs.rmSync(join(folder, f), { force: true });
    } catch {
      // a read-only or full folder: the next run compiles the bundle again
    }
  });
}
