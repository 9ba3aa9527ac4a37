// Credential precedence and the store's functions, in-process against a temporary store.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardctlError } from '../../src/errors.js';
import { resolveCredentials, resolveSigningSecret, resolveWebhookSecret } from '../../src/profiles/resolve.js';
import {
  addProfile,
  configDir,
  getDefaultProfileName,
  getProfile,
  listProfiles,
  removeProfile,
  setDefaultProfile,
  storePath,
  validateProfile,
} from '../../src/profiles/store.js';
import { DEFAULT_BASE_URL } from '../../src/profiles/types.js';

const KEYS = {
  a: '01JD2Q7N8V3K4M5P6R7S8T9VAA',
  b: '01JD2Q7N8V3K4M5P6R7S8T9VBB',
  c: '01JD2Q7N8V3K4M5P6R7S8T9VCC',
  env: '01JD2Q7N8V3K4M5P6R7S8T9VEE',
};
const secret = (): string => randomBytes(32).toString('base64');

let dir: string;
let storeEnv: NodeJS.ProcessEnv;
let emptyEnv: NodeJS.ProcessEnv;
const envSecret = secret();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cardctl-resolve-'));
  storeEnv = { CARDCTL_CONFIG_DIR: join(dir, 'store') };
  emptyEnv = { CARDCTL_CONFIG_DIR: join(dir, 'empty') };
  await addProfile(
    { name: 'a', keyId: KEYS.a, secret: secret(), mode: 'test', webhookSecret: 'whsec_a' },
    { env: storeEnv },
  );
  await addProfile(
    { name: 'b', keyId: KEYS.b, secret: secret(), mode: 'live', baseUrl: 'https://api.example.com/api/v1' },
    { env: storeEnv },
  );
  await addProfile(
    { name: 'c', keyId: KEYS.c, secret: secret(), mode: 'test', webhookSecret: 'whsec_c' },
    { env: storeEnv },
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function failure(p: Promise<unknown>): Promise<CardctlError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CardctlError);
  return err as CardctlError;
}

describe('resolveCredentials precedence', () => {
  const apiEnv = () => ({
    ...storeEnv,
    CARDCTL_API_KEY: KEYS.env,
    CARDCTL_API_SECRET: envSecret,
    CARDCTL_PROFILE: 'c',
  });

  it('1. --profile beats the API-key variables, CARDCTL_PROFILE and the default', async () => {
    const c = await resolveCredentials({ profile: 'b', env: apiEnv() });
    expect(c).toMatchObject({
      name: 'b',
      keyId: KEYS.b,
      mode: 'live',
      baseUrl: 'https://api.example.com/api/v1',
      source: 'flag',
    });
  });

  it('2. CARDCTL_API_KEY + CARDCTL_API_SECRET beat CARDCTL_PROFILE and the default', async () => {
    expect(await resolveCredentials({ env: apiEnv() })).toEqual({
      name: 'env',
      source: 'env',
      keyId: KEYS.env,
      secret: envSecret,
      mode: 'test',
      modeDefaulted: true,
      baseUrl: DEFAULT_BASE_URL,
      baseUrlFromEnv: false,
    });
    const live = await resolveCredentials({
      env: {
        ...apiEnv(),
        CARDCTL_MODE: 'live',
        CARDCTL_BASE_URL: 'https://x.example/api/v1/',
        CARDCTL_WEBHOOK_SECRET: 'whsec_env',
      },
    });
    expect(live).toMatchObject({
      mode: 'live',
      baseUrl: 'https://x.example/api/v1',
      webhookSecret: 'whsec_env',
      baseUrlFromEnv: true,
    });
    expect(live.modeDefaulted).toBeUndefined(); // CARDCTL_MODE said it: a claim the API's answer is checked against (src/client/key-mode.ts)
  });

  it('3. CARDCTL_PROFILE beats the default; 4. the default profile', async () => {
    expect(await resolveCredentials({ env: { ...storeEnv, CARDCTL_PROFILE: 'c' } })).toMatchObject({
      name: 'c',
      source: 'env-profile',
    });
    expect(await resolveCredentials({ env: storeEnv })).toMatchObject({ name: 'a', keyId: KEYS.a, source: 'default' });
    // an empty variable counts as unset
    expect(await resolveCredentials({ env: { ...storeEnv, CARDCTL_PROFILE: '', CARDCTL_API_KEY: '' } })).toMatchObject({
      name: 'a',
      source: 'default',
    });
  });

  it('says what to do when nothing is configured or a name is unknown', async () => {
    const none = await failure(resolveCredentials({ env: emptyEnv }));
    expect(none.kind).toBe('usage');
    expect(none.message).toMatch(/^no credentials/);
    expect(none.hint).toContain('cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin');
    expect(none.hint).toContain('CARDCTL_API_KEY and CARDCTL_API_SECRET');
    const flag = await failure(resolveCredentials({ profile: 'x', env: storeEnv }));
    expect(flag.message).toBe('no profile named x.');
    expect(flag.hint).toContain('cardctl profiles add x --key-id KEY_ID --mode test --secret-stdin');
    expect(flag.hint).toContain('a, b, c');
    const viaEnv = await failure(resolveCredentials({ env: { ...storeEnv, CARDCTL_PROFILE: 'x' } }));
    expect(viaEnv.message).toBe('CARDCTL_PROFILE names no stored profile.'); // the value is not quoted: it may be a token
    expect(viaEnv.hint).toContain('unset CARDCTL_PROFILE');
  });

  it('refuses half or malformed environment credentials without echoing the secret', async () => {
    const half = await failure(resolveCredentials({ env: { ...storeEnv, CARDCTL_API_KEY: KEYS.env } }));
    expect(half.message).toBe('CARDCTL_API_KEY is set but CARDCTL_API_SECRET is not.');
    const badSecret = envSecret.slice(0, 30);
    const bad = await failure(
      resolveCredentials({ env: { ...storeEnv, CARDCTL_API_KEY: KEYS.env, CARDCTL_API_SECRET: badSecret } }),
    );
    expect(bad.message).toContain('CARDCTL_API_SECRET: the API secret must be exactly 44 base64 characters');
    expect(`${bad.message} ${bad.hint}`).not.toContain(badSecret);
    const badMode = await failure(
      resolveCredentials({
        env: { ...storeEnv, CARDCTL_API_KEY: KEYS.env, CARDCTL_API_SECRET: envSecret, CARDCTL_MODE: 'prod' },
      }),
    );
    expect(badMode.message).toContain('CARDCTL_MODE');
    const badUrl = await failure(
      resolveCredentials({
        env: { ...storeEnv, CARDCTL_API_KEY: KEYS.env, CARDCTL_API_SECRET: envSecret, CARDCTL_BASE_URL: 'file:///etc' },
      }),
    );
    expect(badUrl.message).toContain('CARDCTL_BASE_URL');
  });
});

describe('resolveWebhookSecret and resolveSigningSecret', () => {
  it('webhook: --profile, then CARDCTL_WEBHOOK_SECRET, then CARDCTL_PROFILE or the default', async () => {
    expect(await resolveWebhookSecret({ env: { ...storeEnv, CARDCTL_WEBHOOK_SECRET: 'whsec_env' } })).toEqual({
      secret: 'whsec_env',
      source: 'env',
    });
    expect(
      await resolveWebhookSecret({ profile: 'c', env: { ...storeEnv, CARDCTL_WEBHOOK_SECRET: 'whsec_env' } }),
    ).toEqual({ secret: 'whsec_c', source: 'flag', profile: 'c' });
    expect(await resolveWebhookSecret({ env: { ...storeEnv, CARDCTL_PROFILE: 'c' } })).toMatchObject({
      secret: 'whsec_c',
      profile: 'c',
    });
    expect(await resolveWebhookSecret({ env: storeEnv })).toMatchObject({ secret: 'whsec_a', source: 'default' });
    const missing = await failure(resolveWebhookSecret({ profile: 'b', env: storeEnv }));
    expect(missing.message).toBe('profile b has no webhook secret.');
    expect(missing.hint).toContain('--webhook-secret-stdin');
    const none = await failure(resolveWebhookSecret({ env: emptyEnv }));
    expect(none.message).toMatch(/^no webhook secret/);
  });

  it('signing: CARDCTL_API_SECRET (even malformed, with a warning), else the profile with its key id and base URL', async () => {
    expect(await resolveSigningSecret({ env: { ...storeEnv, CARDCTL_API_SECRET: envSecret } })).toEqual({
      secret: envSecret,
      source: 'env',
    });
    const odd = await resolveSigningSecret({
      env: { ...emptyEnv, CARDCTL_API_SECRET: 'short', CARDCTL_API_KEY: KEYS.env },
    });
    expect(odd).toMatchObject({ secret: 'short', keyId: KEYS.env, source: 'env' });
    expect(odd.warning).toContain('44 base64 characters');
    const b = await getProfile('b', storeEnv);
    expect(await resolveSigningSecret({ profile: 'b', env: { ...storeEnv, CARDCTL_API_SECRET: envSecret } })).toEqual({
      secret: b!.secret,
      keyId: KEYS.b,
      baseUrl: 'https://api.example.com/api/v1',
      mode: 'live',
      source: 'flag',
      profile: 'b',
    });
    expect(await resolveSigningSecret({ env: storeEnv })).toMatchObject({
      keyId: KEYS.a,
      source: 'default',
      profile: 'a',
    });
    expect((await failure(resolveSigningSecret({ env: emptyEnv }))).message).toMatch(/^no secret to sign with/);
  });
});

describe('store functions', () => {
  it('list, default, use and remove keep order and move the default sensibly', async () => {
    const env = { CARDCTL_CONFIG_DIR: join(dir, 'fns') };
    expect(await getDefaultProfileName(env)).toBeNull();
    const first = await addProfile(
      {
        name: 'x.1',
        keyId: KEYS.a.toLowerCase(),
        secret: secret(),
        mode: 'test',
        baseUrl: 'http://127.0.0.1:9/api/v1///',
      },
      { env },
    );
    expect(first).toMatchObject({ isDefault: true, replaced: false, path: storePath(env) });
    expect(first.profile).toMatchObject({ keyId: KEYS.a, baseUrl: 'http://127.0.0.1:9/api/v1' });
    await addProfile({ name: 'y', keyId: KEYS.b, secret: secret(), mode: 'live' }, { env, makeDefault: true });
    await addProfile({ name: 'z', keyId: KEYS.c, secret: secret(), mode: 'test' }, { env });
    expect((await listProfiles(env)).map((p) => p.name)).toEqual(['x.1', 'y', 'z']);
    expect(await getDefaultProfileName(env)).toBe('y');
    await setDefaultProfile('z', { env });
    expect(await getDefaultProfileName(env)).toBe('z');
    expect(await removeProfile('z', { env })).toMatchObject({ removed: 'z', defaultProfile: null }); // two left: no guess
    await removeProfile('y', { env });
    expect(await getDefaultProfileName(env)).toBeNull();
    expect(await getProfile('y', env)).toBeUndefined();
    const saved = JSON.parse(readFileSync(storePath(env), 'utf8'));
    expect(Object.keys(saved.profiles)).toEqual(['x.1']);
    const dup = await failure(addProfile({ name: 'x.1', keyId: KEYS.a, secret: secret(), mode: 'test' }, { env }));
    expect(dup.code).toBe('profile_exists');
  });

  it('loses no update when several writers add profiles at once (lock file)', async () => {
    const env = { CARDCTL_CONFIG_DIR: join(dir, 'parallel') };
    const names = Array.from({ length: 8 }, (_, i) => `p${i}`);
    await Promise.all(
      names.map((name) => addProfile({ name, keyId: KEYS.a, secret: secret(), mode: 'test' }, { env })),
    );
    expect((await listProfiles(env)).map((p) => p.name).sort()).toEqual(names);
    expect(existsSync(`${storePath(env)}.lock`)).toBe(false);
  });

  it('validates each field and says what is expected', () => {
    const ok = { name: 'ok', keyId: KEYS.a, secret: secret(), mode: 'test' };
    expect(validateProfile(ok).profile).toBeDefined();
    // 32 bytes have a canonical 44-character form: the last character's spare bits are zero
    expect(validateProfile({ ...ok, secret: 'A'.repeat(43) + '=' }).profile).toBeDefined();
    expect(validateProfile({ ...ok, secret: 'A'.repeat(42) + 'B=' }).problems.secret).toContain('44 base64 characters');
    expect(validateProfile({ ...ok, secret: 'A'.repeat(44) }).problems.secret).toContain('(got 44 characters)');
    expect(validateProfile({ ...ok, keyId: '81JD2Q7N8V3K4M5P6R7S8T9VAA' }).problems.key_id).toContain('not a ULID'); // beyond the ULID range
    expect(validateProfile({ ...ok, keyId: '01JD2Q7N8V3K4M5P6R7S8T9VAI' }).problems.key_id).toContain(
      'without I, L, O, U',
    );
    expect(validateProfile({ ...ok, name: 'a'.repeat(64) }).profile).toBeDefined();
    expect(validateProfile({ ...ok, name: '' }).problems.name).toContain('1 to 64 characters');
    expect(validateProfile({ ...ok, name: 'a'.repeat(65) }).problems.name).toContain('1 to 64 characters');
    expect(validateProfile({ ...ok, secret: ` ${ok.secret}` }).problems.secret).toContain('whitespace');
    expect(validateProfile({ ...ok, baseUrl: 'not a url' }).problems.base_url).toContain(
      'is not a URL: expected an http',
    );
    expect(
      validateProfile({ ...ok, baseUrl: 'https://user:pw@api.example.com/api/v1' }).problems.base_url,
    ).not.toContain('pw');
    expect(validateProfile({ ...ok, baseUrl: 'https://api.example.com/api/v1?x=1' }).problems.base_url).toContain(
      'query',
    );
    expect(validateProfile({ ...ok, webhookSecret: 'has space' }).problems.webhook_secret).toContain('without spaces');
  });

  it('puts the store in the platform config folder unless CARDCTL_CONFIG_DIR says otherwise', () => {
    expect(configDir({ CARDCTL_CONFIG_DIR: '/srv/cardctl' })).toBe('/srv/cardctl');
    const expected =
      process.platform === 'darwin'
        ? /Library\/Preferences\/cardctl$/
        : process.platform === 'win32'
          ? /cardctl\\Config$/
          : /^\/xdg\/cardctl$/;
    expect(configDir({ XDG_CONFIG_HOME: '/xdg', APPDATA: 'C:\\AppData' })).toMatch(expected);
    expect(storePath({ CARDCTL_CONFIG_DIR: '/srv/cardctl' })).toBe(join('/srv/cardctl', 'profiles.json'));
  });
});
