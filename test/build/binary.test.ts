// The release (scripts/release.mjs) and its single-file binary (docs/binary.md), as a user gets
// them: the script runs once for this file (about 20-30 s: the bundle, the SEA blob, the copy
// of node with the blob injected, npm pack), on the dist/ the suite built. The binary then runs
// with no node on the PATH and from a folder with nothing beside it.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, type MockHandle } from '../helpers/api.js';
import { ROOT, runCli, type CliResult } from '../helpers/cli.js';
import { startPostgres, type Postgres } from '../helpers/postgres.js';
import { needsPostgres } from '../helpers/programs.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const work = mkdtempSync(join(tmpdir(), 'cardctl-release-test-'));
const out = join(work, 'release');
/** the binary alone in a folder of its own */
const alone = join(work, 'alone');
const exe = join(alone, 'cardctl');
/** a PATH with the machine's tools (the demo's steps use a shell, cat, grep) but no node */
const noNodeBin = join(work, 'bin');
const home = join(work, 'home');
let release: { code: number | null; output: string };

afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(() => {
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'release.mjs'), '--no-build', '--out', out], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 170_000,
  });
  release = { code: r.status, output: `${r.stdout}${r.stderr}` };
  if (r.status !== 0) return;
  mkdirSync(alone);
  copyFileSync(join(out, `cardctl-${version}-linux-x64`), exe);
  spawnSync('chmod', ['755', exe]);
  mkdirSync(noNodeBin);
  // every tool of the PATH (the demo's steps use the shell, cat, grep, ...) but node and its kin
  const NODE_TOOLS = new Set(['node', 'nodejs', 'npm', 'npx', 'corepack']);
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (NODE_TOOLS.has(name) || existsSync(join(noNodeBin, name))) continue;
      try {
        accessSync(join(dir, name), constants.X_OK);
        if (statSync(join(dir, name)).isFile()) symlinkSync(join(dir, name), join(noNodeBin, name));
      } catch {
        /* not an executable file */
      }
    }
  }
  mkdirSync(home);
}, 180_000);

/** The binary's environment: no node on the PATH, a throw-away config and state folder. */
function binEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: noNodeBin,
    HOME: home,
    NO_COLOR: '1',
    CARDCTL_CONFIG_DIR: join(home, 'config'),
    XDG_STATE_HOME: join(home, 'state'),
    ...extra,
  };
}

function runBinary(args: string[], env = binEnv(), timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(exe, args, { cwd: alone, env });
    const o: Buffer[] = [];
    const e: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => o.push(d));
    child.stderr.on('data', (d: Buffer) => e.push(d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(o).toString('utf8'),
        stderr: Buffer.concat(e).toString('utf8'),
      });
    });
    child.stdin.end();
  });
}

const sha256 = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('npm run release', () => {
  it('writes the binary and the npm tarball, each with its SHA-256 file', () => {
    expect(release.code, release.output).toBe(0);
    const files = readdirSync(out).sort();
    expect(files).toEqual([
      `cardctl-${version}-linux-x64`,
      `cardctl-${version}-linux-x64.sha256`,
      `cardctl-${version}.tgz`,
      `cardctl-${version}.tgz.sha256`,
    ]);
    for (const f of [`cardctl-${version}-linux-x64`, `cardctl-${version}.tgz`]) {
      // the format of sha256sum, so `sha256sum -c FILE.sha256` checks it
      expect(readFileSync(join(out, `${f}.sha256`), 'utf8')).toBe(`${sha256(join(out, f))}  ${f}\n`);
    }
    const packed = spawnSync('tar', ['-xzOf', join(out, `cardctl-${version}.tgz`), 'package/package.json'], {
      encoding: 'utf8',
    });
    expect(JSON.parse(packed.stdout).version).toBe(version);
  });

  it("the binary's --version is the package's version, on the maintained Node line it ships (24, not the machine's 20)", async () => {
    const r = await runBinary(['--version']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      new RegExp(`^cardctl/${version.replaceAll('.', '\\.')} linux-x64 node-v24\\.\\d+\\.\\d+\\n$`),
    );
  });
});

describe('the single-file binary, with no node on the PATH and no files beside it', () => {
  it('has no node to find', () => {
    expect(spawnSync('sh', ['-c', 'command -v node'], { env: binEnv() }).status).not.toBe(0);
  });

  it('signs exactly as the npm install does (a signing vector)', async () => {
    const vector = (
      JSON.parse(readFileSync(join(ROOT, 'test', 'fixtures', 'vectors', 'signing.json'), 'utf8')) as Array<
        Record<string, string>
      >
    ).find((v) => v.body_base64 === '')!;
    const args = [
      'sign',
      '--json',
      '--method',
      vector.method!,
      '--path',
      vector.path!,
      '--key-id',
      vector.key_id!,
      '--timestamp',
      vector.timestamp!,
      '--nonce',
      vector.nonce!,
      ...(vector.query ? ['--query', vector.query] : []),
    ];
    const secret = { CARDCTL_API_SECRET: vector.secret!, CARDCTL_BASE_URL: 'http://127.0.0.1:4010/api/v1' };
    const [fromBinary, fromNode] = await Promise.all([
      runBinary(args, binEnv(secret)),
      runCli(args, { env: { ...binEnv(secret), PATH: process.env.PATH } }),
    ]);
    expect(fromBinary.code, fromBinary.stderr).toBe(0);
    expect(JSON.parse(fromBinary.stdout)).toMatchObject({ canonical: vector.canonical, signature: vector.signature });
    expect(fromBinary.stdout).toBe(fromNode.stdout);
    expect(fromBinary.stdout).not.toContain(vector.secret);
  });

  it('starts the mock and makes signed calls to it, through the fast path and through oclif', async () => {
    const mock = spawn(exe, ['mock', 'start', '--port', '0', '--json', '--save-profiles'], {
      cwd: alone,
      env: binEnv(),
    });
    try {
      const banner = JSON.parse(
        await new Promise<string>((resolve, reject) => {
          createInterface({ input: mock.stdout }).once('line', resolve);
          mock.once('exit', (code) => reject(new Error(`mock start exited (${code})`)));
        }),
      ) as { base_url: string };
      expect(banner.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      const listed = await runBinary(['customers', 'list', '--per-page', '1', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual(expect.any(Object));
      // a command found through oclif's manifest, run by oclif itself inside the bundle
      const viaOclif = await runBinary(['mock', 'state', '--json'], binEnv({ CARDCTL_NO_FAST_PATH: '1' }));
      expect(viaOclif.code, viaOclif.stderr).toBe(0);
      expect(JSON.parse(viaOclif.stdout)).toMatchObject({ merchants: 1 });
      // the web console's page is embedded too (dist/console/assets/)
      const login = await runBinary(['mock', 'console', '--jq', '.login_url']);
      expect(login.code, login.stderr).toBe(0);
      const opened = await fetch(login.stdout.trim(), { redirect: 'manual' });
      expect(opened.status).toBe(303);
      const cookie = opened.headers.get('set-cookie')!.split(';')[0]!;
      const origin = new URL(banner.base_url).origin;
      const page = await fetch(`${origin}/_console/`, { headers: { Cookie: cookie } });
      expect(await page.text()).toContain('<title>cardctl mock console</title>');
      const script = await fetch(`${origin}/_console/assets/console.js`);
      expect(await script.text()).toBe(readFileSync(join(ROOT, 'dist', 'console', 'assets', 'console.js'), 'utf8'));
    } finally {
      mock.kill('SIGINT');
    }
    const code = await new Promise<number | null>((resolve) =>
      mock.exitCode !== null ? resolve(mock.exitCode) : mock.once('exit', (c) => resolve(c)),
    );
    expect(code).toBe(0);
  });

  it('prints the completion scripts it carries (embedded files)', async () => {
    for (const shell of ['bash', 'zsh', 'fish']) {
      const r = await runBinary(['completion', shell]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(ROOT, 'completions', `cardctl.${shell}`), 'utf8'));
    }
  });

  it("answers help, an unknown command and a usage error with oclif's words, as the npm install does", async () => {
    for (const args of [['cards', '--help'], ['nosuch'], ['cards', 'get']]) {
      const [b, n] = await Promise.all([runBinary(args), runCli(args, { env: binEnv() })]);
      expect({ code: b.code, stdout: b.stdout, stderr: b.stderr }, args.join(' ')).toEqual({
        code: n.code,
        stdout: n.stdout,
        stderr: n.stderr,
      });
    }
  });

  it("answers a large batch rerun from the journal as the npm install does (node:sqlite in the binary's Node)", async () => {
    // 1,000 recharges the journal (an old operations.ndjson, taken over) holds as done: nothing is
    // sent, so the API's address need not answer
    const n = 1000;
    const baseUrl = 'http://127.0.0.1:9/api/v1';
    const card = '01JABCDEFGHJKMNPQRSTVWXYZ0';
    const body = Buffer.from('{"amount":1}');
    const sha = createHash('sha256').update(body).digest('hex');
    const time = new Date(Date.now() - 3_600_000).toISOString();
    const lines: string[] = [];
    for (let i = 1; i <= n; i++) {
      const id = `op_${i.toString(16).padStart(12, '0')}`;
      lines.push(
        JSON.stringify({
          type: 'op',
          id,
          time,
          profile: null,
          source: 'env',
          mode: 'test',
          base_url: baseUrl,
          key_id: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
          method: 'POST',
          path: `/api/v1/cards/${card}/recharge`,
          query: '',
          idempotency_key: `bin-${i}`,
          body_b64: body.toString('base64'),
          body_sha256: sha,
        }),
      );
      lines.push(
        JSON.stringify({
          type: 'outcome',
          id,
          time,
          status: 200,
          outcome: 'resolved',
          code: null,
          resource_id: card,
          balance_minor: 1000 + i,
        }),
      );
    }
    const rowsFile = join(work, 'rerun.csv');
    writeFileSync(rowsFile, 'card,amount\n' + `${card},1\n`.repeat(n));
    const results: CliResult[] = [];
    for (const who of ['binary', 'npm']) {
      const state = join(work, `rerun-state-${who}`);
      mkdirSync(join(state, 'cardctl'), { recursive: true });
      writeFileSync(join(state, 'cardctl', 'operations.ndjson'), lines.join('\n') + '\n');
      // the machine that sent them learned the key's mode from their answers (src/client/key-mode.ts)
      writeFileSync(
        join(state, 'cardctl', 'key-modes.json'),
        JSON.stringify({
          version: 1,
          keys: { '01JD2Q7N8V3K4M5P6R7S8T9V0W': { mode: 'test', learned_at: time, from: 'answer' } },
        }),
      );
      const env = binEnv({
        XDG_STATE_HOME: state,
        CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        CARDCTL_API_SECRET: 'RAsaYsUnQ3+qjpjrgi/KTVvnCjAHMJ9w7X5UnrMnFiU=',
        CARDCTL_BASE_URL: baseUrl,
        CARDCTL_MODE: 'test',
      });
      const args = [
        'cards',
        'recharge',
        '--batch',
        rowsFile,
        '--allow-duplicates',
        '--idempotency-prefix',
        'bin',
        '--json',
        '--verbose',
      ];
      results.push(
        who === 'binary' ? await runBinary(args, env, 60_000) : await runCli(args, { env, timeoutMs: 60_000 }),
      );
    }
    const [bin, npm] = results as [CliResult, CliResult];
    expect(bin.code, bin.stderr.slice(-2000)).toBe(0);
    expect(bin.stderr).toMatch(/Took over the older journal .*: 2000 records into .*journal\.db/);
    const rows = bin.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { row: number; from_journal: boolean; balance_minor: number });
    expect(rows.map((r) => [r.row, r.from_journal, r.balance_minor])).toEqual(
      Array.from({ length: n }, (_, k) => [k + 1, true, 1001 + k]),
    );
    expect(bin.stdout).toBe(npm.stdout);
  }, 150_000);

  it('runs the demo: every step passes', async () => {
    const r = await runBinary(['demo', '--json'], binEnv(), 150_000);
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    const summary = JSON.parse(r.stdout) as { ok: boolean; steps: unknown[] };
    expect(summary.ok).toBe(true);
    expect(summary.steps.length).toBeGreaterThan(25);
  }, 160_000);
});

describe.runIf(needsPostgres())('the single-file binary with a shared journal', () => {
  let pg: Postgres | undefined;
  let mock: Awaited<ReturnType<typeof startMock>> | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
    mock = await startMock({ port: 0, seed: 77, providerLatencyMs: 0 });
  }, 60_000);
  afterAll(async () => {
    await mock?.close();
    await pg?.stop();
  });

  it('records a money operation in PostgreSQL (the postgres package is in the binary) and answers the same key from there', async () => {
    const m = mock as unknown as MockHandle;
    const card = (await activeCard(m)).id as string;
    const env = binEnv({
      CARDCTL_API_KEY: m.keys.test.keyId,
      CARDCTL_API_SECRET: m.keys.test.secret,
      CARDCTL_BASE_URL: m.baseUrl,
      CARDCTL_MODE: 'test',
      CARDCTL_JOURNAL_URL: pg!.url,
    });
    const args = ['cards', 'recharge', card, '--amount', '9', '--idempotency-key', 'binary-shared-1', '--json'];
    const first = await runBinary(args, env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('new shared operations journal');
    const rows = await pg!.psql(
      "SELECT idempotency_key FROM cardctl_journal.operations WHERE idempotency_key = 'binary-shared-1'",
    );
    expect(rows.trim()).toBe('binary-shared-1');
    const list = await runBinary(['ops', 'list', '--key', 'binary-shared-1', '--json'], env);
    expect(JSON.parse(list.stdout).data).toHaveLength(1);
    expect(first.stdout + first.stderr + list.stdout + list.stderr).not.toContain(pg!.password);
  }, 60_000);
});
