#!/usr/bin/env node
// Entry point. Two shortcuts before oclif, because importing oclif costs more than starting
// node: `--version` needs only package.json, and the local signing commands that scripts call
// in loops run through a fast path that parses the same flag definitions (src/cli/fast-path.ts).
import { readFileSync } from 'node:fs';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v' || argv[0] === 'version')) {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`cardctl/${pkg.version} ${process.platform}-${process.arch} node-${process.version}\n`);
} else {
  const { tryFastPath } = await import('../dist/cli/fast-path.js');
  if (!(await tryFastPath(argv, new URL('../oclif.manifest.json', import.meta.url)))) {
    const { execute } = await import('@oclif/core');
    await execute({ dir: import.meta.url });
  }
}
