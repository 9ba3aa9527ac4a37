// The main script of the single-file binary (docs/binary.md). `--version` is answered here,
// before any bundle is even read; anything else compiles the app (the asset cardctl.cjs: the
// entry and dist/) with the code cache made after a warm-up run (scripts/binary/make-cache.cjs)
// and runs it. The app's `require` of a package (oclif, zod, ...) is answered from the second
// asset, packages.cjs, compiled with its own cache the first time one is needed: a command the
// fast path runs needs none. scripts/build-binary.mjs replaces __CARDCTL_VERSION__.
'use strict';
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
  process.stdout.write(`cardctl/__CARDCTL_VERSION__ ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  const { getAsset } = require('node:sea');
  const { Script } = require('node:vm');
  const { isBuiltin } = require('node:module');
  /** an asset's script (a function of require, module, exports, __filename, __dirname), compiled with its cache */
  const compile = (name) =>
    new Script(getAsset(`${name}.cjs`, 'utf8'), {
      filename: `/$cardctl/${name}.cjs`,
      cachedData: new Uint8Array(getAsset(`${name}.cache`)),
    }).runInThisContext();
  let packages;
  const appRequire = (id) => {
    if (isBuiltin(id)) return require(id);
    if (!packages) {
      const m = { exports: {} };
      compile('packages')(require, m, m.exports, '/$cardctl/packages.cjs', '/$cardctl');
      packages = m.exports;
    }
    if (!Object.hasOwn(packages, id))
      throw Object.assign(new Error(`Cannot find module '${id}' in the cardctl binary`), { code: 'MODULE_NOT_FOUND' });
    return packages[id]();
  };
  compile('cardctl')(appRequire, typeof module === 'undefined' ? {} : module, {}, '/$cardctl/cardctl.cjs', '/$cardctl');
}
