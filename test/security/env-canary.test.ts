// Values from the environment are named, never quoted back (docs/profiles.md, "Only what you typed
// on this command line is quoted back"): a token pasted into CARDCTL_PROFILE, a secret in the wrong
// variable, a path, stay unseen. Every CARDCTL_* variable the code reads (found by reading src/, so a
// new one without a case here fails) is set, one at a time, to a value holding a canary, and a
// command that reads it runs through the built CLI (in this process: test/helpers/in-process.ts);
// the canary is in none of its output.
import { readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeSandbox, ROOT } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

const CANARY = 'cAnArY7q3x';
const KEY = '01JD2Q7N8V3K4M5P6R7S8T9V0W';
const SECRET = 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=';
const DOWN = 'http://127.0.0.1:9/api/v1'; // discard port: refused at once, nothing listens
const sb = makeSandbox();
afterAll(() => sb.cleanup());
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const run = inProcessRunner(sb);

/** Every CARDCTL_* name the source reads or mentions. */
function variablesInSource(): string[] {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts'))
        for (const m of readFileSync(p, 'utf8').matchAll(/CARDCTL_[A-Z_]+[A-Z]/g)) names.add(m[0]);
    }
  };
  walk(join(ROOT, 'src'));
  return [...names].sort();
}

const apiEnv = { CARDCTL_API_KEY: KEY, CARDCTL_API_SECRET: SECRET, CARDCTL_BASE_URL: DOWN };
const payload = join(sb.dir, 'event.json');
writeFileSync(payload, '{"type":"card.issued"}');
const batch = join(sb.dir, 'issue.csv');
writeFileSync(batch, `customer_id,amount_minor\n${KEY},500\n`);
const noSuchFolder = (): string => join(sb.dir, `missing-${Math.random().toString(16).slice(2)}`);

/** For each variable: its canary value (or how to make one) and the command lines that read it. */
const CASES: Record<
  string,
  { value: () => string; env?: Record<string, string>; runs: string[][]; setup?: () => Promise<void> }
> = {
  CARDCTL_PROFILE: {
    value: () => `tok_${CANARY}_live`,
    runs: [
      ['customers', 'list'],
      ['sign', '--method', 'GET', '--path', '/cards'],
      ['mock', 'state'],
    ],
  },
  CARDCTL_API_KEY: {
    value: () => `sk_${CANARY}`,
    env: { CARDCTL_API_SECRET: SECRET },
    runs: [
      ['customers', 'list'],
      ['customers', 'list', '--json'],
    ],
  },
  CARDCTL_API_SECRET: {
    value: () => `${CANARY}-not-a-secret`,
    env: { CARDCTL_API_KEY: KEY },
    runs: [
      ['customers', 'list'],
      ['sign', '--method', 'GET', '--path', '/cards'],
    ],
  },
  CARDCTL_WEBHOOK_SECRET: {
    value: () => `whsec_${CANARY}`,
    runs: [
      ['webhooks', 'sign', '--payload', payload],
      ['webhooks', 'verify', '--header', 't=1, v1=00', '--payload', payload],
    ],
  },
  CARDCTL_BASE_URL: {
    value: () => `ftp://${CANARY}.example`,
    env: { CARDCTL_API_KEY: KEY, CARDCTL_API_SECRET: SECRET },
    runs: [
      ['customers', 'list'],
      ['customers', 'list', '--json'],
    ],
  },
  CARDCTL_MODE: {
    value: () => CANARY,
    env: { CARDCTL_API_KEY: KEY, CARDCTL_API_SECRET: SECRET },
    runs: [['customers', 'list']],
  },
  CARDCTL_MOCK_URL: {
    value: () => `${CANARY}://nowhere`,
    runs: [
      ['mock', 'state'],
      ['mock', 'state', '--json'],
    ],
  },
  CARDCTL_MOCK_TOKEN: {
    value: () => `tok_${CANARY}`,
    env: { CARDCTL_MOCK_URL: 'http://127.0.0.1:9/_mock' },
    runs: [
      ['mock', 'state'],
      ['mock', 'state', '--json'],
    ],
  },
  CARDCTL_TIMEOUT: { value: () => `${CANARY}s`, env: apiEnv, runs: [['customers', 'list'], ['doctor']] },
  CARDCTL_TIMEOUT_MS: { value: () => `${CANARY}ms`, env: apiEnv, runs: [['customers', 'list']] },
  CARDCTL_CA_FILE: {
    value: () => join(sb.dir, `${CANARY}.pem`),
    env: apiEnv,
    runs: [['customers', 'list'], ['doctor'], ['customers', 'list', '--verbose']],
  },
  CARDCTL_CONFIG_DIR: {
    value: () => join(sb.dir, `${CANARY}-file`),
    setup: async () => writeFileSync(join(sb.dir, `${CANARY}-file`), 'a file, not a folder\n'),
    runs: [
      ['profiles', 'list'],
      ['customers', 'list'],
      ['profiles', 'add', 'x', '--key-id', KEY, '--mode', 'test', '--secret-stdin'],
    ],
  },
  CARDCTL_STATE_DIR: {
    value: () => join(sb.dir, `${CANARY}-state`),
    setup: async () => symlinkSync(noSuchFolder(), join(sb.dir, `${CANARY}-state`)),
    env: apiEnv,
    runs: [
      ['ops', 'list'],
      ['cards', 'issue', '--customer', KEY, '--amount', '500'],
    ],
  },
  CARDCTL_JOURNAL_RETENTION: { value: () => `${CANARY}d`, runs: [['ops', 'compact']] },
  CARDCTL_JOURNAL_HOLD: {
    value: () => `${CANARY}`,
    env: { ...apiEnv, CARDCTL_JOURNAL_URL: 'postgres://cardctl@127.0.0.1:9/journal?connect_timeout=1' },
    runs: [
      ['cards', 'recharge', KEY, '--amount', '1'],
      ['cards', 'recharge', KEY, '--amount', '1', '--json'],
    ],
  },
  // a shared journal is named by its URL without the password (docs/journal.md): the canary is the password
  CARDCTL_JOURNAL_URL: {
    value: () => `postgres://cardctl:${CANARY}@127.0.0.1:9/journal?connect_timeout=1`,
    env: apiEnv,
    runs: [
      ['ops', 'list'],
      ['cards', 'recharge', KEY, '--amount', '1'],
      ['cards', 'recharge', KEY, '--amount', '1', '--json'],
      ['config'],
      ['config', '--json'],
      ['doctor'],
    ],
  },
  // the demo's server of yours (src/demo/postgres.ts): one that cannot be reached stops the demo before its tour, named without its password
  CARDCTL_DEMO_JOURNAL_URL: {
    value: () => `postgres://cardctl:${CANARY}@127.0.0.1:9/postgres?connect_timeout=1`,
    runs: [['demo'], ['demo', '--json']],
  },
  CARDCTL_SECRET_COMMAND_TIMEOUT: {
    value: () => `${CANARY}`,
    setup: async () => {
      const add = await run([
        'profiles',
        'add',
        'vault',
        '--key-id',
        KEY,
        '--mode',
        'test',
        '--secret-command',
        `printf %s ${SECRET}`,
      ]);
      expect(add.code, add.stderr).toBe(0);
    },
    runs: [['sign', '--method', 'GET', '--path', '/cards', '-p', 'vault']],
  },
  // switches: any value turns them on; still never shown
  CARDCTL_NO_FAST_PATH: {
    value: () => CANARY,
    runs: [
      ['profiles', 'list'],
      ['customers', 'list'],
    ],
  },
  CARDCTL_DEBUG: {
    value: () => CANARY,
    runs: [
      ['customers', 'list'],
      ['profiles', 'show', 'nobody'],
    ],
  },
  CARDCTL_NO_UPDATE_NOTIFIER: { value: () => CANARY, runs: [['profiles', 'list']] },
  CARDCTL_NO_BUNDLE: { value: () => CANARY, runs: [['profiles', 'list'], ['config']] },
  CARDCTL_NO_CODE_CACHE: { value: () => CANARY, runs: [['config'], ['profiles', 'list', '--jq', '.data | length']] },
  // a folder: the start-up caches, jq's glue and checked expressions are written under it; `config` names it only
  CARDCTL_CACHE_DIR: {
    value: () => join(sb.dir, `cache-${CANARY}`),
    runs: [['config'], ['profiles', 'list', '--jq', '.data | length'], ['profiles', 'list', '--jq', '.data | length']],
  },
};

describe('environment values are never quoted back', () => {
  it('every CARDCTL_* variable of the source has a case here', () => {
    expect(variablesInSource().filter((v) => !(v in CASES))).toEqual([]);
  });

  for (const [variable, c] of Object.entries(CASES)) {
    it(`${variable}: named, its value in no output`, async () => {
      await c.setup?.();
      const value = c.value();
      expect(value).toContain(CANARY);
      for (const args of c.runs) {
        const r = await run(args, { env: { ...c.env, [variable]: value } });
        expect(
          r.stdout + r.stderr,
          `${variable} ${args.join(' ')}: exit ${r.code}\n${r.stdout}${r.stderr}`,
        ).not.toContain(CANARY);
      }
    });
  }

  it('CARDCTL_CONFIG_DIR on a usable folder: profiles add and list name it from the variable', async () => {
    const env = { CARDCTL_CONFIG_DIR: join(sb.dir, `${CANARY}-config`) };
    const add = await run(['profiles', 'add', 'x', '--key-id', KEY, '--mode', 'test', '--secret-stdin'], {
      env,
      input: `${SECRET}\n`,
    });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stderr).toContain('in $CARDCTL_CONFIG_DIR/profiles.json');
    for (const r of [
      add,
      await run(['profiles', 'list'], { env }),
      await run(['profiles', 'remove', 'x'], { env }),
      await run(['profiles', 'list'], { env }),
    ]) {
      expect(r.stdout + r.stderr).not.toContain(CANARY);
    }
  });

  it('CARDCTL_PROFILE holding a token: the message names the variable, says what to do, exit 2', async () => {
    const r = await run(['customers', 'list'], { env: { CARDCTL_PROFILE: `tok_${CANARY}` } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/CARDCTL_PROFILE names no stored profile/);
    expect(r.stderr).toMatch(/cardctl profiles list/);
  });

  it('CARDCTL_TIMEOUT and CARDCTL_CA_FILE: the variable is named with what is wrong', async () => {
    const t = await run(['customers', 'list'], { env: { ...apiEnv, CARDCTL_TIMEOUT: CANARY } });
    expect([t.code, t.stderr]).toEqual([2, expect.stringMatching(/CARDCTL_TIMEOUT is not a number of seconds/)]);
    const ca = await run(['customers', 'list'], {
      env: { ...apiEnv, CARDCTL_CA_FILE: join(sb.dir, `${CANARY}.pem`) },
    });
    expect([ca.code, ca.stderr]).toEqual([
      2,
      expect.stringMatching(/cannot read the CA file CARDCTL_CA_FILE names: no such file/),
    ]);
  });
});
