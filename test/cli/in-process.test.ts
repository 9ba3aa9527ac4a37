// Issue 30 item 4: test/helpers/in-process.ts runs the built CLI in the test's own process. Each
// command line here runs both ways, as a child process (runCli) and in-process (runInProcess), and
// must give the same exit code, stdout and stderr: text, --json, --jq, a usage error (with and
// without --json), an API error against the mock, an unknown command, help, stdin input, oclif's
// path for a command that runs, --no-input, and a run that follows a failed one (nothing carried
// over from one in-process run to the next).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, createCustomer, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliOptions, type CliResult, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner, runInProcess } from '../helpers/in-process.js';

let mock: MockHandle;
/** one sandbox per side: a line that changes the sandbox (a profile added) finds each side as the other did */
let sb: Sandbox;
let sbInProcess: Sandbox;
let env: Record<string, string>;
let card: { id: string };
let dir: string;
let payload: string;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 44, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  sbInProcess = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
    CARDCTL_WEBHOOK_SECRET: mock.webhookSecret,
  };
  card = await activeCard(mock);
  for (let i = 0; i < 3; i++) await createCustomer(mock, { overrides: { email: `inproc${i}@example.com` } });
  dir = mkdtempSync(join(tmpdir(), 'cardctl-inproc-'));
  payload = join(dir, 'payload.json');
  writeFileSync(payload, '{"id":"evt_1"}');
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
  sbInProcess?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Runs the line both ways and requires the same result; returns it. */
async function same(args: string[], options: CliOptions = {}) {
  const opts = { ...options, env: { ...env, ...options.env } };
  const spawned = await sb.run(args, opts);
  const inProcess = await inProcessRunner(sbInProcess)(args, opts);
  // the mock numbers its requests: the second run of a line names the next one
  const requests = (r: CliResult) => ({
    ...r,
    stdout: r.stdout.replace(/req_\d+/g, 'req_N'),
    stderr: r.stderr.replace(/req_\d+/g, 'req_N'),
  });
  expect(requests(inProcess), `cardctl ${args.join(' ')}`).toEqual(requests(spawned));
  return spawned;
}

describe('runInProcess gives what runCli gives', () => {
  it('text, --json and --jq of a command against the mock', async () => {
    expect((await same(['cards', 'get', card.id])).code).toBe(0);
    expect((await same(['customers', 'list', '--per-page', '2'])).stdout).toContain('inproc');
    const json = await same(['customers', 'list', '--per-page', '2', '--json']);
    expect(JSON.parse(json.stdout).data).toHaveLength(2);
    expect((await same(['cards', 'get', card.id, '--jq', '.id'])).stdout).toBe(`${card.id}\n`);
    expect((await same(['customers', 'list', '--all', '--ndjson', '--jq', '.email'])).code).toBe(0);
    expect((await same(['customers', 'list', '--output', 'csv', '--per-page', '3'])).code).toBe(0);
  });

  it('offline commands (signing), and --jq of one', async () => {
    expect((await same(['webhooks', 'sign', '--payload', payload, '--timestamp', '1700000000'])).code).toBe(0);
    expect((await same(['webhooks', 'sign', '--payload', payload, '--timestamp', '1', '--jq', '.header'])).code).toBe(
      0,
    );
    expect((await same(['completion', 'bash', '--jq', '.shell'])).stdout).toBe('bash\n');
  });

  it('an API error against the mock (exit 4), as text and as --json', async () => {
    expect((await same(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W'])).code).toBe(4);
    const json = await same(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--json']);
    expect(JSON.parse(json.stdout).error).toBeDefined();
    expect((await same(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--jq', '.id'])).code).toBe(4);
  });

  it('usage errors through oclif (exit 2), as text and as --json; a bad --jq expression', async () => {
    expect((await same(['cards', 'get'])).code).toBe(2);
    expect((await same(['customers', 'list', '--per-page', 'abc', '--json'])).code).toBe(2);
    expect((await same(['customers', 'list', '--nope'])).code).toBe(2);
    expect((await same(['cards', 'get', card.id, '--jq', '.[[['])).code).toBe(2);
  });

  it('an unknown command and its suggestion; help', async () => {
    expect((await same(['cardz', 'list'])).code).not.toBe(0);
    expect((await same(['cards', 'lst', '--json'])).code).not.toBe(0);
    expect((await same(['cards', 'get', '--help'])).stdout).toContain('cards get');
    expect((await same(['help', 'cards', 'issue'])).code).toBe(0);
    expect((await same(['cards'])).code).toBe(0);
  });

  it("a command run by oclif's path (CARDCTL_NO_FAST_PATH=1, a grouped or negated flag)", async () => {
    expect((await same(['cards', 'get', card.id], { env: { CARDCTL_NO_FAST_PATH: '1' } })).code).toBe(0);
    expect(
      (
        await same(['customers', 'list', '--per-page', '1', '--jq', '.data[0].email'], {
          env: { CARDCTL_NO_FAST_PATH: '1' },
        })
      ).code,
    ).toBe(0);
    expect(
      (await same(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W'], { env: { CARDCTL_NO_FAST_PATH: '1' } })).code,
    ).toBe(4);
  });

  it('stdin input, --no-input, a relative path from cwd, and runs that follow a failure', async () => {
    const added = await same(
      ['profiles', 'add', 'inproc', '--key-id', mock.keys.test.keyId, '--mode', 'test', '--secret-stdin', '--json'],
      { input: `${mock.keys.test.secret}\n` },
    );
    expect(added.code, added.stderr).toBe(0);
    expect((await same(['profiles', 'list', '--json'])).code).toBe(0);
    expect((await same(['webhooks', 'sign', '--payload', 'payload.json', '--timestamp', '1'], { cwd: dir })).code).toBe(
      0,
    );
    await same(['profiles', 'add', 'other', '--key-id', 'x', '--mode', 'test', '--no-input']);
    await same(['profiles', 'add', 'other', '--key-id', 'x', '--mode', 'test']);
    await same(['sign', '--method', 'GET', '--path', '/v1/cards', '--secret-stdin'], { input: 'abc\n' });
  });

  it('the environment, argv, cwd, stdin, exit code and listeners of the worker are put back', async () => {
    const before = {
      env: { ...process.env },
      argv: process.argv,
      cwd: process.cwd(),
      stdin: process.stdin,
      exitCode: process.exitCode,
      listeners: ['exit', 'SIGINT', 'SIGTERM'].map((e) => process.listenerCount(e)),
      stdoutWrite: process.stdout.write,
    };
    const r = await runInProcess(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W'], {
      env: { ...env, ...sbInProcess.env },
      cwd: dir,
    });
    expect(r.code).toBe(4);
    expect({
      env: { ...process.env },
      argv: process.argv,
      cwd: process.cwd(),
      stdin: process.stdin,
      exitCode: process.exitCode,
      listeners: ['exit', 'SIGINT', 'SIGTERM'].map((e) => process.listenerCount(e)),
      stdoutWrite: process.stdout.write,
    }).toEqual(before);
  });
});
