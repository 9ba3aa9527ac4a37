// `cardctl mock requests` and `mock requests show` (issue 18 item 3): the built CLI against the
// mock on port 0, requests signed by the test's own signer. In this process
// (test/helpers/in-process.ts), but for `mock start` (refused here; it would run until a signal).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliOptions } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { signedCall } from '../helpers/independent-signer.js';

const sandbox = makeSandbox();
/** The built CLI in this process, in the sandbox. */
const run = (args: string[], options?: CliOptions) => inProcessRunner(sandbox)(args, options);
let mock: MockHandle;
let env: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 21, providerLatencyMs: 0 })) as unknown as MockHandle;
  env = { CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken };
  const key = mock.keys.test;
  await signedCall({
    port: mock.port,
    method: 'GET',
    path: '/api/v1/customers',
    query: 'per_page=1',
    keyId: key.keyId,
    secret: key.secret,
  });
  await signedCall({
    port: mock.port,
    method: 'GET',
    path: '/api/v1/customers',
    query: 'per_page=1&cursor=a',
    keyId: key.keyId,
    secret: key.secret,
    signed: { query: 'per_page=1&cursor=a' },
  });
  await signedCall({ port: mock.port, method: 'GET', path: '/api/v1/customer', keyId: key.keyId, secret: key.secret });
});
afterAll(async () => {
  await mock?.close();
  sandbox.cleanup();
});

describe('mock requests', () => {
  it('prints one line per request, oldest first, each refusal with its diagnosis', async () => {
    const r = await run(['mock', 'requests'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/req_1 +GET \/api\/v1\/customers\?per_page=1 +200/);
    expect(lines[1]).toMatch(
      /req_2 .* 401 invalid_signature .*query_not_sorted: the query parameters were signed in the order they were sent/,
    );
    expect(lines[2]).toMatch(
      /req_3 .* 404 .*route_typo: No route GET \/api\/v1\/customer: did you mean GET \/api\/v1\/customers\?/,
    );
  });

  it('--failed --limit N keeps the newest N refusals; --json and --ndjson give the records', async () => {
    const json = await run(['mock', 'requests', '--failed', '--limit', '1', '--json'], { env });
    expect(json.code, json.stderr).toBe(0);
    const records = JSON.parse(json.stdout).data; // the {data, meta} of every list
    expect(records.map((x: any) => x.id)).toEqual(['req_3']);
    const nd = await run(['mock', 'requests', '--failed', '--ndjson'], { env });
    expect(
      nd.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).id),
    ).toEqual(['req_2', 'req_3']);
  });

  it('show ID prints the whole record: the diagnosis, the mistakes and the canonical string the mock built', async () => {
    const r = await run(['mock', 'requests', 'show', 'req_2'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^diagnosis +query_not_sorted/m);
    expect(r.stdout).toMatch(/fix: sort the parameters by key/);
    expect(r.stdout).toMatch(/3 +cursor=a&per_page=1/);
    expect(r.stdout).toMatch(/^key_id +01/m);
  });

  it('show of an unknown id exits 4 and says what ids look like', async () => {
    const r = await run(['mock', 'requests', 'show', 'req_424242'], { env });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/req_1/);
  });

  it('show of an empty id is exit 2 with nothing on stdout (it printed the whole list as one record)', async () => {
    for (const id of ['', '  ']) {
      const r = await run(['mock', 'requests', 'show', id], { env });
      expect(r.code, r.stdout).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('the request id is empty');
    }
  });

  it('mock start refuses --log with --request-log 0 and a negative size (exit 2)', async () => {
    const off = await sandbox.run(['mock', 'start', '--port', '0', '--log', '--request-log', '0']);
    expect(off.code).toBe(2);
    expect(off.stderr).toMatch(/--request-log 0/);
    const negative = await sandbox.run(['mock', 'start', '--port', '0', '--request-log', '-1']);
    expect(negative.code).toBe(2);
  });
});
