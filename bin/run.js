#!/usr/bin/env node
// Entry point. Importing oclif costs more than starting node, so:
// 1. `--version` needs only package.json;
// 2. every command line the fast path fully understands runs without oclif: flags parsed from
//    the same manifest definitions, the same command class (src/cli/fast-path.ts);
// 3. everything else goes to oclif: help, usage errors, and a command it does not know
//    (the not-found path: oclif's command_not_found hook and suggestions live there).
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`cardctl/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  const { tryFastPath } = await import('../dist/cli/fast-path.js');
  if (!(await tryFastPath(argv, new URL('../oclif.manifest.json', import.meta.url)))) await runOclif(argv);
}

/** oclif: help, usage errors, unknown commands. The hook where an unknown command falls through. */
async function runOclif(args) {
  const { execute } = await import('@oclif/core');
  await execute({ args, dir: import.meta.url });
}
