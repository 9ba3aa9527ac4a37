// The README's install section as a new user reads it: three ways that work today, in the order
// single executable, tarball, clone; no line installing `cardctl` from the npm registry (the name
// is not the project's: whoever publishes it would be installed); no `<placeholder>` to guess.
// The clone line runs as written, with URL set to this repository. (The tarball line runs in
// test/build/package.test.ts, the executable's checksum and --version in test/build/binary.test.ts.)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox, ROOT } from '../helpers/cli.js';
import { shellBlocks } from './doc-blocks.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const install = readme.slice(readme.indexOf('## Install'), readme.indexOf('## Quick start'));
const blocks = shellBlocks(install).map((b) => b.code);

describe('README: install', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-install-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has the executable, the tarball and the clone, in that order, and no registry install', () => {
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toMatch(/^install -m 755 cardctl-[\d.]+-linux-x64 /m);
    expect(blocks[1]).toMatch(/^npm install -g \.\/cardctl-[\d.]+\.tgz$/m);
    expect(blocks[2]).toMatch(/^git clone /m);
    // anywhere in the README: `npm install -g cardctl` (or `npm i cardctl`) would fetch a stranger's package
    expect(readme).not.toMatch(/npm (install|i)( -g)? cardctl(@\S*)?\s*($|#)/m);
    for (const b of blocks) expect(b).not.toMatch(/<[^>]*>/);
  });

  it('names the release files the release script writes', () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const release = readFileSync(join(ROOT, 'scripts/release.mjs'), 'utf8');
    expect(release).toContain('`cardctl-${version}-${process.platform}-${process.arch}`');
    expect(blocks[0]).toContain(`cardctl-${version}-linux-x64.sha256`);
    expect(blocks[1]).toContain(`cardctl-${version}.tgz`);
  });

  it('its clone line clones, as written, with URL set to the repository', () => {
    const cloneLine = blocks[2]!.split('\n')[0]!.replace(/&&.*$/, '');
    const r = spawnSync('sh', ['-c', cloneLine], {
      cwd: dir,
      env: { ...process.env, URL: ROOT },
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, 'cardctl', 'package.json'), 'utf8')) as { name: string };
    expect(pkg.name).toBe('cardctl');
    expect(existsSync(join(dir, 'cardctl', 'README.md'))).toBe(true);
  });

  it('says what the suite costs and how to run it without the other Node lines', () => {
    expect(readme).toMatch(/What `npm test` costs.\*\* About \d+ minutes on 2 cores/);
    expect(readme).toMatch(/383 MB/);
    expect(readme).toContain('NODE_LINES=none npm test');
    const lines = readFileSync(join(ROOT, 'scripts/test.mjs'), 'utf8');
    expect(lines).toContain('NODE_LINES=none');
  });
});

describe('.gitignore: what documented commands leave in a clone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-clone-'));
  const clone = join(dir, 'cardctl');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('`smoke --mock --junit reports/smoke.xml` and `--junit smoke.xml` leave git status clean', async () => {
    const git = (...args: string[]) => spawnSync('git', args, { cwd: clone, encoding: 'utf8', timeout: 60_000 });
    expect(spawnSync('git', ['clone', '--quiet', ROOT, clone], { encoding: 'utf8' }).status).toBe(0);
    // the clone holds the commit; this branch's .gitignore may not be committed yet while the test is written
    writeFileSync(join(clone, '.gitignore'), readFileSync(join(ROOT, '.gitignore')));
    git('add', '.gitignore');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '--allow-empty', '-m', 'gitignore');
    const sandbox = makeSandbox();
    try {
      for (const report of ['reports/smoke.xml', 'smoke.xml', 'reports/cardctl-smoke.xml']) {
        const r = await sandbox.run(['smoke', '--mock', '--junit', report], { cwd: clone });
        expect(r.code, r.stderr).toBe(0);
        expect(existsSync(join(clone, report))).toBe(true);
      }
    } finally {
      sandbox.cleanup();
    }
    expect(git('status', '--porcelain').stdout).toBe('');
  }, 120_000);
});
