// Robustness of the control plane (/_mock), like the API's fuzz.test.ts: seeded random calls WITH
// the control token on every route (real ids included), with bodies nested thousands of levels
// deep, oversized, mistyped or broken. The mock runs as `cardctl mock start --state FILE` (the
// built CLI): a crash is the child exiting, and every change must still be saved. No answer may
// be a 5xx or miss the JSON envelope; the mock still answers at the end and restarts from its file.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeCard,
  apiCall,
  expectOk,
  handleFromBanner,
  rawRequest,
  UNKNOWN_ULID,
  type MockHandle,
} from '../helpers/api.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { deepArray, fuzzSeed, inFlight, requestRng, show, type Outcome, type Rng } from '../helpers/fuzz.js';

const SEED = fuzzSeed(20261123);
const TOTAL = 5_000;
const IN_FLIGHT = 16;

const deepObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const DEPTHS = [2, 31, 32, 33, 100, 4_110, 4_200, 20_000, 100_000];

const dir = mkdtempSync(join(tmpdir(), 'cardctl-control-fuzz-'));
const stateFile = join(dir, 'state.json');
let child: ChildProcessWithoutNullStreams;
let mock: MockHandle;
let exited: number | null | undefined;
const ids = { card: UNKNOWN_ULID, customer: UNKNOWN_ULID, key: UNKNOWN_ULID, endpoint: UNKNOWN_ULID };

function startChild(): Promise<MockHandle> {
  const env: NodeJS.ProcessEnv = { ...process.env, CARDCTL_CONFIG_DIR: join(dir, 'config'), NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && k !== 'CARDCTL_CONFIG_DIR') delete env[k];
  child = spawn(
    process.execPath,
    [BIN, 'mock', 'start', '--port', '0', '--json', '--state', stateFile, '--rate-limit', '10000000'],
    { cwd: ROOT, env },
  );
  exited = undefined;
  child.on('exit', (code) => (exited = code));
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      resolve(handleFromBanner(JSON.parse(out.slice(0, nl))));
    });
    child.on('exit', (code) => reject(new Error(`mock exited with ${code}: ${err}`)));
  });
}

const ctl = (method: string, path: string, body?: string) =>
  rawRequest({
    port: mock.port,
    method,
    path: `/_mock${path}`,
    body,
    headers: {
      Authorization: `Bearer ${mock.controlToken}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    timeoutMs: 20_000,
  });

beforeAll(async () => {
  mock = await startChild();
  // real ids, so the handlers behind the routes are reached, not only their 404s
  const card = await activeCard(mock);
  ids.card = card.id;
  ids.customer = card.customer_id;
  const key = await ctl('POST', '/keys', '{"mode":"test"}');
  if (key.status === 201) ids.key = key.body.data.key_id;
  const ep = await ctl('POST', '/webhook-endpoints', '{"url":"http://127.0.0.1:9/hooks"}');
  if (ep.status === 201) ids.endpoint = ep.body.data.id;
});
afterAll(async () => {
  // (a child started during a test was already killed by test/setup/children.ts)
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
  }
  rmSync(dir, { recursive: true, force: true });
});

function routes(): Array<[string, string]> {
  return [
    ['GET', '/state'],
    ['POST', '/reset'],
    ['POST', '/merchants'],
    ['POST', '/keys'],
    ['POST', `/keys/${ids.key}/roll`],
    ['POST', `/keys/${ids.key}/rotate`],
    ['POST', `/keys/${ids.key}/revoke`],
    ['GET', '/clock'],
    ['POST', '/clock/advance'],
    ['POST', `/customers/${ids.customer}/kyc`],
    ['POST', `/cards/${ids.card}/provision`],
    ['POST', `/cards/${ids.card}/transactions`],
    ['POST', '/deposits'],
    ['POST', '/withdrawals'],
    ['GET', '/products'],
    ['PATCH', `/products/${UNKNOWN_ULID}`],
    ['GET', '/networks'],
    ['PUT', '/networks'],
    ['GET', '/faults'],
    ['POST', '/faults'],
    ['GET', '/wallets'],
    ['GET', '/webhook-endpoints'],
    ['POST', '/webhook-endpoints'],
    ['POST', `/webhook-endpoints/${ids.endpoint}/enable`],
    ['DELETE', `/webhook-endpoints/${ids.endpoint}`],
    ['GET', '/webhook-deliveries'],
    ['GET', '/events'],
    ['POST', '/events'],
    ['GET', '/events?type=card.issued&merchant_id=%FF'],
  ];
}

/** A value of any JSON type, sometimes deep, sometimes huge. */
function value(r: Rng): string {
  switch (r.int(12)) {
    case 0:
      return deepArray(r.pick(DEPTHS));
    case 1:
      return deepObject(r.pick(DEPTHS));
    case 2:
      return JSON.stringify('x'.repeat(r.int(3000)));
    case 3:
      return r.pick(['1e308', '-1', '0', '1.5', '9007199254740993', '-0', '1e-400', '123456789012345678901234567890']);
    case 4:
      return r.pick(['null', 'true', 'false', '[]', '{}', '""']);
    case 5:
      return JSON.stringify(
        r.pick([
          'approved',
          'rejected',
          'active',
          'failed',
          'test',
          'live',
          'trc20',
          'issue',
          '503',
          'card.issued',
          'withdrawal.failed',
        ]),
      );
    case 6:
      return JSON.stringify(
        r.pick([
          'http://127.0.0.1:9/x',
          'https://10.0.0.1/',
          'https://[::1.2.3.4]/',
          'https://x.invalid/',
          'http://localhost:9/\r\n',
          'javascript:1',
          'https://' + 'a'.repeat(300) + '.invalid/',
        ]),
      );
    case 7:
      return JSON.stringify({ nested: '[[[[[[' + '{'.repeat(100) }); // brackets inside a string do not nest
    case 8:
      return `"${'\\ud800'.repeat(r.int(4))}\\u0000"`;
    case 9:
      return JSON.stringify([r.pick(['bep20', 'erc20', 'trc20', 'nope']), 1, null]);
    case 10:
      return JSON.stringify({ __proto__: { polluted: 1 }, constructor: { prototype: { x: 1 } } });
    default:
      return String(r.int(100_000));
  }
}

const FIELDS = [
  'type',
  'data',
  'merchant_id',
  'mode',
  'seconds',
  'verdict',
  'reason',
  'outcome',
  'amount_minor',
  'fee_minor',
  'network',
  'asset_amount',
  'status',
  'operation',
  'kind',
  'count',
  'ms',
  'url',
  'enabled',
  'scopes',
  'ip_allowlist',
  'expires_in_seconds',
  'occurred_at',
  'default',
  'available',
  'name',
];

function body(r: Rng): string | undefined {
  const kind = r.int(10);
  if (kind === 0) return undefined;
  if (kind === 1) return r.pick(['{', 'null', '[]', '""', '\u0000', '{"a":1,"a":2}', '1e999']);
  if (kind === 2)
    return `{"type":${JSON.stringify(r.pick(['card.issued', 'withdrawal.failed', 'customer.kyc.rejected']))},"data":{"x":${deepArray(r.pick(DEPTHS))}}}`;
  if (kind === 3) return `{"type":"card.issued","data":${deepObject(r.pick(DEPTHS))}}`;
  if (kind === 4) return `{"data":{"blob":${JSON.stringify('z'.repeat(200_000 + r.int(200_000)))}}}`; // around the size limit
  const n = 1 + r.int(4);
  const pairs = Array.from({ length: n }, () => `${JSON.stringify(r.pick(FIELDS))}:${value(r)}`);
  return `{${pairs.join(',')}}`;
}

async function fuzzOne(i: number): Promise<Outcome> {
  const r = requestRng(SEED, i);
  const [method, path] = r.chance(0.9)
    ? r.pick(routes())
    : [
        r.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
        r.pick(['/', '/%00', '/../state', '/keys//roll', `/cards/${'%'.repeat(3)}/provision`]),
      ];
  const b = body(r);
  const desc = `#${i} ${method} ${path} ${b === undefined ? '' : `${b.length}B ${b.slice(0, 60)}`}`;
  try {
    const res = await ctl(method, path, b);
    return {
      desc,
      status: res.status,
      json: typeof res.body === 'object' && res.body !== null && typeof res.body.success === 'boolean',
    };
  } catch (e) {
    return { desc, error: (e as Error).message };
  }
}

describe('control-plane fuzz', () => {
  it('a body nested deeper than the limit is refused with 422 naming it, and the mock keeps answering', async () => {
    for (const depth of [33, 4_110, 4_200, 100_000]) {
      const res = await ctl('POST', '/events', `{"type":"card.issued","data":${deepArray(depth)}}`);
      expect(res.status, `depth ${depth}`).toBe(422);
      expect(res.body.errors.body[0]).toMatch(/more than 32 levels deep: the limit is 32/);
    }
    const big = await ctl(
      'POST',
      '/events',
      `{"type":"card.issued","data":{"blob":${JSON.stringify('z'.repeat(300_000))}}}`,
    );
    expect(big.status).toBe(422);
    expect(big.body.errors.body[0]).toMatch(/the limit is 262144 bytes/);
    // at the limit: accepted, listed and saved
    const ok = await ctl('POST', '/events', `{"type":"card.issued","data":{"x":${deepArray(30)}}}`);
    expect(ok.status).toBe(201);
    const listed = await ctl('GET', '/events');
    expect(listed.status).toBe(200);
    expect(listed.body.data.some((e: { id: string }) => e.id === ok.body.data.id)).toBe(true);
    expect(exited).toBeUndefined();
  });

  it(`${TOTAL} random control calls with the token: no crash, no 5xx, always the envelope, still answering (seed ${SEED})`, async () => {
    const outcomes = await inFlight(TOTAL, IN_FLIGHT, fuzzOne, () => exited === undefined);
    expect(exited, 'the mock process exited during the run').toBeUndefined();
    expect(outcomes).toHaveLength(TOTAL);
    const serverErrors = outcomes.filter((o) => o.status !== undefined && o.status >= 500);
    const notJson = outcomes.filter((o) => o.status !== undefined && !o.json);
    const noAnswer = outcomes.filter((o) => o.error !== undefined);
    expect(serverErrors, show(serverErrors)).toEqual([]);
    expect(notJson, show(notJson)).toEqual([]);
    expect(noAnswer, show(noAnswer)).toEqual([]);
    const statuses = new Set(outcomes.map((o) => o.status));
    for (const s of [200, 201, 404, 422]) expect(statuses.has(s), `answers with status ${s}`).toBe(true);

    // still answering, the control plane and the API
    expect((await ctl('GET', '/state')).status).toBe(200);
    expect((await ctl('GET', '/events')).status).toBe(200);
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers' }));
  });

  it('what was answered 2xx was saved: the mock restarts from its state file and lists the same events', async () => {
    const before = (await ctl('GET', '/events')).body.data.map((e: { id: string }) => e.id);
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
    mock = await startChild();
    const after = (await ctl('GET', '/events')).body.data.map((e: { id: string }) => e.id);
    expect(after).toEqual(before);
  });
});

describe('a change that cannot be saved', () => {
  it('is answered 500, never 2xx; once the file can be written again, changes are saved', async () => {
    const { startMock } = await import('../../src/mock/index.js');
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const folder = mkdtempSync(join(tmpdir(), 'cardctl-unsaved-'));
    const file = join(folder, 'sub', 'state.json');
    const m = (await startMock({ port: 0, seed: 3, providerLatencyMs: 0, stateFile: file })) as unknown as MockHandle;
    try {
      const call = (method: string, path: string, b?: string) =>
        rawRequest({
          port: m.port,
          method,
          path: `/_mock${path}`,
          body: b,
          headers: { Authorization: `Bearer ${m.controlToken}`, ...(b ? { 'Content-Type': 'application/json' } : {}) },
        });
      rmSync(join(folder, 'sub'), { recursive: true, force: true });
      writeFileSync(join(folder, 'sub'), 'a file where the state folder was'); // the state cannot be written now
      const refused = await call('POST', '/merchants', '{}');
      expect(refused.status).toBe(500);
      expect(refused.body).toMatchObject({ success: false });
      rmSync(join(folder, 'sub'), { force: true });
      mkdirSync(join(folder, 'sub'));
      expect((await call('POST', '/merchants', '{}')).status).toBe(201);
    } finally {
      await m.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
