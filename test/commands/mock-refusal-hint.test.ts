// Issue 18 item 4: when a cardctl mock refuses a command, the hint says what the mock found and
// names the command that shows its record; --verbose prints the mock's explanation with the other
// headers. The built CLI against the mock on port 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliOptions } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

const sandbox = makeSandbox();
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sandbox)(args, options);
let mock: MockHandle;
let env: Record<string, string>;
const WRONG_SECRET = Buffer.alloc(32, 7).toString('base64'); // a well-formed secret, not the key's

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 18, providerLatencyMs: 0 })) as unknown as MockHandle;
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
    CARDCTL_MOCK_URL: mock.controlUrl,
    CARDCTL_MOCK_TOKEN: mock.controlToken,
  };
});
afterAll(async () => {
  await mock?.close();
  sandbox.cleanup();
});

const shownId = (text: string): string => /cardctl mock requests show (req_\d+)/.exec(text)?.[1] ?? '';

describe('a refusal of the mock, explained in the hint', () => {
  it('an unknown card: the hint carries the diagnosis and the record it names is that request', async () => {
    const r = await runIn(['cards', 'get', '01JD2QA1B2C3D4E5F6G7H8J9KM', '--retries', '0'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/The mock explains it \(resource_unknown: No card 01JD2QA1B2C3D4E5F6G7H8J9KM exists/);
    const id = shownId(r.stderr);
    expect(id).toMatch(/^req_\d+$/);
    const show = await runIn(['mock', 'requests', 'show', id, '--json'], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(JSON.parse(show.stdout)).toMatchObject({
      id,
      method: 'GET',
      status: 404,
      path: '/api/v1/cards/01JD2QA1B2C3D4E5F6G7H8J9KM',
      diagnosis: { id: 'resource_unknown' },
    });
  });

  it('a wrong secret: exit 3, the hint says what the mock found (never the secret); --json has it in the hint; --verbose prints the header', async () => {
    const wrong = { ...env, CARDCTL_API_SECRET: WRONG_SECRET };
    const r = await runIn(['customers', 'list', '--retries', '0'], { env: wrong });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/The mock explains it \([a-z_]+: [^)]+/);
    const j = await runIn(['customers', 'list', '--retries', '0', '--json'], { env: wrong });
    const hint = JSON.parse(j.stdout).error.hint as string;
    expect(hint).toMatch(/The mock explains it \([a-z_]+: /);
    expect(shownId(hint)).toMatch(/^req_\d+$/);
    const v = await runIn(['customers', 'list', '--retries', '0', '--verbose'], { env: wrong });
    expect(v.stderr).toMatch(/< x-cardctl-mock-diagnosis: [a-z_]+: /i);
    for (const out of [r.stdout, r.stderr, j.stdout, j.stderr, v.stdout, v.stderr]) {
      expect(out).not.toContain(WRONG_SECRET);
      expect(out).not.toContain(mock.keys.test.secret);
    }
  });

  it('an answer the mock accepted names its record only with --verbose; the hint of a mock started with --request-log 0 is as before', async () => {
    const ok = await runIn(['customers', 'list', '--per-page', '1', '--verbose'], { env });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stderr).toMatch(/< x-cardctl-mock-request: req_\d+/i);
    expect(ok.stderr).not.toMatch(/x-cardctl-mock-diagnosis/i);
    const quiet = (await startMock({
      port: 0,
      seed: 19,
      providerLatencyMs: 0,
      requestLog: 0,
    })) as unknown as MockHandle;
    try {
      const r = await runIn(['cards', 'get', '01JD2QA1B2C3D4E5F6G7H8J9KM', '--retries', '0'], {
        env: {
          ...env,
          CARDCTL_API_KEY: quiet.keys.test.keyId,
          CARDCTL_API_SECRET: quiet.keys.test.secret,
          CARDCTL_BASE_URL: quiet.baseUrl,
        },
      });
      expect(r.code).toBe(4);
      expect(r.stderr).not.toContain('mock requests show');
    } finally {
      await quiet.close();
    }
  });
});
