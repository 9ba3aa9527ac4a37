// `-q, --quiet` and `-o, --output` on every command, from the one place every command shares
// (src/cli/base-command.ts, src/output/notes.ts): the built CLI against the mock on port 0, in
// this process for rendering and flags, as child processes for --wait and the fast path/oclif pair.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, approvedCustomer, ctl, type MockHandle } from '../helpers/api.js';
import { makeSandbox, ROOT, type CliResult, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const run = (args: string[], extra: Record<string, string> = {}) =>
  inProcessRunner(sb)(args, { env: { ...env, ...extra } });
const spawned = (args: string[], extra: Record<string, string> = {}) => sb.run(args, { env: { ...env, ...extra } });
const ok = (r: CliResult): CliResult => {
  expect(r.code, r.stderr).toBe(0);
  return r;
};

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 38, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
    CARDCTL_MOCK_URL: mock.controlUrl,
    CARDCTL_MOCK_TOKEN: mock.controlToken,
  };
  await approvedCustomer(mock);
  await approvedCustomer(mock);
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('-q, --quiet', () => {
  it('is a flag of every command, -q, and --query of `request` has no short form', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { flags: Record<string, { char?: string; name: string }> }>;
    };
    const commands = Object.entries(manifest.commands);
    expect(commands.length).toBeGreaterThan(50);
    for (const [id, c] of commands) {
      expect(c.flags.quiet?.char, id).toBe('q');
      expect(
        Object.values(c.flags)
          .filter((f) => f.char === 'q')
          .map((f) => f.name),
        id,
      ).toEqual(['quiet']);
    }
  });

  it("drops a list's --cursor hint and keeps its table", async () => {
    const loud = ok(await run(['customers', 'list', '--per-page', '1']));
    expect(loud.stderr).toMatch(/^More customers: add --cursor /m);
    const quiet = ok(await run(['customers', 'list', '--per-page', '1', '-q']));
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(loud.stdout);
  });

  it("drops a money operation's generated-key note; the card is issued all the same", async () => {
    const customer = await approvedCustomer(mock);
    const loud = ok(await spawned(['cards', 'issue', '--customer', customer.id, '--amount', '500', '--json']));
    expect(loud.stderr).toMatch(/^Idempotency-Key: \S+ \(generated/m);
    const quiet = ok(
      await spawned(['cards', 'issue', '--customer', customer.id, '--amount', '600', '--quiet', '--json']),
    );
    expect(quiet.stderr).toBe('');
    const card = JSON.parse(quiet.stdout) as { id: string; balance_minor: number };
    expect(card.balance_minor).toBe(600);
    const shown = JSON.parse(ok(await run(['cards', 'get', card.id, '--json'])).stdout) as { id: string };
    expect(shown.id).toBe(card.id);
  });

  it('still prints errors, as text and with --json, on both parsers', async () => {
    for (const extra of [{}, { CARDCTL_NO_FAST_PATH: '1' }] as Array<Record<string, string>>) {
      const missing = await spawned(['cards', 'get', '01J0000000000000000000000A', '-q'], extra);
      expect(missing.code).toBe(4);
      expect(missing.stderr).toMatch(/^Error: /m);
      const json = await spawned(['cards', 'get', '01J0000000000000000000000A', '-q', '--json'], extra);
      expect(json.code).toBe(4);
      expect(JSON.parse(json.stdout)).toHaveProperty('error');
    }
    const usage = await run(['cards', 'issue', '--amount', 'x', '-q']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^Error: /m);
  });

  it('with --verbose is a usage error: the two ask for opposite things', async () => {
    const r = await run(['customers', 'list', '-q', '-v']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--quiet and --verbose');
  });

  it('quiets the mock control commands and the local ones too', async () => {
    const loud = ok(await run(['mock', 'wallets']));
    const quiet = ok(await run(['mock', 'wallets', '-q']));
    expect(quiet.stdout).toBe(loud.stdout);
    expect(quiet.stderr).toBe('');
  });
});

describe('--wait says its replay line once', () => {
  it('a pending card: the polls say no Replay line, a rerun of the key says one, and the mock control named in the hint completes it', async () => {
    const customer = await approvedCustomer(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: 'async_202', count: 1 });
    const args = [
      'cards',
      'issue',
      '--customer',
      customer.id,
      '--amount',
      '700',
      '--idempotency-key',
      `wait-${customer.id}`,
      '--wait',
      '--wait-timeout',
      '2',
    ];
    const first = await spawned(args);
    expect(first.code, first.stderr).toBe(7);
    expect(first.stderr.match(/^pending/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(first.stderr).not.toMatch(/^Replay: /m); // every poll replays this command's own send
    const again = await spawned(args);
    expect(again.code, again.stderr).toBe(7);
    expect(again.stderr.match(/^pending/gm)?.length ?? 0).toBeGreaterThanOrEqual(2);
    expect(again.stderr.match(/^Replay: /gm)).toHaveLength(1); // the key was sent before this command
    // the dead end names its way out: the mock control, with the card's id
    const named = /`cardctl mock provision (\S+)`/.exec(again.stderr);
    expect(named, again.stderr).not.toBeNull();
    ok(await spawned(['mock', 'provision', named![1]!]));
    const done = ok(await spawned([...args, '--json']));
    expect(JSON.parse(done.stdout)).toMatchObject({ id: named![1], status: 'active', balance_minor: 700 });
    expect(done.stderr.match(/^Replay: /gm)).toHaveLength(1);
  }, 60_000);
});

describe('-o, --output', () => {
  it('is a flag of every command, -o, with json everywhere and text or table', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, { flags: Record<string, { char?: string; options?: string[] }> }>;
    };
    for (const [id, c] of Object.entries(manifest.commands)) {
      expect(c.flags.output?.char, id).toBe('o');
      expect(c.flags.output?.options, id).toEqual(expect.arrayContaining(['json', 'text', 'table']));
      expect(c.flags.json, id).toBeDefined(); // --json stays, the short form of -o json
    }
  });

  it('one resource: -o json is --json, -o text and -o table are the default block', async () => {
    const card = await activeCard(mock, { amount: 900 });
    const json = ok(await run(['cards', 'get', card.id, '--json'])).stdout;
    expect(ok(await run(['cards', 'get', card.id, '-o', 'json'])).stdout).toBe(json);
    expect(ok(await run(['cards', 'get', card.id, '--output=json'])).stdout).toBe(json);
    const text = ok(await run(['cards', 'get', card.id])).stdout;
    expect(text).toMatch(/^balance_minor +900$/m);
    expect(ok(await run(['cards', 'get', card.id, '-o', 'text'])).stdout).toBe(text);
    expect(ok(await run(['cards', 'get', card.id, '-o', 'table'])).stdout).toBe(text);
    // and the same through oclif's parser
    expect(ok(await spawned(['cards', 'get', card.id, '-o', 'json'], { CARDCTL_NO_FAST_PATH: '1' })).stdout).toBe(json);
  });

  it('a list: text is table; json, ndjson, csv and --columns as before', async () => {
    const table = ok(await run(['customers', 'list', '--all'])).stdout;
    expect(ok(await run(['customers', 'list', '--all', '-o', 'text'])).stdout).toBe(table);
    expect(ok(await run(['customers', 'list', '--all', '-o', 'json'])).stdout).toBe(
      ok(await run(['customers', 'list', '--all', '--json'])).stdout,
    );
    const csv = ok(await run(['customers', 'list', '--all', '-o', 'csv', '--columns', 'id,email'])).stdout;
    expect(csv.split('\r\n')[0]).toBe('id,email'); // RFC 4180 lines
    const ndjson = ok(await run(['customers', 'list', '--all', '-o', 'ndjson']))
      .stdout.trim()
      .split('\n');
    expect(ndjson.length).toBeGreaterThanOrEqual(2);
    for (const line of ndjson) expect(JSON.parse(line)).toHaveProperty('id');
  });

  it('local commands too: profiles list, sign', async () => {
    expect(ok(await run(['profiles', 'list', '-o', 'json'])).stdout).toBe(
      ok(await run(['profiles', 'list', '--json'])).stdout,
    );
  });

  it('refuses what it cannot print, before anything is sent', async () => {
    const before = await ctl(mock, 'GET', '/state');
    const formats = await run(['cards', 'get', '01J0000000000000000000000A', '-o', 'csv']);
    expect(formats.code).toBe(2);
    expect(formats.stderr).toMatch(/--output must be one of: text, table, json/);
    const two = await run(['customers', 'create', '--first-name', 'Ada', '-o', 'text', '--json']);
    expect(two.code).toBe(2);
    expect(two.stdout + two.stderr).toMatch(/two outputs/); // with --json the error is the JSON document
    const include = await run(['request', 'GET', '/customers', '-o', 'json', '--include']);
    expect(include.code).toBe(2);
    expect(JSON.parse(include.stdout).error.message).toMatch(/--include cannot be used with --output json/);
    const listTwo = await run(['customers', 'list', '-o', 'text', '--jq', '.']);
    expect(listTwo.code).toBe(2);
    const { clock: _a, ...was } = before as Record<string, unknown>;
    const { clock: _b, ...now } = (await ctl(mock, 'GET', '/state')) as Record<string, unknown>;
    expect(now).toEqual(was);
  });
});
