// Build: compile src/ to dist/, then write oclif.manifest.json so the CLI starts without
// scanning and importing every command file.
// `--lenient` keeps going past type errors (tsc still emits), for work in progress.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolEnv } from './tool-env.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const lenient = process.argv.includes('--lenient');

const run = (file, args, mayFail = false) => {
  try {
    execFileSync(process.execPath, [file, ...args], { cwd: root, stdio: 'inherit', env: toolEnv() });
  } catch {
    if (!mayFail) process.exit(1); // the tool already printed what failed
  }
};

rmSync(join(root, 'oclif.manifest.json'), { force: true });
run(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.build.json'], lenient);
run(join(dirname(require.resolve('oclif/package.json')), 'bin', 'run.js'), ['manifest']);
