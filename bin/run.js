#!/usr/bin/env node
// Entry point: a CommonJS script (bin/package.json), so that no file goes through Node's ES
// module loader unless a package is imported. Importing oclif costs more than starting node, so:
// 1. `--version` needs only package.json;
// 2. every command line the fast path fully understands runs without oclif: flags parsed from
//    the same manifest definitions, the same command class (src/cli/fast-path.ts), from the
//    start-up bundles in dist/bundle/ (scripts/build-bundle.mjs: the fast path's script, and one
//    script per topic with its commands), compiled with V8's code cache of an earlier run
//    (loadBundle below);
// 3. everything else goes to oclif, which loads dist/: help, usage errors, and a command it does
//    not know (the not-found path: oclif's command_not_found hook and suggestions live there).
// CARDCTL_NO_BUNDLE=1 (or `node --enable-source-maps`) runs the fast path from dist/ instead;
// CARDCTL_NO_CODE_CACHE=1 compiles the bundles without a cache.
'use strict';
// The journal is SQLite through node:sqlite, built into Node from 22.13: on an older Node, say so in
// one line before anything could import it (never ERR_UNKNOWN_BUILTIN_MODULE or a stack trace).
// (written in the syntax every Node still in use parses, so that an old one reaches this line)
var found = process.versions.node.split('.').map(Number);
if (found[0] < 22 || (found[0] === 22 && found[1] < 13)) {
  process.stderr.write(
    'cardctl needs Node.js 22.13 or newer (found ' +
      process.version +
      '): install a current Node.js (24 LTS) from https://nodejs.org or your package manager, or use the single executable (no Node needed)\n',
  );
  process.exit(2);
}
// Node 22 calls SQLite experimental and says so on stderr at its first use: cardctl's output is its
// own, so that one warning is dropped (every other warning still goes through)
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const type = typeof rest[0] === 'string' ? rest[0] : rest[0]?.type;
  if (type === 'ExperimentalWarning' && /SQLite/.test(String(warning?.message ?? warning))) return;
  return emitWarning.call(process, warning, ...rest);
};
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');
const { pathToFileURL } = require('node:url');

const root = join(__dirname, '..');
const bundles = join(root, 'dist', 'bundle');
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
  // (Node maps no stack trace of a script compiled by vm: under --enable-source-maps, dist/ itself)
  const fast =
    process.env.CARDCTL_NO_BUNDLE || process.sourceMapsEnabled
      ? await import('../dist/cli/fast-path.js')
      : loadBundle();
  fastPathRan = await fast.tryFastPath(
    argv,
    pathToFileURL(fast.manifest ?? join(root, 'oclif.manifest.json')),
    fast.load,
    fast.startJournal,
  );
  if (fastPathRan) return;
  // oclif: help, usage errors, unknown commands. The hook where an unknown command falls through.
  // (its `dir`: where it looks up the package.json of the CLI, not bin/'s)
  const { execute } = await import('@oclif/core');
  await execute({ args: argv, dir: root });
}

/** The bundle's fast path, the manifest it reads (without texts), and a loader of the commands from their topic's script. */
function loadBundle() {
  const { tryFastPath } = runScript('fast-path.cjs', 'fast-path');
  const load = async (rel) => {
    // dist/commands/cards/get.js is in cards.cjs (the rule of scripts/build-bundle.mjs)
    let commands;
    try {
      ({ commands } = runScript(
        `${rel.split('/')[2].replace(/\.js$/, '')}.cjs`,
        rel.slice('dist/commands/'.length, -'.js'.length).replaceAll('/', '-'),
      ));
    } catch (err) {
      if (err?.code !== 'ENOENT') throw err;
    }
    // a command the bundles do not have yet (dist/ built without scripts/build-bundle.mjs): dist/'s
    return commands?.[rel] ? commands[rel]() : import(pathToFileURL(join(root, rel)).href);
  };
  return { tryFastPath, manifest: join(bundles, 'manifest.json'), load, startJournal };
}

/**
 * A shared journal's connection, started before the command's script is compiled (the server
 * makes the session meanwhile; src/client/journal-db/early-connection.ts), when `--journal` or
 * CARDCTL_JOURNAL_URL names one. Once its socket is made (the package makes it on a timer), one
 * turn of the event loop lets its first message out (the socket writes when the loop sees it connected).
 */
async function startJournal(flag) {
  const chosen = flag || process.env.CARDCTL_JOURNAL_URL?.trim(); // target.ts's chooseJournal
  if (!/^postgres(ql)?:\/\//i.test(chosen ?? '')) return; // the local journal
  let socketMade;
  try {
    socketMade = runScript('journal-early.cjs', 'journal-early').connectEarly({ flag, env: process.env });
  } catch {
    return; // a build without it: the journal connects when it opens
  }
  await socketMade;
  await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs one script of dist/bundle/ and returns its exports. V8 compiles it with the code cache of
 * an earlier run of the same `use` (the fast path, or the command) of this build on this node, in
 * the user's cache folder; without one, it compiles the script and writes that cache at exit.
 */
function runScript(name, use) {
  const { Script } = require('node:vm');
  const file = join(bundles, name);
  const source = readFileSync(file, 'utf8');
  const build = /^\/\*cardctl-bundle ([0-9a-f]{16})\*\//.exec(source)?.[1];
  const folder = build && !process.env.CARDCTL_NO_CODE_CACHE ? cacheFolder() : undefined;
  const cacheFile = folder ? join(folder, `${build}-${process.version}-${process.arch}-${use}.cache`) : undefined;
  let cachedData;
  try {
    if (cacheFile) cachedData = readFileSync(cacheFile);
  } catch {
    // none yet
  }
  const script = new Script(source, { filename: file, cachedData });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) writeCacheAtExit(script, cacheFile);
  const m = { exports: {} };
  script.runInThisContext()(m.exports, require, m, file, bundles, importForBundle);
  return m.exports;
}

/**
 * import() for the bundles: a built-in module from require, not through the ES module loader,
 * in its namespace's shape (its exports, and itself as default). Its exports are read
 * through the prototype, not copied: copying calls every getter, and on Node 24 `http.WebSocket`'s
 * loads undici (75 internal modules: `cards get` cost 3.0x of `node -e 0` instead of 2.1x).
 */
function importForBundle(specifier) {
  if (!require('node:module').isBuiltin(specifier)) return import(specifier);
  const m = require(specifier);
  return Promise.resolve(Object.create(m, { default: { value: m, enumerable: true } }));
}

/**
 * The caches of this install (one folder per install: two installs of different versions do not
 * remove each other's caches); undefined (no cache) when no absolute place is known: a relative
 * CARDCTL_CACHE_DIR, XDG_CACHE_HOME (ignored, as the XDG Base Directory specification says) or
 * HOME would put files under the working directory.
 */
function cacheFolder() {
  const { isAbsolute } = require('node:path');
  const absolute = (p) => (p && isAbsolute(p) ? p : undefined);
  let base = process.env.CARDCTL_CACHE_DIR;
  if (base) {
    if (!isAbsolute(base)) return undefined;
  } else {
    let home;
    try {
      home = absolute(require('node:os').homedir());
    } catch {
      home = undefined;
    }
    const platformBase =
      process.platform === 'win32'
        ? absolute(process.env.LOCALAPPDATA) || (home && join(home, 'AppData', 'Local'))
        : process.platform === 'darwin'
          ? home && join(home, 'Library', 'Caches')
          : home && join(home, '.cache');
    const caches = absolute(process.env.XDG_CACHE_HOME) || platformBase;
    if (!caches) return undefined;
    base = join(caches, 'cardctl');
  }
  let h = 0x811c9dc5; // FNV-1a of the install's folder
  for (let i = 0; i < root.length; i++) h = Math.imul(h ^ root.charCodeAt(i), 0x01000193) >>> 0;
  return join(base, `bundle-${h.toString(16).padStart(8, '0')}`);
}

/** At exit, the code this run of the fast path compiled, for the next run; the caches of this install's earlier builds go. */
function writeCacheAtExit(script, file) {
  const v8 = require('node:v8');
  const tag = v8.cachedDataVersionTag();
  process.once('exit', () => {
    if (!fastPathRan) return; // oclif's path compiled little of the bundle
    // a run that changed V8's flags (--jq sets --liftoff-only) makes a cache no other run accepts
    if (v8.cachedDataVersionTag() !== tag) return;
    const fs = require('node:fs');
    const folder = dirname(file);
    const build = file.slice(folder.length + 1, folder.length + 18); // the build's hash and '-'
    try {
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(`${file}.${process.pid}`, script.createCachedData());
      fs.renameSync(`${file}.${process.pid}`, file);
      for (const f of fs.readdirSync(folder)) if (!f.startsWith(build)) fs.rmSync(join(folder, f), { force: true });
    } catch {
      // a read-only or full folder: the next run compiles the bundle again
    }
  });
}
