// Secrets from a command (`profiles add --secret-command`), through the built CLI against the real
// mock on port 0: a signed call with the secret a command prints; a command that fails, prints
// nothing or hangs; and a canary secret behind a command, found in no output, no file of the config
// folder and nothing in the journal.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type MockServer } from '../../src/mock/index.js';
import { approvedCustomer, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliResult } from '../helpers/cli.js';

const CANARY = Buffer.concat([
  Buffer.from('CMD-CANARY-CMD-CANARY-CMD-'),
  Buffer.from([0xfb, 0xef, 0xff, 0xfb, 0xf0, 0x01]),
]).toString('base64');
const WEBHOOK_CANARY = 'whsec_CMDCANARYWEBHOOK0123456789abcdef';
const KEY_ID = '01JD2Q7N8V3K4M5P6R7S8T9CMD';

function leakForms(secret: string): string[] {
  const forms = [
    secret,
    secret.slice(0, 20),
    secret.slice(-20),
    Buffer.from(secret).toString('hex'),
    encodeURIComponent(secret),
  ];
  const bytes = Buffer.from(secret, 'base64');
  if (bytes.toString('base64') === secret) forms.push(bytes.toString('hex'), bytes.toString('base64url'));
  return forms;
}
const FORMS = [...leakForms(CANARY), ...leakForms(WEBHOOK_CANARY)];

const sandbox = makeSandbox();
let mock: MockServer;
const outputs: Array<{ args: string[]; result: CliResult }> = [];
const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

async function cli(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Promise<CliResult> {
  const result = await sandbox.run(args, options);
  outputs.push({ args, result });
  return result;
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

/** A vault stand-in outside the config folder: prints the secret, counts its runs, records its environment. */
function vault(name: string, secret: string): string {
  const secretFile = join(sandbox.dir, `${name}.secret`);
  writeFileSync(secretFile, `${secret}\n`);
  const script = join(sandbox.dir, `${name}.sh`);
  writeFileSync(
    script,
    `echo run >> ${q(join(sandbox.dir, `${name}.runs`))}\nenv > ${q(join(sandbox.dir, `${name}.env`))}\ncat ${q(secretFile)}\n`,
  );
  return `sh ${q(script)}`;
}
const runs = (name: string): number =>
  existsSync(join(sandbox.dir, `${name}.runs`))
    ? readFileSync(join(sandbox.dir, `${name}.runs`), 'utf8')
        .split('\n')
        .filter(Boolean).length
    : 0;

function addArgs(name: string, extra: string[]): string[] {
  return ['profiles', 'add', name, '--key-id', KEY_ID, '--mode', 'test', '--base-url', mock.baseUrl, ...extra];
}

beforeAll(async () => {
  mock = await startMock({ port: 0, providerLatencyMs: 0, keys: [{ keyId: KEY_ID, secret: CANARY, mode: 'test' }] });
  const add = await cli(
    addArgs('vault', [
      '--secret-command',
      vault('api', CANARY),
      '--webhook-secret-command',
      vault('webhook', WEBHOOK_CANARY),
    ]),
  );
  expect(add.code, add.stderr).toBe(0);
});
afterAll(async () => {
  await mock?.close();
  sandbox.cleanup();
});

describe('a secret from a command', () => {
  it('signs requests the mock accepts, running the command once per cardctl run', async () => {
    const list = await cli(['customers', 'list', '-p', 'vault', '--json', '--verbose']);
    expect(list.code, list.stderr).toBe(0);
    expect(runs('api')).toBe(1);
    // a money operation, journaled, with the secret from the command
    const customer = (await approvedCustomer(mock as unknown as MockHandle)).id as string;
    const issued = await cli([
      'cards',
      'issue',
      '--customer',
      customer,
      '--amount',
      '1000',
      '-p',
      'vault',
      '--json',
      '--verbose',
    ]);
    expect(issued.code, issued.stderr).toBe(0);
    expect(runs('api')).toBe(2);
    // doctor sends six requests in one run: the command still ran once, and doctor says where the secret comes from
    const doctor = await cli(['doctor', '-p', 'vault', '--json']);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(runs('api')).toBe(3);
    const report = JSON.parse(doctor.stdout) as {
      profile: { secret_source: string };
      checks: Array<{ name: string; detail: string }>;
    };
    expect(report.profile.secret_source).toBe('command');
    expect(report.checks.find((c) => c.name === 'credentials')!.detail).toContain(
      `the secret from the command \`${vault('api', CANARY)}\``,
    );
    // the webhook secret from its own command: sign, then verify with it
    const payload = join(sandbox.dir, 'event.json');
    writeFileSync(payload, '{"type":"card.issued","data":{}}');
    const header = await cli(['webhooks', 'sign', '--payload', payload, '-p', 'vault', '--timestamp', '1763800000']);
    expect(header.code, header.stderr).toBe(0);
    expect(runs('webhook')).toBe(1);
    expect(
      (
        await cli([
          'webhooks',
          'verify',
          '--header',
          header.stdout.trim(),
          '--payload',
          payload,
          '--now',
          '1763800000',
          '-p',
          'vault',
        ])
      ).code,
    ).toBe(0);
    // the local sign command uses the command's secret too
    expect(
      (
        await cli([
          'sign',
          '--method',
          'GET',
          '--path',
          '/api/v1/customers',
          '-p',
          'vault',
          '--timestamp',
          '1763800000',
          '--nonce',
          'n-1',
        ])
      ).code,
    ).toBe(0);
  });

  it('profiles show and list name the command, never a secret or its fingerprint', async () => {
    const show = await cli(['profiles', 'show', 'vault', '--json']);
    const p = JSON.parse(show.stdout) as Record<string, unknown>;
    expect(p.secret_command).toBe(vault('api', CANARY));
    expect(p.webhook_secret_command).toBe(vault('webhook', WEBHOOK_CANARY));
    expect(p.secret_fingerprint).toBeNull();
    const text = await cli(['profiles', 'show', 'vault']);
    expect(text.stdout).toMatch(/^secret +from the command: sh /m);
    const list = await cli(['profiles', 'list']);
    expect(list.stdout).toMatch(/vault .* command: sh /);
  });

  it('a command that fails is exit 3 naming the profile, the command, its exit code and its error line', async () => {
    const cmd = 'echo "vault: permission denied for this path" >&2; exit 4';
    expect((await cli(addArgs('fails', ['--secret-command', cmd]))).code).toBe(0);
    const r = await cli(['customers', 'list', '-p', 'fails']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `profile fails: the API secret command failed with exit code 4 (its first error line: "vault: permission denied for this path"): ${cmd}`,
    );
    const json = await cli(['customers', 'list', '-p', 'fails', '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout).error.code).toBe('secret_command_failed');
    // doctor reports it as the failed credentials check
    const doctor = await cli(['doctor', '-p', 'fails']);
    expect(doctor.code).toBe(3);
    expect(doctor.stdout + doctor.stderr).toMatch(
      /credentials +profile fails: the API secret command failed with exit code 4/,
    );
  });

  it('a failing command that printed the secret, or an error line that may hold it, shows neither', async () => {
    const secretFile = join(sandbox.dir, 'leaky.secret');
    writeFileSync(secretFile, `${CANARY}\n`);
    // the secret on stdout, then a failure; and the secret as the error line
    for (const [name, cmd] of [
      ['leaky-out', `cat ${q(secretFile)}; echo "something went wrong here" >&2; exit 1`],
      ['leaky-err', `echo "token is $(cat ${q(secretFile)}) here" >&2; exit 1`],
      ['leaky-word', `cat ${q(secretFile)} >&2; exit 1`],
    ]) {
      expect((await cli(addArgs(name!, ['--secret-command', cmd!]))).code).toBe(0);
      const r = await cli(['customers', 'list', '-p', name!]);
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`profile ${name}: the API secret command failed with exit code 1: `);
      expect(r.stderr).not.toContain('its first error line');
    }
  });

  it('a command that prints nothing, or something that is not a secret, is exit 3', async () => {
    expect((await cli(addArgs('empty', ['--secret-command', 'printf "\\n"']))).code).toBe(0);
    const empty = await cli(['customers', 'list', '-p', 'empty']);
    expect(empty.code).toBe(3);
    expect(empty.stderr).toContain('profile empty: the API secret command printed nothing: printf "\\n"');
    // stdin is not the command's: `cat` reads nothing, even with input piped to cardctl
    expect((await cli(addArgs('stdin', ['--secret-command', 'cat']))).code).toBe(0);
    const stdin = await cli(['customers', 'list', '-p', 'stdin'], { input: `${CANARY}\n` });
    expect(stdin.code).toBe(3);
    expect(stdin.stderr).toContain('profile stdin: the API secret command printed nothing: cat');
    expect((await cli(addArgs('short', ['--secret-command', 'echo not-a-secret']))).code).toBe(0);
    const short = await cli(['customers', 'list', '-p', 'short']);
    expect(short.code).toBe(3);
    expect(short.stderr).toContain(
      'profile short: the API secret command printed something that is not a valid API secret',
    );
    expect(short.stderr).not.toContain('not-a-secret:'); // the output is not quoted (only the command, at the end)
  });

  it('a command that hangs is stopped with its whole process group at the timeout: exit 3', async () => {
    const pidFile = join(sandbox.dir, 'hang.pid');
    // the shell starts a background sleep (same process group) and waits for it
    const cmd = `sleep 60 & echo $! > ${q(pidFile)}; wait`;
    expect((await cli(addArgs('hangs', ['--secret-command', cmd, '--secret-command-timeout', '1']))).code).toBe(0);
    expect(JSON.parse((await cli(['profiles', 'show', 'hangs', '--json'])).stdout).secret_command_timeout).toBe(1);
    const r = await cli(['customers', 'list', '-p', 'hangs']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(
      `profile hangs: the API secret command did not finish within 1 s and was stopped: ${cmd}`,
    );
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const alive = (): boolean => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && alive(); i++) await new Promise((res) => setTimeout(res, 50));
    expect(alive()).toBe(false);
    // the environment variable overrides the profile's timeout
    const env = await cli(['customers', 'list', '-p', 'hangs'], { env: { CARDCTL_SECRET_COMMAND_TIMEOUT: '2' } });
    expect(env.code).toBe(3);
    expect(env.stderr).toContain('did not finish within 2 s');
    expect(
      (await cli(['customers', 'list', '-p', 'hangs'], { env: { CARDCTL_SECRET_COMMAND_TIMEOUT: 'soon' } })).code,
    ).toBe(2);
  });

  it('a command that leaves a process of another session holding its stdout is stopped at the deadline: exit 3', async () => {
    // prints the secret, then starts a process in its own session (out of reach of a process-group
    // kill) that keeps the command's stdout open for 60 s, as a daemonizing agent can
    const pidFile = join(sandbox.dir, 'daemon.pid');
    const daemon = `require('child_process').spawn('sleep', ['60'], { detached: true, stdio: ['ignore', 'inherit', 'ignore'] }).unref()`;
    const holder = join(sandbox.dir, 'daemon.js');
    writeFileSync(
      holder,
      `const c = ${daemon.replace('.unref()', '')}; require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(c.pid)); c.unref();\n`,
    );
    const cmd = `${vault('daemon', CANARY)}; ${q(process.execPath)} ${q(holder)}`;
    expect((await cli(addArgs('daemon', ['--secret-command', cmd, '--secret-command-timeout', '1']))).code).toBe(0);
    try {
      const r = await cli(['customers', 'list', '-p', 'daemon']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toContain(
        'profile daemon: the API secret command exited, but a process it started still held its output open after 1 s',
      );
    } finally {
      if (existsSync(pidFile)) {
        try {
          process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  });

  it('profiles add refuses contradictory or malformed secret flags (exit 2), storing nothing', async () => {
    const both = await cli(addArgs('both', ['--secret-command', 'echo x', '--secret-stdin']), { input: `${CANARY}\n` });
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--secret-stdin and --secret-command both give the API secret');
    expect((await cli(addArgs('blank', ['--secret-command', '  ']))).code).toBe(2);
    expect((await cli(addArgs('twolines', ['--secret-command', 'echo a\necho b']))).code).toBe(2);
    expect(
      (await cli(addArgs('timeout', ['--secret-stdin', '--secret-command-timeout', '5']), { input: `${CANARY}\n` }))
        .code,
    ).toBe(2);
    const names = (JSON.parse((await cli(['profiles', 'list', '--json'])).stdout).data as Array<{ name: string }>).map(
      (p) => p.name,
    );
    expect(names).not.toContain('both');
    expect(names).not.toContain('blank');
    // the webhook secret alone from stdin (stored: not the canary) when a command gives the API secret
    const mixed = await cli(addArgs('mixed', ['--secret-command', vault('api', CANARY), '--webhook-secret-stdin']), {
      input: 'whsec_stored-on-purpose\n',
    });
    expect(mixed.code, mixed.stderr).toBe(0);
    expect(JSON.parse((await cli(['profiles', 'show', 'mixed', '--json'])).stdout).webhook_secret_fingerprint).toMatch(
      /^sha256:/,
    );
  });

  it("cardctl's own secrets in the environment are not passed to the command", async () => {
    const r = await cli(['customers', 'list', '-p', 'vault'], {
      env: { CARDCTL_API_SECRET: CANARY, CARDCTL_API_KEY: KEY_ID, CARDCTL_MOCK_TOKEN: 'mock-token-canary-0123456789' },
    });
    expect(r.code, r.stderr).toBe(0);
    const env = readFileSync(join(sandbox.dir, 'api.env'), 'utf8');
    expect(env).not.toContain('CARDCTL_API_SECRET');
    expect(env).not.toContain('mock-token-canary-0123456789');
    expect(env).toContain('CARDCTL_CONFIG_DIR'); // the rest of the environment is there
  });
});

describe('the canary behind a command', () => {
  it('is in no output, no file of the config folder and nothing in the state folder (the journal)', () => {
    expect(outputs.length).toBeGreaterThan(20);
    for (const { args, result } of outputs) {
      for (const form of FORMS) {
        expect(result.stdout, `stdout of ${args.join(' ')}`).not.toContain(form);
        expect(result.stderr, `stderr of ${args.join(' ')}`).not.toContain(form);
      }
    }
    const files = [...filesUnder(sandbox.configDir), ...filesUnder(sandbox.stateDir)];
    expect(files.some((f) => f.endsWith('profiles.json'))).toBe(true);
    expect(files.some((f) => f.includes('journal'))).toBe(true);
    for (const f of files) {
      const text = readFileSync(f, 'latin1');
      for (const form of FORMS) expect(text, f).not.toContain(form);
    }
  });
});
