// Build: compile src/ to dist/, then write oclif.manifest.json so the CLI starts without
// scanning and importing every command file.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const run = (file, args) => {
  try {
    execFileSync(process.execPath, [file, ...args], { cwd: root, stdio: 'inherit' });
  } catch {
    process.exit(1); // the tool already printed what failed
  }
};

rmSync(join(root, 'oclif.manifest.json'), { force: true });
run(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.build.json']);
run(join(dirname(require.resolve('oclif/package.json')), 'bin', 'run.js'), ['manifest']);
