// Build: compile src/ to dist/, then write oclif.manifest.json so the CLI starts without
// scanning and importing every command file, then bundle the fast path and the commands into
// dist/bundle/ (a script for the fast path, one per topic), which bin/run.js starts them from
// (scripts/build-bundle.mjs).
// `--lenient` keeps going past type errors (tsc still emits), for work in progress; `--clean`
// empties dist/ first.
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

// `--clean` (the `prepack` build): start from an empty dist/, so a file whose source was removed
// or renamed is not packed
if (process.argv.includes('--clean')) rmSync(join(root, 'dist'), { recursive: true, force: true });
rmSync(join(root, 'oclif.manifest.json'), { force: true });
run(require.resolve('typescript/bin/tsc'), ['-p', 'tsconfig.build.json'], lenient);
// the web console's page (plain HTML, JS and CSS: src/console/assets/), served from dist/ beside its server
{
  const { cpSync } = await import('node:fs');
  cpSync(join(root, 'src', 'console', 'assets'), join(root, 'dist', 'console', 'assets'), { recursive: true });
}
run(join(dirname(require.resolve('oclif/package.json')), 'bin', 'run.js'), ['manifest']);

// The fast path (src/cli/fast-path.ts) parses command lines from this manifest without loading
// the command classes. oclif's manifest says "option" for every valued flag; add how each
// parses (`kind`: string, integer with min/max, or custom, which the fast path leaves to oclif).
{
  const { pathToFileURL } = await import('node:url');
  const { readFileSync, writeFileSync } = await import('node:fs');
  const { Flags, Args } = await import('@oclif/core');
  const integerParse = Flags.integer().parse;
  const stringParse = String(Flags.string().parse);
  const kindOf = (def, sample) => {
    if (def.type === 'boolean') return String(def.parse) === String(Flags.boolean().parse) ? 'boolean' : 'custom';
    if (def.parse === integerParse) return 'integer';
    return String(def.parse) === stringParse ? 'string' : 'custom';
  };
  const file = join(root, 'oclif.manifest.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  const argStringParse = String(Args.string().parse);
  for (const cmd of Object.values(manifest.commands)) {
    const { default: C } = await import(pathToFileURL(join(root, ...cmd.relativePath)).href);
    for (const [name, def] of Object.entries({ ...C.baseFlags, ...C.flags })) {
      const m = cmd.flags[name];
      if (!m) continue;
      m.kind = kindOf(def);
      // oclif's manifest leaves out a `false` default; its parser still sets it
      if (m.default === undefined && ['boolean', 'number', 'string'].includes(typeof def.default))
        m.default = def.default;
      if (m.kind === 'integer') {
        if (def.min !== undefined) m.min = def.min;
        if (def.max !== undefined) m.max = def.max;
      }
    }
    for (const [name, def] of Object.entries(C.args ?? {})) {
      if (cmd.args[name]) cmd.args[name].kind = String(def.parse) === argStringParse ? 'string' : 'custom';
    }
  }
  writeFileSync(file, JSON.stringify(manifest, null, 2));
}

run(join(root, 'scripts', 'build-bundle.mjs'), []);
