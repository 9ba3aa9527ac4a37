// `cardctl config` (issue 38): the settings a command runs with and where each came from (flag,
// environment, profile, default), resolved as a command resolves them (src/client/settings.ts),
// and every environment variable cardctl reads, with whether it is set. Never a secret's value:
// canaries for the API secret, the webhook secret, the mock token, a proxy's password and a
// vault command's output; the vault command is not even run. Real files in a sandbox, the built CLI.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { MockHandle } from '../helpers/api.js';
import { makeSandbox, ROOT, type CliResult, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

const SECRET = Buffer.from('canary-api-secret-0123456789abcd').toString('base64'); // 32 bytes, as the API's
const WEBHOOK_SECRET = 'whsec_canary_0123456789abcdefghij';
const MOCK_TOKEN = 'mock-token-canary-0123456789';
const PROXY_PASSWORD = 'proxy-pass-canary-42';
const VAULT_OUTPUT = 'vault-printed-canary-secret';
const CANARIES = [SECRET, WEBHOOK_SECRET, MOCK_TOKEN, PROXY_PASSWORD, VAULT_OUTPUT];

let sb: Sandbox;
let mock: MockHandle;
const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  inProcessRunner(sb)(args, { env, input });
type Listing = {
  settings: Record<string, { value: string | number | null; source: string; from: string }>;
  problem: { message: string; hint: string | null } | null;
  environment: Array<{ name: string; set: boolean; secret: boolean; what: string }>;
};
const listing = (r: CliResult): Listing => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Listing;
};
const noCanary = (r: CliResult): void => {
  for (const c of CANARIES) {
    expect(r.stdout).not.toContain(c);
    expect(r.stderr).not.toContain(c);
  }
};

beforeAll(async () => {
  sb = makeSandbox();
  mock = (await startMock({ port: 0, seed: 5, providerLatencyMs: 0 })) as unknown as MockHandle;
  const add = await run(
    [
      'profiles',
      'add',
      'stored',
      '--key-id',
      mock.keys.test.keyId,
      '--mode',
      'test',
      '--base-url',
      mock.baseUrl,
      '--timeout',
      '7',
      '--secret-stdin',
      '--webhook-secret-stdin',
    ],
    {},
    `${mock.keys.test.secret}\n${WEBHOOK_SECRET}\n`,
  );
  expect(add.code, add.stderr).toBe(0);
  const marker = join(sb.dir, 'vault-ran');
  const vault = await run([
    'profiles',
    'add',
    'vault',
    '--key-id',
    mock.keys.live.keyId,
    '--mode',
    'live',
    '--base-url',
    'https://api.example.com/api/v1',
    '--secret-command',
    `touch '${marker}'; echo ${VAULT_OUTPUT}`,
  ]);
  expect(vault.code, vault.stderr).toBe(0);
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('cardctl config: the settings and their sources', () => {
  it('the default profile: its values from the profile, the rest defaults', async () => {
    const r = await run(['config', '--json']);
    noCanary(r);
    const { settings, problem } = listing(r);
    expect(problem).toBeNull();
    expect(settings.profile).toEqual({ value: 'stored', source: 'default', from: 'the default profile' });
    expect(settings.api_key).toMatchObject({ value: mock.keys.test.keyId, source: 'profile' });
    expect(settings.api_secret).toMatchObject({ value: 'stored', source: 'profile' });
    expect(settings.base_url).toMatchObject({ value: mock.baseUrl, source: 'profile' });
    expect(settings.timeout).toMatchObject({ value: '7 s', source: 'profile' });
    expect(settings.retries).toMatchObject({ value: 3, source: 'default' });
    expect(settings.proxy).toMatchObject({ value: null, source: 'default' });
    // the sandbox sets XDG_STATE_HOME: the journal named from it, never with its value
    expect(settings.journal).toEqual({
      value: 'local SQLite $XDG_STATE_HOME/cardctl/journal.db',
      source: 'environment',
      from: 'XDG_STATE_HOME',
    });
    const own = listing(await run(['config', '--json'], { CARDCTL_STATE_DIR: join(sb.dir, 'elsewhere') })).settings;
    expect(own.journal).toEqual({
      value: 'local SQLite $CARDCTL_STATE_DIR/journal.db',
      source: 'environment',
      from: 'CARDCTL_STATE_DIR',
    });
  });

  it('flags beat the environment, which beats the profile', async () => {
    const ca = join(sb.dir, 'extra-ca.pem');
    writeFileSync(ca, '');
    const env = { CARDCTL_TIMEOUT: '12', CARDCTL_CA_FILE: ca };
    const byEnv = listing(await run(['config', '--json'], env)).settings;
    expect(byEnv.timeout).toEqual({ value: '12 s', source: 'environment', from: 'CARDCTL_TIMEOUT' });
    expect(byEnv.ca_file).toMatchObject({ source: 'environment', value: 'the file CARDCTL_CA_FILE names' });
    const byFlag = listing(
      await run(['config', '--timeout', '2.5', '--retries', '1', '--ca-file', ca, '--json'], env),
    ).settings;
    expect(byFlag.timeout).toEqual({ value: '2.5 s', source: 'flag', from: '--timeout' });
    expect(byFlag.retries).toEqual({ value: 1, source: 'flag', from: '--retries' });
    expect(byFlag.ca_file).toMatchObject({ source: 'flag', value: ca });
  });

  it('credentials from the environment, and CARDCTL_PROFILE; a secret command is not run', async () => {
    const env = { CARDCTL_API_KEY: mock.keys.test.keyId, CARDCTL_API_SECRET: SECRET, CARDCTL_MOCK_TOKEN: MOCK_TOKEN };
    const r = await run(['config', '--json'], env);
    noCanary(r);
    const viaEnv = listing(r).settings;
    expect(viaEnv.profile).toMatchObject({ value: null, source: 'environment' });
    expect(viaEnv.api_key).toEqual({ value: mock.keys.test.keyId, source: 'environment', from: 'CARDCTL_API_KEY' });
    expect(viaEnv.api_secret).toEqual({ value: 'set', source: 'environment', from: 'CARDCTL_API_SECRET' });
    expect(viaEnv.base_url).toMatchObject({ source: 'default', value: 'http://127.0.0.1:4010/api/v1' });
    expect(viaEnv.mode).toMatchObject({ source: 'default', value: 'test' });
    const named = await run(['config', '--json'], { CARDCTL_PROFILE: 'vault' });
    noCanary(named);
    const vault = listing(named).settings;
    expect(vault.profile).toEqual({ value: 'vault', source: 'environment', from: 'CARDCTL_PROFILE' });
    expect(vault.api_secret).toMatchObject({ value: 'printed by a command', source: 'profile' });
    expect(vault.mode).toMatchObject({ value: 'live', source: 'profile' });
    expect(existsSync(join(sb.dir, 'vault-ran'))).toBe(false);
    const flag = listing(await run(['config', '-p', 'stored', '--json'], { CARDCTL_PROFILE: 'vault' })).settings;
    expect(flag.profile).toEqual({ value: 'stored', source: 'flag', from: '--profile' });
  });

  it('a proxy: its variable and host, never its password', async () => {
    const env = {
      https_proxy: `http://user:${PROXY_PASSWORD}@proxy.example:3128`,
      HTTP_PROXY: `http://u:${PROXY_PASSWORD}@p2:8080`,
    };
    for (const args of [
      ['config', '-p', 'vault', '--json'],
      ['config', '-p', 'vault'],
    ]) {
      const r = await run(args, env);
      noCanary(r);
      expect(r.code).toBe(0);
    }
    const https = listing(await run(['config', '-p', 'vault', '--json'], env)).settings;
    expect(https.proxy).toEqual({
      value: 'http://proxy.example:3128 (with credentials)',
      source: 'environment',
      from: 'https_proxy',
    });
    const http = listing(await run(['config', '-p', 'stored', '--json'], env)).settings;
    expect(http.proxy).toMatchObject({ source: 'environment', from: 'HTTP_PROXY' });
    const exempt = listing(await run(['config', '-p', 'stored', '--json'], { ...env, NO_PROXY: '127.0.0.1' })).settings;
    expect(exempt.proxy).toMatchObject({ value: null, from: 'none: NO_PROXY matches 127.0.0.1' });
    // an unusable one is said (a command refuses it when it would send), its value not shown
    const bad = await run(['config', '-p', 'stored', '--json'], { HTTP_PROXY: `http://u:${PROXY_PASSWORD}@[oops` });
    noCanary(bad);
    expect(listing(bad).settings.proxy).toMatchObject({
      value: null,
      from: 'HTTP_PROXY: not a usable proxy URL (not shown)',
    });
  });

  it('no credentials at all: the environment is still listed, with the reason and what to do', async () => {
    const empty = makeSandbox();
    try {
      const r = await inProcessRunner(empty)(['config', '--json'], {});
      const l = listing(r);
      expect(l.problem?.message).toMatch(/^no credentials/);
      expect(l.problem?.hint).toMatch(/profiles add/);
      expect(l.environment.length).toBeGreaterThan(30);
      const text = await inProcessRunner(empty)(['config'], {});
      expect(text.stdout).toMatch(/^No settings: no credentials/m);
      expect(text.stdout).toMatch(/^CARDCTL_API_KEY +- /m);
    } finally {
      empty.cleanup();
    }
  });
});

describe('cardctl config: the environment', () => {
  it('says which are set, and of a secret only that it is set, in text and JSON', async () => {
    const env = {
      CARDCTL_API_KEY: mock.keys.test.keyId,
      CARDCTL_API_SECRET: SECRET,
      CARDCTL_WEBHOOK_SECRET: WEBHOOK_SECRET,
      CARDCTL_MOCK_TOKEN: MOCK_TOKEN,
      NO_COLOR: '1',
      CI: 'true',
    };
    const text = await run(['config'], env);
    noCanary(text);
    expect(text.stdout).toMatch(/^CARDCTL_API_SECRET +yes \(secret: not shown\) +API secret/m);
    expect(text.stdout).toMatch(/^CARDCTL_MOCK_TOKEN +yes \(secret: not shown\)/m);
    expect(text.stdout).toMatch(/^CI +yes +true/m);
    expect(text.stdout).toMatch(/^CARDCTL_PROFILE +- +/m);
    const json = await run(['config', '--json'], env);
    noCanary(json);
    const byName = new Map(listing(json).environment.map((v) => [v.name, v]));
    expect(byName.get('CARDCTL_API_SECRET')).toMatchObject({ set: true, secret: true });
    expect(byName.get('NO_COLOR')).toMatchObject({ set: true, secret: false });
    expect(byName.get('CARDCTL_TIMEOUT')).toMatchObject({ set: false });
  });

  it('lists every variable the code reads', async () => {
    const listed = new Set(listing(await run(['config', '--json'])).environment.flatMap((v) => v.name.split(' / ')));
    const read = new Set<string>();
    const scan = (dir: string): void => {
      for (const entry of readdirSync(dir)) {
        const path = join(dir, entry);
        if (statSync(path).isDirectory()) {
          if (entry !== 'mock' && entry !== 'demo') scan(path); // the mock's and demo's own are not the CLI's
          continue;
        }
        if (!/\.(ts|js|cjs|mjs)$/.test(entry)) continue;
        const text = readFileSync(path, 'utf8');
        for (const m of text.matchAll(/(?:env|process\.env)(?:\.|\[['"])([A-Z][A-Z0-9_]+|[a-z]+_proxy)\b/g))
          read.add(m[1]!);
        for (const m of text.matchAll(/['"`]((?:CARDCTL|XDG)_[A-Z0-9_]+|[a-z]+_proxy)['"`]/g)) read.add(m[1]!);
      }
    };
    scan(join(ROOT, 'src'));
    scan(join(ROOT, 'bin'));
    // HOME and USERPROFILE are where the platform's folders are, not settings of cardctl's
    expect(read.size).toBeGreaterThan(25);
    const unlisted = [...read].filter((n) => !listed.has(n) && !['HOME', 'USERPROFILE', 'NODE_ENV'].includes(n));
    expect(unlisted).toEqual([]);
  });
});
