// `npm run release`: what a release publishes, in release/ (or `--out DIR`):
//   cardctl-VERSION.tgz             the npm package (npm pack)
//   cardctl-VERSION-linux-x64       the single-file binary (scripts/build-binary.mjs, docs/binary.md)
//   and FILE.sha256 beside each:    "HEX  FILE", checked with `sha256sum -c FILE.sha256`
// It builds from an empty dist/ first (as `npm pack` would), then packs that same build (so the
// tarball and the binary hold the same code), and refuses to finish when the binary's --version
// is not the package's. `--no-build` uses the dist/ that is there (the test does: the suite
// must not empty dist/ under the tests that run it).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const OUT = outAt >= 0 ? resolve(args[outAt + 1]) : join(ROOT, 'release');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const node = (script, ...rest) =>
  execFileSync(process.execPath, [join(ROOT, script), ...rest], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });

mkdirSync(OUT, { recursive: true });
if (!args.includes('--no-build')) node('scripts/build.mjs', '--clean');

// the binary
const work = join(OUT, `.binary-${process.pid}`);
node('scripts/build-binary.mjs', '--out', work);
const binary = join(OUT, `cardctl-${version}-${process.platform}-${process.arch}`);
renameSync(join(work, 'cardctl'), binary);
rmSync(work, { recursive: true, force: true });
const printed = execFileSync(binary, ['--version'], { encoding: 'utf8', env: { PATH: '' } }).trim();
if (!printed.startsWith(`cardctl/${version} `)) {
  console.error(`release: the binary says "${printed}", the package is ${version}: not released.`);
  process.exit(1);
}

// the npm tarball, of the build above (prepack would build again)
const before = new Set(readdirSync(OUT));
execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', OUT, '--silent'], {
  cwd: ROOT,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const tarball = readdirSync(OUT).find((f) => f.endsWith('.tgz') && (!before.has(f) || f === `cardctl-${version}.tgz`));
if (!tarball) throw new Error('npm pack wrote no tarball');

for (const file of [binary, join(OUT, tarball)]) {
  const hex = createHash('sha256').update(readFileSync(file)).digest('hex');
  writeFileSync(`${file}.sha256`, `${hex}  ${basename(file)}\n`);
  console.log(`${basename(file)}  sha256 ${hex}`);
}
console.log(`release ${version} in ${OUT} (${printed})`);
