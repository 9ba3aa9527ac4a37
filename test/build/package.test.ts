// The package as a user gets it: `npm pack`, installed into a temporary prefix, then run from
// another folder: --version, a mock, a signed call with a sample file the package ships, and the
// demo. The README it carries links nothing outside the package. (The tarball is packed from
// the dist/ the test run built: `npm pack --ignore-scripts`; a real `npm pack` builds on prepack.)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The README's install line for a tarball, for the tarball `npm pack` just wrote (its name checked against the README's). */
function readmeTarballLine(filename: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const lines = [...readme.matchAll(/^npm install -g (\.\/cardctl-[^\s]+\.tgz)\s*$/gm)];
  expect(
    lines.map((m) => m[1]),
    'one tarball install line in the README',
  ).toEqual([`./${filename}`]);
  return lines[0]![0];
}

describe('the packed tarball, installed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-pack-'));
  const prefix = join(dir, 'prefix');
  const elsewhere = join(dir, 'elsewhere');
  const pkgDir = join(prefix, 'lib', 'node_modules', 'cardctl');
  const bin = join(prefix, 'bin', 'cardctl');
  let files: string[] = [];
  let installOutput = '';
  let mock: ChildProcess | undefined;
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('CARDCTL_') && !k.startsWith('npm_')) env[k] = v;
  Object.assign(env, {
    NO_COLOR: '1',
    CARDCTL_CONFIG_DIR: join(dir, 'config'),
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_CACHE_HOME: join(dir, 'cache'),
    NODE_ENV: 'production',
  });
  const run = (args: string[], timeout = 60_000) =>
    spawnSync(bin, args, { cwd: elsewhere, env, encoding: 'utf8', timeout });

  beforeAll(() => {
    mkdirSync(elsewhere);
    const pack = spawnSync(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(pack.status, pack.stderr).toBe(0);
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
    files = info!.files.map((f) => f.path);
    // the README's own tarball line, as a user types it in the folder holding the tarball (npm's
    // global prefix moved into the test's folder through npm's environment setting)
    const line = readmeTarballLine(info!.filename);
    const install = spawnSync('sh', ['-c', line], {
      cwd: dir,
      env: {
        ...env,
        npm_config_prefix: prefix,
        npm_config_prefer_offline: 'true',
        npm_config_audit: 'false',
        npm_config_fund: 'false',
      },
      encoding: 'utf8',
      timeout: 180_000,
    });
    installOutput = install.stdout + install.stderr;
    expect(install.status, installOutput).toBe(0);
  }, 240_000);

  afterAll(async () => {
    if (mock && mock.exitCode === null) {
      const exited = new Promise((resolve) => mock!.once('exit', resolve));
      mock.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds the built CLI, the docs, the sample files and the LICENSE; no sources or tests', () => {
    for (const f of [
      'LICENSE',
      'README.md',
      'bin/run.js',
      'bin/package.json',
      'dist/cli/fast-path.js',
      'dist/bundle/fast-path.cjs',
      'dist/bundle/cards.cjs',
      'dist/bundle/manifest.json',
      'oclif.manifest.json',
      'docs/README.md',
      'docs/reference.md',
      'examples/customer.json',
      'completions/cardctl.bash',
    ]) {
      expect(files, f).toContain(f);
    }
    expect(files.filter((f) => f.startsWith('src/') || f.startsWith('test/'))).toEqual([]);
    // installing runs no build: the package has no install or prepare script
    const pjson = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(
      Object.keys(pjson.scripts).filter((s) => ['prepare', 'preinstall', 'install', 'postinstall'].includes(s)),
    ).toEqual([]);
    expect(installOutput).not.toMatch(/prepare|install script/i);
  });

  it('its README links nothing outside the package, and every doc it links that the repository has is packed', () => {
    const readme = readFileSync(join(pkgDir, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(10);
    expect(links.filter((l) => l.startsWith('..') || l.startsWith('/'))).toEqual([]);
    for (const l of links) if (existsSync(join(ROOT, l))) expect(existsSync(join(pkgDir, l)), l).toBe(true);
  });

  it('runs from another folder: --version, a mock, a signed call with a shipped sample file', async () => {
    const version = run(['--version']);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toMatch(/^cardctl\/\d+\.\d+\.\d+ /);
    const m = spawn(bin, ['mock', 'start', '--port', '0', '--save-profiles', '--json'], {
      cwd: elsewhere,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    mock = m;
    const banner = await new Promise<{ base_url: string }>((resolve, reject) => {
      let out = '';
      m.stdout!.setEncoding('utf8').on('data', (d: string) => {
        out += d;
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as { base_url: string });
      });
      m.on('exit', (code) => reject(new Error(`the mock exited (${code})`)));
    });
    expect(banner.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    const created = run(['customers', 'create', '--from', join(pkgDir, 'examples', 'customer.json'), '--json']);
    expect(created.status, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      id: expect.stringMatching(/^[0-9A-Z]{26}$/),
      kyc_status: 'unsubmitted',
    });
  }, 60_000);

  it("starts a command from its bundle, with the code cache its first run left in the user's cache folder", () => {
    const signArgs = [
      'sign',
      '--method',
      'GET',
      '--path',
      '/api/v1/cards',
      '--key-id',
      '01JD2Q7N8V3K4M5P6R7S8T9V0W',
      '--timestamp',
      '1763800000',
      '--nonce',
      'n-1',
      '--json',
    ];
    const sign = (extra: NodeJS.ProcessEnv = {}) =>
      spawnSync(bin, signArgs, {
        cwd: elsewhere,
        env: { ...env, CARDCTL_API_SECRET: 'c2VjcmV0LW9mLXRoZS1wYWNrYWdlLXRlc3Q=', ...extra },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const first = sign();
    expect(first.status, first.stderr).toBe(0);
    const cacheDir = join(dir, 'cache', 'cardctl');
    const written = existsSync(cacheDir) ? readdirSync(cacheDir, { recursive: true, encoding: 'utf8' }) : [];
    expect(
      written.filter((f) => f.endsWith('-sign-index.cache')),
      written.join(', '),
    ).toHaveLength(1);
    // the second run compiles with that cache; dist/ itself (CARDCTL_NO_BUNDLE) answers the same
    const second = sign();
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const unbundled = sign({ CARDCTL_NO_BUNDLE: '1' });
    expect(unbundled.stdout).toBe(first.stdout);
  });

  it('runs the demo from another folder', () => {
    const demo = run(['demo'], 150_000);
    expect(demo.status, demo.stderr.slice(-2000)).toBe(0);
    expect(demo.stdout).toMatch(/✓ all \d+ steps passed in /);
  }, 160_000);
});
