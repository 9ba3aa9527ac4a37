// The `profiles` commands through the real built CLI, with a temporary CARDCTL_CONFIG_DIR: in this
// process (test/helpers/in-process.ts), and as a child process under `umask 000` (its file modes).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, ROOT, makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

const KEY_A = '01JD2Q7N8V3K4M5P6R7S8T9V0W';
const KEY_B = '01JD2Q7N8V3K4M5P6R7S8T9V0X';
const newSecret = (): string => randomBytes(32).toString('base64');

/** Every printable form of a secret that must never show up in output. */
function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'base64');
  const forms = [secret, secret.slice(0, 20), secret.slice(-20)];
  if (bytes.length === 32)
    forms.push(bytes.toString('hex'), bytes.toString('base64url'), bytes.toString('hex').toUpperCase());
  return forms;
}

function expectNoSecret(text: string, ...secrets: string[]): void {
  for (const s of secrets) for (const form of secretForms(s)) expect(text).not.toContain(form);
}

const mode = (path: string): string => (statSync(path).mode & 0o777).toString(8);

let sandboxes: Sandbox[] = [];
/** A sandbox whose `run` is the built CLI in this process (test/helpers/in-process.ts); runUmask000 is a child process. */
function sandbox(): Sandbox {
  const s = makeSandbox();
  sandboxes.push(s);
  return { ...s, run: inProcessRunner(s) };
}
afterEach(() => {
  for (const s of sandboxes) s.cleanup();
  sandboxes = [];
});

const storeFile = (s: Sandbox): string => join(s.configDir, 'profiles.json');

function add(s: Sandbox, name: string, input: string, extra: string[] = [], keyId = KEY_A): Promise<CliResult> {
  return s.run(['profiles', 'add', name, '--key-id', keyId, '--mode', 'test', '--secret-stdin', ...extra], { input });
}

/** The CLI under `umask 000`, through sh, as a user with a careless shell would run it. */
function runUmask000(s: Sandbox, args: string[], input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...s.env, NO_COLOR: '1' };
    for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && !(k in s.env)) delete env[k];
    const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('sh', ['-c', `umask 000; exec ${quoted}`], { cwd: ROOT, env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8'); // decoded as streams: a character split across chunks stays whole
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (stdout += d));
    child.stderr.on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

describe('profiles add / list / show / use / remove', () => {
  it('round-trips two profiles, with the first as default and secrets never printed', async () => {
    const s = sandbox();
    const secretA = newSecret();
    const secretB = newSecret();
    const webhook = 'whsec_' + randomBytes(16).toString('hex');
    const outputs: string[] = [];
    const keep = (r: CliResult): CliResult => (outputs.push(r.stdout, r.stderr), r);

    // \r\n line ending (Windows clipboard, some secret managers) and a lower-case key id
    const a = keep(
      await s.run(['profiles', 'add', 'ci', '--key-id', KEY_A.toLowerCase(), '--mode', 'test', '--secret-stdin'], {
        input: `${secretA}\r\n`,
      }),
    );
    expect(a.code, a.stderr).toBe(0);
    expect(a.stderr).toContain('default');
    const b = keep(
      await s.run(
        [
          'profiles',
          'add',
          'prod.eu',
          '--key-id',
          KEY_B,
          '--mode',
          'live',
          '--base-url',
          'https://api.example.com/api/v1/',
          '--secret-stdin',
          '--webhook-secret-stdin',
          '--json',
        ],
        { input: `${secretB}\n${webhook}\n` },
      ),
    );
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({
      name: 'prod.eu',
      mode: 'live',
      key_id: KEY_B,
      base_url: 'https://api.example.com/api/v1',
      default: false,
    });

    const list = keep(await s.run(['profiles', 'list']));
    expect(list.code).toBe(0);
    const rows = list.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/NAME\s+MODE\s+KEY ID\s+BASE URL\s+SECRET$/);
    expect(rows.find((r) => r.includes(' ci '))).toMatch(
      /^\*\s+ci\s+test\s+01JD2Q7N8V3K4M5P6R7S8T9V0W\s+http:\/\/127\.0\.0\.1:4010\/api\/v1\s+stored$/,
    );
    expect(rows.find((r) => r.includes('prod.eu'))).toMatch(
      /^\s+prod\.eu\s+live\s+01JD2Q7N8V3K4M5P6R7S8T9V0X\s+https:\/\/api\.example\.com\/api\/v1\s+stored$/,
    );

    const listJson = keep(await s.run(['profiles', 'list', '--json']));
    const listed = JSON.parse(listJson.stdout).data as Array<Record<string, unknown>>;
    expect(listed.map((p) => [p.name, p.default])).toEqual([
      ['ci', true],
      ['prod.eu', false],
    ]);
    expect(Object.keys(listed[0]!).sort()).toEqual([
      'base_url',
      'default',
      'key_id',
      'mode',
      'name',
      'secret_command',
      'secret_fingerprint',
      'webhook_secret_command',
      'webhook_secret_fingerprint',
    ]);

    const show = keep(await s.run(['profiles', 'show', 'prod.eu']));
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/secret\s+\*\*\*\* \(sha256:[0-9a-f]{8}\)/);
    expect(show.stdout).toMatch(/webhook secret\s+\*\*\*\* \(sha256:[0-9a-f]{8}\)/);
    expect(show.stdout).toContain(storeFile(s));
    // the fingerprint is what `printf %s "$SECRET" | sha256sum | cut -c1-8` prints
    const { createHash } = await import('node:crypto');
    expect(show.stdout).toContain(`sha256:${createHash('sha256').update(secretB).digest('hex').slice(0, 8)}`);
    const showJson = keep(await s.run(['profiles', 'show', 'ci', '--json']));
    expect(JSON.parse(showJson.stdout)).toMatchObject({
      name: 'ci',
      key_id: KEY_A,
      default: true,
      webhook_secret_fingerprint: null,
    });

    // the store holds the secrets exactly, with the newline (\r\n) dropped
    const stored = JSON.parse(readFileSync(storeFile(s), 'utf8'));
    expect(stored.profiles.ci.secret).toBe(secretA);
    expect(stored.profiles['prod.eu']).toMatchObject({
      secret: secretB,
      webhookSecret: webhook,
      baseUrl: 'https://api.example.com/api/v1',
    });

    const use = keep(await s.run(['profiles', 'use', 'prod.eu']));
    expect(use.code).toBe(0);
    expect(
      JSON.parse((await s.run(['profiles', 'list', '--json'])).stdout).data.map((p: { default: boolean }) => p.default),
    ).toEqual([false, true]);

    // removing the default leaves one profile, which becomes the default
    const rm = keep(await s.run(['profiles', 'remove', 'prod.eu']));
    expect(rm.code).toBe(0);
    expect(rm.stderr).toContain('Default profile: ci');
    const after = JSON.parse((await s.run(['profiles', 'list', '--json'])).stdout).data;
    expect(after).toEqual([expect.objectContaining({ name: 'ci', default: true })]);

    expectNoSecret(outputs.join('\n'), secretA, secretB, webhook);
  });

  it('a base URL without a path gets the /api/v1 prefix; a gateway path ending in /api/v1 is kept', async () => {
    const s = sandbox();
    const bare = await s.run(
      [
        'profiles',
        'add',
        'bare',
        '--key-id',
        KEY_A,
        '--mode',
        'test',
        '--base-url',
        'https://api.example.com/',
        '--secret-stdin',
        '--json',
      ],
      { input: `${newSecret()}\n` },
    );
    expect(bare.code, bare.stderr).toBe(0);
    expect(JSON.parse(bare.stdout).base_url).toBe('https://api.example.com/api/v1');
    const gw = await s.run(
      [
        'profiles',
        'add',
        'gw',
        '--key-id',
        KEY_B,
        '--mode',
        'test',
        '--base-url',
        'https://gw.example.com/cards/api/v1/',
        '--secret-stdin',
        '--json',
      ],
      { input: `${newSecret()}\n` },
    );
    expect(JSON.parse(gw.stdout).base_url).toBe('https://gw.example.com/cards/api/v1');
  });

  it('refuses to replace a profile without --force, and replaces it with --force', async () => {
    const s = sandbox();
    const first = newSecret();
    const second = newSecret();
    expect((await add(s, 'ci', `${first}\n`)).code).toBe(0);
    const again = await add(s, 'ci', `${second}\n`);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('a profile named ci already exists');
    expect(again.stderr).toContain('--force');
    expect(JSON.parse(readFileSync(storeFile(s), 'utf8')).profiles.ci.secret).toBe(first);
    const forced = await add(s, 'ci', `${second}\n`, ['--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('Replaced profile ci');
    expect(JSON.parse(readFileSync(storeFile(s), 'utf8')).profiles.ci.secret).toBe(second);
  });

  it('says how to add a profile that does not exist (show, use), and to list them (remove), exit 2', async () => {
    const s = sandbox();
    for (const cmd of ['show', 'use']) {
      const r = await s.run(['profiles', cmd, 'nope']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('no profile named nope');
      expect(r.stderr).toContain('cardctl profiles add nope --key-id');
    }
    const removed = await s.run(['profiles', 'remove', 'nope']);
    expect(removed.code).toBe(2);
    expect(removed.stderr).toContain('no profile named nope');
    expect(removed.stderr).toContain('cardctl profiles list');
    const json = await s.run(['profiles', 'show', 'nope', '--json']);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'profile_not_found' });
    const empty = await s.run(['profiles', 'list', '--json']);
    expect(JSON.parse(empty.stdout).data).toEqual([]);
  });
});

describe('input validation', () => {
  it('refuses a bad key id, secret, base URL, name and mode, saying what is expected, and writes nothing', async () => {
    const s = sandbox();
    const good = newSecret();
    const cases: Array<[string[], string, RegExp]> = [
      [
        ['profiles', 'add', 'ci', '--key-id', 'key_123', '--mode', 'test', '--secret-stdin'],
        `${good}\n`,
        /key id "key_123" is not a ULID: expected 26 characters of Crockford base32/,
      ],
      [
        ['profiles', 'add', 'ci', '--key-id', KEY_A, '--mode', 'test', '--secret-stdin'],
        `${good.slice(0, 43)}\n`,
        /exactly 44 base64 characters \(32 bytes\)/,
      ],
      [
        [
          'profiles',
          'add',
          'ci',
          '--key-id',
          KEY_A,
          '--mode',
          'test',
          '--base-url',
          'ftp://api.example.com/api/v1',
          '--secret-stdin',
        ],
        `${good}\n`,
        /base URL "ftp:\/\/api\.example\.com\/api\/v1" uses ftp: expected an http:\/\/ or https:\/\/ URL/,
      ],
      [
        [
          'profiles',
          'add',
          'ci',
          '--key-id',
          KEY_A,
          '--mode',
          'test',
          '--base-url',
          'https://api.example.com/v2',
          '--secret-stdin',
        ],
        `${good}\n`,
        /has the path \/v2, not the API's \/api\/v1 prefix/,
      ],
      [
        ['profiles', 'add', 'bad/name', '--key-id', KEY_A, '--mode', 'test', '--secret-stdin'],
        `${good}\n`,
        /use 1 to 64 characters among letters, digits/,
      ],
      [['profiles', 'add', 'ci', '--key-id', KEY_A, '--mode', 'prod', '--secret-stdin'], `${good}\n`, /test, live/],
    ];
    for (const [args, input, message] of cases) {
      const r = await s.run(args, { input });
      expect(r.code, `${args.join(' ')}\n${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expectNoSecret(r.stderr + r.stdout, good);
    }
    expect(existsSync(storeFile(s))).toBe(false);
  });

  it('never takes the secret as a flag, and on a non-terminal without --secret-stdin says to pass it', async () => {
    const s = sandbox();
    const secret = newSecret();
    for (const attempt of [[`--secret=${secret}`], [secret]]) {
      const r = await s.run(['profiles', 'add', 'ci', '--key-id', KEY_A, '--mode', 'test', ...attempt]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(
        attempt.length === 1 && attempt[0] === secret
          ? /unexpected argument/
          : /a secret is never accepted as a flag value/,
      );
      expectNoSecret(r.stdout + r.stderr, secret);
    }
    const noStdinFlag = await s.run(['profiles', 'add', 'ci', '--key-id', KEY_A, '--mode', 'test'], {
      input: `${secret}\n`,
    });
    expect(noStdinFlag.code).toBe(2);
    expect(noStdinFlag.stderr).toContain('Pass --secret-stdin');
    expect(existsSync(storeFile(s))).toBe(false);
  });

  it('reads exactly the lines it needs from stdin', async () => {
    const s = sandbox();
    const secret = newSecret();
    const empty = await add(s, 'ci', '');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('expected one line on stdin: the API secret');
    const extra = await add(s, 'ci', `${secret}\nwhsec_abc\n`);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('--webhook-secret-stdin');
    const oneLine = await add(s, 'ci', `${secret}\n`, ['--webhook-secret-stdin']);
    expect(oneLine.code).toBe(2);
    expect(oneLine.stderr).toContain('expected 2 lines on stdin: the API secret, then the webhook secret');
    const noSecretStdin = await s.run(
      ['profiles', 'add', 'ci', '--key-id', KEY_A, '--mode', 'test', '--webhook-secret-stdin'],
      { input: `${secret}\nwhsec_abc\n` },
    );
    expect(noSecretStdin.code).toBe(2);
    expect(noSecretStdin.stderr).toContain('--webhook-secret-stdin needs --secret-stdin');
    expect(existsSync(storeFile(s))).toBe(false);
    // no final newline is fine too
    const bare = await add(s, 'ci', `${secret}\r\nwhsec_abc`, ['--webhook-secret-stdin']);
    expect(bare.code, bare.stderr).toBe(0);
    expect(JSON.parse(readFileSync(storeFile(s), 'utf8')).profiles.ci).toMatchObject({
      secret,
      webhookSecret: 'whsec_abc',
    });
  });
});

describe('file and folder modes', () => {
  const expectPrivate = (s: Sandbox): void => {
    expect(mode(storeFile(s))).toBe('600');
    expect(mode(s.configDir)).toBe('700');
  };

  it('creates a 0600 file in a 0700 folder and keeps them so after every write', async () => {
    const s = sandbox();
    expect((await add(s, 'a', `${newSecret()}\n`)).code).toBe(0);
    expectPrivate(s);
    expect((await add(s, 'b', `${newSecret()}\n`, [], KEY_B)).code).toBe(0);
    expectPrivate(s);
    expect((await s.run(['profiles', 'use', 'b'])).code).toBe(0);
    expectPrivate(s);
    expect((await s.run(['profiles', 'remove', 'a'])).code).toBe(0);
    expectPrivate(s);
  });

  it('tightens a pre-existing 0644 file and 0755 folder on the next write', async () => {
    const s = sandbox();
    expect((await add(s, 'a', `${newSecret()}\n`)).code).toBe(0);
    for (const cmd of [
      ['profiles', 'use', 'a'],
      ['profiles', 'add', 'a', '--key-id', KEY_A, '--mode', 'live', '--secret-stdin', '--force'],
      ['profiles', 'remove', 'a'],
    ]) {
      chmodSync(storeFile(s), 0o644);
      chmodSync(s.configDir, 0o755);
      const r = await s.run(cmd, { input: `${newSecret()}\n` });
      expect(r.code, r.stderr).toBe(0);
      expectPrivate(s);
    }
  });

  it('under umask 000: a new store, and a pre-existing 0644 file in a 0755 folder', async () => {
    const s = sandbox();
    const r1 = await runUmask000(
      s,
      ['profiles', 'add', 'a', '--key-id', KEY_A, '--mode', 'test', '--secret-stdin'],
      `${newSecret()}\n`,
    );
    expect(r1.code, r1.stderr).toBe(0);
    expectPrivate(s);
    chmodSync(storeFile(s), 0o644);
    chmodSync(s.configDir, 0o755);
    const r2 = await runUmask000(
      s,
      ['profiles', 'add', 'b', '--key-id', KEY_B, '--mode', 'test', '--secret-stdin'],
      `${newSecret()}\n`,
    );
    expect(r2.code, r2.stderr).toBe(0);
    expectPrivate(s);
    chmodSync(storeFile(s), 0o666);
    chmodSync(s.configDir, 0o777);
    const r3 = await runUmask000(s, ['profiles', 'use', 'b']);
    expect(r3.code, r3.stderr).toBe(0);
    expectPrivate(s);
  });
});

describe('a corrupted or hand-edited store', () => {
  /** Writes `content` as the store, then checks that reads and writes refuse it and leave it as is. */
  // `every` runs each reading and writing command; otherwise one read and one write (time).
  async function expectRefused(
    s: Sandbox,
    content: string,
    message: RegExp,
    secret: string,
    every = false,
  ): Promise<void> {
    mkdirSync(s.configDir, { recursive: true, mode: 0o700 });
    writeFileSync(storeFile(s), content, { mode: 0o600 });
    const runs = [await s.run(['profiles', 'show', 'ci']), await add(s, 'other', `${newSecret()}\n`)];
    if (every) {
      runs.push(
        await s.run(['profiles', 'list']),
        await add(s, 'ci', `${newSecret()}\n`, ['--force']),
        await s.run(['profiles', 'use', 'ci']),
        await s.run(['profiles', 'remove', 'ci']),
      );
    }
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain('the profile store $CARDCTL_CONFIG_DIR/profiles.json'); // named from the variable, not its value
      expect(r.stderr).toMatch(message);
      expect(r.stderr).toContain('Fix ');
      expect(r.stderr).toContain('.bak');
      expectNoSecret(r.stdout + r.stderr, secret);
    }
    if (every) {
      const json = await s.run(['profiles', 'list', '--json']);
      expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'invalid_profile_store' });
    }
    expect(readFileSync(storeFile(s), 'utf8')).toBe(content);
  }

  const valid = (secret: string, keyId = KEY_A): Record<string, unknown> => ({
    version: 1,
    default: 'ci',
    profiles: { ci: { keyId, secret, mode: 'test', baseUrl: 'http://127.0.0.1:4010/api/v1' } },
  });

  it('refuses truncated JSON without quoting it', async () => {
    const s = sandbox();
    const secret = newSecret();
    const text = JSON.stringify(valid(secret), null, 2);
    await expectRefused(s, text.slice(0, text.indexOf(secret) + 50), /is not valid JSON/, secret, true);
  });

  it('refuses a profile with a bad key id, naming the profile and what is expected', async () => {
    const s = sandbox();
    const secret = newSecret();
    await expectRefused(
      s,
      JSON.stringify(valid(secret, '01JD2Q7N8V3K4M5P6R7S8T9V0U'), null, 2),
      /invalid profile "ci": key id .* is not a ULID/,
      secret,
    );
  });

  it('refuses a bad secret, an unknown field and a default that names no profile', async () => {
    const s = sandbox();
    const secret = newSecret();
    const badSecret = valid(secret.slice(0, 40));
    await expectRefused(
      s,
      JSON.stringify(badSecret),
      /invalid profile "ci": the API secret must be exactly 44 base64 characters/,
      secret.slice(0, 40),
    );
    const typo = valid(secret) as { profiles: { ci: Record<string, unknown> } };
    typo.profiles.ci.key_id = KEY_A;
    await expectRefused(s, JSON.stringify(typo), /unknown field "key_id"/, secret);
    await expectRefused(
      s,
      JSON.stringify({ ...valid(secret), default: 'gone' }),
      /default profile "gone" that is not among its profiles/,
      secret,
    );
    await expectRefused(s, '[]', /does not hold a JSON object/, secret);
  });

  it('reads a valid hand-written file (and an empty one as an empty store)', async () => {
    const s = sandbox();
    const secret = newSecret();
    mkdirSync(s.configDir, { recursive: true });
    writeFileSync(storeFile(s), JSON.stringify(valid(secret)));
    const r = await s.run(['profiles', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data).toEqual([expect.objectContaining({ name: 'ci', default: true })]);
    writeFileSync(storeFile(s), '');
    const empty = await s.run(['profiles', 'list', '--json']);
    expect(JSON.parse(empty.stdout).data).toEqual([]);
  });
});
