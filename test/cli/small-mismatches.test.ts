// Small mismatches a new user trips on (issue 11, item 7): switches that read like switches,
// usage lines that show the arguments, --json errors with clean text, ops ids whose short
// prefixes tell operations apart, and the README's base URL rule as the CLI applies it.
// The built CLI runs in this process (test/helpers/in-process.ts), but for the money sends that
// make the operations of the ops ids case (child processes).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { ctl, type MockHandle } from '../helpers/api.js';
import { makeSandbox, ROOT, type CliOptions, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startSignedServer, type SignedServer } from '../helpers/signed-server.js';

let mock: MockHandle;
let srv: SignedServer;
let sb: Sandbox;
let mockEnv: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 41, providerLatencyMs: 0 })) as unknown as MockHandle;
  srv = await startSignedServer();
  sb = makeSandbox();
  mockEnv = { CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken };
});
afterAll(async () => {
  await mock?.close();
  await srv?.close();
  sb?.cleanup();
});

/** The built CLI in this process, in the sandbox. */
const run = (args: string[], options?: CliOptions) => inProcessRunner(sb)(args, options);

const products = async (): Promise<Array<{ id: string; default: boolean; enabled: boolean; available: boolean }>> => {
  const r = (await ctl(mock, 'GET', '/products')) as any;
  return Array.isArray(r) ? r : (r.data ?? r.products);
};

describe('mock products set: switches', () => {
  it('--default is a switch, --no-default turns it off, and the old --default true|false still works', async () => {
    const other = (await products()).find((p) => !p.default && p.enabled && p.available)!;
    const on = await run(['mock', 'products', 'set', other.id, '--default', '--json'], { env: mockEnv });
    expect(on.code, on.stderr).toBe(0);
    expect((await products()).find((p) => p.id === other.id)!.default).toBe(true);
    const off = await run(['mock', 'products', 'set', other.id, '--no-default'], { env: mockEnv });
    expect(off.code, off.stderr).toBe(0);
    expect((await products()).find((p) => p.id === other.id)!.default).toBe(false);
    const old = await run(['mock', 'products', 'set', other.id, '--default', 'true'], { env: mockEnv });
    expect(old.code, old.stderr).toBe(0);
    expect((await products()).find((p) => p.id === other.id)!.default).toBe(true);
    const oldOff = await run(['mock', 'products', 'set', other.id, '--available=false'], { env: mockEnv });
    expect(oldOff.code, oldOff.stderr).toBe(0);
    expect((await products()).find((p) => p.id === other.id)!.available).toBe(false);
  });
});

describe('usage lines', () => {
  it('mock networks set --help shows its arguments', async () => {
    const r = await run(['mock', 'networks', 'set', '--help']);
    expect(r.stdout).toContain('$ cardctl mock networks set [NETWORKS...]');
    expect(r.stdout).toMatch(/ARGUMENTS\n\s+\[NETWORKS\.\.\.\]\s+the networks to enable/);
  });

  it('profiles add takes one NAME', async () => {
    const r = await run(['profiles', 'add', '--help']);
    expect(r.stdout).toContain('$ cardctl profiles add NAME --key-id KEY_ID --mode test|live');
    expect(r.stdout).not.toContain('NAME...');
  });
});

describe('--json errors for bad flag values', () => {
  it.each([
    [
      ['cards', 'issue', '--customer', '01JD2QA1B2C3D4E5F6G7H8J9KM', '--amount', 'abc', '--json'],
      /^--amount expects a whole number from 0 to 100000000\.$/,
    ],
    [['cards', 'terminate', '01JD2QA1B2C3D4E5F6G7H8J9KM', '--reason', 'bad', '--json'], /one of: lost, stolen/],
  ])('%j: one line, no tab, no "See more help"', async (args, text) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    const { message } = JSON.parse(r.stdout).error;
    expect(message).toMatch(text);
    expect(JSON.parse(r.stdout).error.hint).toMatch(/^Usage:\n  cardctl /); // the usage lines, as their own field
    expect(message).not.toMatch(/[\t\n]/);
    expect(message).not.toContain('See more help with --help');
  });
});

describe('ops ids', () => {
  it('operations sent one after another differ in their first characters; a short prefix finds each', async () => {
    for (const k of ['a', 'b', 'c']) {
      const r = await sb.run(
        [
          'request',
          'POST',
          '/cards/01JD2QA1B2C3D4E5F6G7H8J9KM/recharge',
          '--data',
          '{"amount":5}',
          '--idempotency-key',
          `ids-${k}`,
        ],
        { env: srv.env() },
      );
      expect(r.code, r.stderr).toBe(0);
    }
    const ids = (JSON.parse((await run(['ops', 'list', '--all', '--json'])).stdout).data as Array<{ id: string }>).map(
      (e) => e.id,
    );
    expect(ids).toHaveLength(3);
    const prefixes = ids.map((id) => id.slice(0, 'op_'.length + 5));
    expect(new Set(prefixes).size).toBe(3);
    for (const [i, p] of prefixes.entries()) {
      const shown = await run(['ops', 'show', p, '--json']);
      expect(shown.code, shown.stderr).toBe(0);
      expect(JSON.parse(shown.stdout).id).toBe(ids[i]);
    }
    // an ambiguous prefix is named as such, with the operations it matches
    const amb = await run(['ops', 'show', 'op_']);
    expect(amb.code).toBe(2);
    expect(amb.stderr).toContain('is ambiguous: it matches 3 operations');
  });
});

describe('docs/profiles.md: the base URL rule is the one the CLI applies', () => {
  it('says a URL without a path gets /api/v1, and the CLI does that', async () => {
    const readme = readFileSync(join(ROOT, 'docs', 'profiles.md'), 'utf8');
    expect(readme).toContain('a URL without a path gets `/api/v1`');
    expect(readme).not.toMatch(/the base URL is\s+`http:\/\/` or `https:\/\/`, includes the `\/api\/v1` prefix/);
    const r = await run(
      [
        'profiles',
        'add',
        'bare',
        '--key-id',
        '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        '--mode',
        'test',
        '--base-url',
        'https://api.example.com',
        '--secret-stdin',
        '--json',
      ],
      { input: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXh4eHg=\n' },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).base_url).toBe('https://api.example.com/api/v1');
  });
});
