#!/usr/bin/env node
// Entry point. `--version` is answered without loading oclif: it is the command scripts
// call most often to probe for the tool, and it needs nothing but package.json.
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`cardctl/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  const { execute } = await import('@oclif/core');
  await execute({ dir: import.meta.url });
}
