// The main script of the single-file binary (docs/binary.md). `--version` is answered here,
// before the 1.7 MiB bundle is even read; anything else compiles the bundle (a SEA asset) with
// the code cache made after a warm-up run (scripts/binary/make-cache.cjs) and runs it.
// scripts/build-binary.mjs replaces __CARDCTL_VERSION__.
'use strict';
const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
  process.stdout.write(`cardctl/__CARDCTL_VERSION__ ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  const { getAsset } = require('node:sea');
  const { Script } = require('node:vm');
  const script = new Script(getAsset('cardctl.cjs', 'utf8'), { filename: '/$cardctl/cardctl.cjs', cachedData: new Uint8Array(getAsset('cardctl.cache')) });
  script.runInThisContext()(require, typeof module === 'undefined' ? {} : module, {}, '/$cardctl/cardctl.cjs', '/$cardctl');
}
