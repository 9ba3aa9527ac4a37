// Build step of scripts/build-binary.mjs: V8's code cache of the two scripts of the binary (the
// app and its packages) after a warm-up run. A SEA's own code cache (useCodeCache) holds what was
// compiled when the blob was made: the top level only. Here the scripts run one representative
// command first (argv after `--`), loaded as the binary's prelude loads them
// (scripts/binary/prelude.cjs: the app's `require` of a package answered from the packages
// script), so the cache also holds the functions that command compiles. Same node, same V8: the
// binary accepts it. Writes OUT.app.cache, and OUT.packages.cache when a package was loaded.
// Usage: node make-cache.cjs APP.js PACKAGES.js OUT -- ARGS...
'use strict';
const { readFileSync, writeFileSync } = require('node:fs');
const { isBuiltin } = require('node:module');
const { Script } = require('node:vm');

const [appFile, packagesFile, out, sep, ...args] = process.argv.slice(2);
if (sep !== '--') throw new Error('usage: make-cache.cjs APP PACKAGES OUT -- ARGS...');
const scripts = {};
const compile = (which, file, name) =>
  (scripts[which] = new Script(readFileSync(file, 'utf8'), { filename: `/$cardctl/${name}.cjs` })).runInThisContext();
let packages;
const appRequire = (id) => {
  if (isBuiltin(id)) return require(id);
  if (!packages) {
    const m = { exports: {} };
    compile('packages', packagesFile, 'packages')(require, m, m.exports, '/$cardctl/packages.cjs', '/$cardctl');
    packages = m.exports;
  }
  return packages[id]();
};
process.argv = [process.argv[0], process.argv[0], ...args];
process.once('exit', () => {
  for (const [which, script] of Object.entries(scripts))
    writeFileSync(`${out}.${which}.cache`, script.createCachedData());
});
compile('app', appFile, 'cardctl')(appRequire, module, exports, '/$cardctl/cardctl.cjs', '/$cardctl');
