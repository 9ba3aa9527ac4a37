// Step 10: `cardctl mock start` as a child process (the built CLI), the control commands that
// find it through its record (mocks/<pid>.json in the config folder), a clean stop on SIGTERM,
// and two mocks at once: neither loses its record or its profiles to the other.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, makeSandbox, ROOT, type CliOptions } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { apiCall, expectOk, handleFromBanner } from '../helpers/api.js';

const sandbox = makeSandbox();
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sandbox)(args, options);
afterAll(() => sandbox.cleanup());

function spawnMock(args: string[]): ChildProcessWithoutNullStreams {
  const env: NodeJS.ProcessEnv = { ...process.env, ...sandbox.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && !(k in sandbox.env)) delete env[k];
  return spawn(process.execPath, [BIN, 'mock', 'start', '--port', '0', ...args], { cwd: ROOT, env });
}

/** Resolves with the first line of `stream` (stdout banner) or the first chunk matching `until` (stderr banner). */
function firstText(child: ChildProcessWithoutNullStreams, stream: 'stdout' | 'stderr', until: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child[stream].on('data', (d: Buffer) => {
      text += d.toString();
      if (until.test(text)) resolve(text);
    });
    child.on('exit', (code) => reject(new Error(`mock exited with ${code}; stderr: ${err}`)));
  });
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) =>
    child.exitCode !== null ? resolve(child.exitCode) : child.on('exit', (code) => resolve(code)),
  );
}

describe('cardctl mock start', () => {
  it('--json: banner first on stdout, serves signed requests, control commands find it, SIGTERM stops it cleanly', async () => {
    const child = spawnMock(['--json', '--seed', '4', '--save-profiles']);
    try {
      const line = (await firstText(child, 'stdout', /\n/)).split('\n')[0]!;
      const banner = JSON.parse(line);
      expect(Object.keys(banner)).toEqual([
        'base_url',
        'control_url',
        'control_token',
        'merchant_id',
        'keys',
        'webhook_secret',
        'products',
        'networks',
      ]);
      const mock = handleFromBanner(banner);
      const port = mock.port;
      expect(expectOk(await apiCall(mock, { method: 'GET', path: '/customers' }))).toEqual([]);

      const mockFile = join(sandbox.configDir, 'mocks', `${child.pid}.json`);
      expect(statSync(mockFile).mode & 0o777).toBe(0o600);
      const state = await runIn(['mock', 'state', '--json']);
      expect(state.code, state.stderr).toBe(0);
      expect(JSON.parse(state.stdout)).toMatchObject({ merchants: 1, seed: 4 });
      const advanced = await runIn(['mock', 'clock', 'advance', '90', '--json']);
      expect(JSON.parse(advanced.stdout).offset_seconds).toBe(90);
      // mock keys create --expires-in: the key works until the simulated clock passes its expiry
      const created = await runIn(['mock', 'keys', 'create', '--mode', 'test', '--expires-in', '60', '--json']);
      expect(created.code, created.stderr).toBe(0);
      const expiring = JSON.parse(created.stdout);
      expect(typeof expiring.expires_at).toBe('string');
      const expiringKey = { keyId: expiring.key_id, secret: expiring.secret };
      expectOk(await apiCall(mock, { method: 'GET', path: '/customers', key: expiringKey }));
      expect((await runIn(['mock', 'clock', 'advance', '61', '--json'])).code).toBe(0);
      const refused = await apiCall(mock, { method: 'GET', path: '/customers', key: expiringKey });
      expect(refused.status).toBe(401);
      expect(refused.body.errors.gateway).toEqual(['invalid_api_key']);
      const missing = await runIn(['mock', 'kyc', '01JD2QZZZZZZZZZZZZZZZZZZZZ', '--verdict', 'approved']);
      expect(missing.code).toBe(4);
      expect(missing.stderr).toMatch(/not found/);
      const endpoint = await runIn(['mock', 'webhook-endpoints', 'add', 'http://127.0.0.1:9/hooks', '--json']);
      expect(endpoint.code, endpoint.stderr).toBe(0);
      const enabled = await runIn(['mock', 'webhook-endpoints', 'enable', JSON.parse(endpoint.stdout).id, '--json']);
      expect(enabled.code, enabled.stderr).toBe(0);
      expect(JSON.parse(enabled.stdout)).toMatchObject({ url: 'http://127.0.0.1:9/hooks', enabled: true });

      const profiles = readFileSync(join(sandbox.configDir, 'profiles.json'), 'utf8');
      expect(profiles).toContain('mock-test');
      expect(profiles).toContain(banner.keys.live.key_id);

      child.kill('SIGTERM');
      expect(await exitOf(child)).toBe(0);
      expect(existsSync(mockFile)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('without --json: a readable banner on stderr without any secret, nothing on stdout', async () => {
    const child = spawnMock(['--seed', '4']);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    try {
      const text = await firstText(child, 'stderr', /Ctrl-C/);
      expect(text).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
      const token = JSON.parse(readFileSync(join(sandbox.configDir, 'mocks', `${child.pid}.json`), 'utf8'))
        .control_token as string;
      expect(text).not.toContain(token);
      expect(text).not.toMatch(/[A-Za-z0-9+/]{43}=/); // no 44-character base64 secret
      child.kill('SIGINT');
      expect(await exitOf(child)).toBe(0);
      expect(out).toBe('');
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it("two mocks: the second keeps the first's record, the commands use the newest and say so, stopping one keeps the other's record and profiles", async () => {
    const first = spawnMock(['--json', '--seed', '5', '--save-profiles']);
    let second: ChildProcessWithoutNullStreams | undefined;
    try {
      const a = JSON.parse((await firstText(first, 'stdout', /\n/)).split('\n')[0]!);
      // a second --save-profiles would replace the first's profiles: refused, nothing started
      const refused = await sandbox.run(['mock', 'start', '--port', '0', '--save-profiles', '--json']);
      expect(refused.code).toBe(2);
      expect(refused.stdout + refused.stderr).toMatch(
        new RegExp(`mock-test and mock-live belong to the mock still running \\(pid ${first.pid}`),
      );
      const profilesBefore = readFileSync(join(sandbox.configDir, 'profiles.json'), 'utf8');
      expect(profilesBefore).toContain(a.keys.test.key_id);

      second = spawnMock(['--json', '--seed', '6']);
      let secondErr = '';
      second.stderr.on('data', (d: Buffer) => (secondErr += d.toString()));
      const b = JSON.parse((await firstText(second, 'stdout', /\n/)).split('\n')[0]!);
      expect(b.control_token).not.toBe(a.control_token);
      expect(readdirSync(join(sandbox.configDir, 'mocks')).sort()).toEqual(
        [`${first.pid}.json`, `${second.pid}.json`].sort(),
      );
      await new Promise((r) => setTimeout(r, 50));
      expect(secondErr).toMatch(new RegExp(`another mock is running \\(pid ${first.pid}.*now use this one`));

      // the commands use the newest, and say which
      const state = await runIn(['mock', 'state', '--json']);
      expect(state.code, state.stderr).toBe(0);
      expect(JSON.parse(state.stdout)).toMatchObject({ seed: 6 });
      expect(state.stderr).toMatch(new RegExp(`2 mocks are running; using the newest \\(pid ${second.pid}`));

      // stopping the second leaves the first's record and profiles: the commands find the first again
      second.kill('SIGTERM');
      expect(await exitOf(second)).toBe(0);
      expect(readdirSync(join(sandbox.configDir, 'mocks'))).toEqual([`${first.pid}.json`]);
      const back = await runIn(['mock', 'state', '--json']);
      expect(back.code, back.stderr).toBe(0);
      expect(JSON.parse(back.stdout)).toMatchObject({ seed: 5 });
      expect(back.stderr).not.toMatch(/mocks are running/);
      expect(readFileSync(join(sandbox.configDir, 'profiles.json'), 'utf8')).toBe(profilesBefore);
      const listed = await runIn(['customers', 'list', '-p', 'mock-test', '--json']);
      expect(listed.code, listed.stderr).toBe(0);
      first.kill('SIGTERM');
      expect(await exitOf(first)).toBe(0);
      expect(readdirSync(join(sandbox.configDir, 'mocks'))).toEqual([]);
    } finally {
      for (const child of [first, second]) if (child && child.exitCode === null) child.kill('SIGKILL');
    }
  });

  it('a control command with no running mock says how to start one', async () => {
    const res = await runIn(['mock', 'wallets']);
    expect(res.code).toBe(8);
    expect(res.stderr).toMatch(/cardctl mock start/);
  });
});
