// A diagnosis for every refusal type (issue 18 item 2), each driven over real HTTP against the
// mock on port 0 by requests built with the test's own signer (not the project's signing core),
// in test and live mode; the diagnosis is read back from GET /_mock/requests/{id}.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  approvedCustomer,
  ctl,
  newKey,
  rawRequest,
  type KeyPair,
  type MockHandle,
} from '../helpers/api.js';
import { makeSandbox } from '../helpers/cli.js';
import { independentSignature, nowS, sha256hex, signedCall, type SignedCall } from '../helpers/independent-signer.js';

const started: MockHandle[] = [];
async function newMock(options: Record<string, unknown> = {}): Promise<MockHandle> {
  const m = (await startMock({ port: 0, providerLatencyMs: 0, ...options })) as unknown as MockHandle;
  started.push(m);
  return m;
}
afterAll(async () => {
  for (const m of started) await m.close();
});

let mock: MockHandle;
beforeAll(async () => {
  mock = await newMock({ seed: 180 });
});

type Mode = 'test' | 'live';
const keyOf = (m: MockHandle, mode: Mode): KeyPair => m.keys[mode];

/** Sends one request and returns the record the log kept for it (the newest API record). */
async function record(
  m: MockHandle,
  call: Omit<SignedCall, 'port' | 'keyId' | 'secret'> & { key?: KeyPair; mode?: Mode },
): Promise<any> {
  const key = call.key ?? keyOf(m, call.mode ?? 'test');
  const res = await signedCall({ port: m.port, keyId: key.keyId, secret: key.secret, ...call });
  const [r] = await ctl(m, 'GET', '/_mock/requests?plane=api&limit=1');
  expect(r.status).toBe(res.status);
  return r;
}
const byId = (m: MockHandle, id: string) => ctl(m, 'GET', `/_mock/requests/${id}`);

describe('401 missing_signature_headers', () => {
  it('names the missing header and the near name sent instead', async () => {
    await rawRequest({
      port: mock.port,
      method: 'GET',
      path: '/api/v1/customers',
      headers: { 'X-Api-Key': mock.keys.test.keyId, 'X-Timestamp': nowS(), 'X-Nonse': 'n1', 'X-Signature': 'abc' },
    });
    const [r] = await ctl(mock, 'GET', '/_mock/requests?limit=1');
    expect(r.codes).toEqual(['missing_signature_headers']);
    expect(r.diagnosis).toMatchObject({
      id: 'header_misnamed',
      details: { missing: ['X-Nonce'], near: { 'X-Nonce': 'x-nonse' } },
    });
    expect(r.diagnosis.message).toMatch(/X-Nonce \(you sent "x-nonse": rename it\)/);
  });
  it('lists every missing header when none is near', async () => {
    await rawRequest({ port: mock.port, method: 'GET', path: '/api/v1/customers' });
    const [r] = await ctl(mock, 'GET', '/_mock/requests?limit=1');
    expect(r.diagnosis).toMatchObject({
      id: 'headers_missing',
      details: { missing: ['X-Api-Key', 'X-Timestamp', 'X-Nonce', 'X-Signature'] },
    });
  });
});

describe('401 timestamp_out_of_window', () => {
  for (const mode of ['test', 'live'] as const) {
    it(`gives the skew on the real clock (${mode} mode)`, async () => {
      const r = await record(mock, {
        mode,
        method: 'GET',
        path: '/api/v1/customers',
        timestamp: String(Number(nowS()) - 1000),
      });
      expect(r.diagnosis.id).toBe('timestamp_stale');
      expect(r.diagnosis.details.skew_seconds).toBeLessThanOrEqual(-1000);
      expect(r.diagnosis.details.within_simulated_clock).toBe(false);
      expect(r.diagnosis.message).toMatch(/s in the past \(the window is 300 s on the real clock\)/);
    });
  }
  it('tells milliseconds and malformed values', async () => {
    expect(
      (await record(mock, { method: 'GET', path: '/api/v1/customers', timestamp: String(Date.now()) })).diagnosis.id,
    ).toBe('timestamp_milliseconds');
    expect((await record(mock, { method: 'GET', path: '/api/v1/customers', timestamp: '12ab' })).diagnosis.id).toBe(
      'timestamp_malformed',
    );
  });
  it('says when the request was signed with the simulated clock moved by mock clock advance', async () => {
    const m = await newMock({ seed: 181 });
    await ctl(m, 'POST', '/_mock/clock/advance', { seconds: 3600 });
    const simulated = String(Number(nowS()) + 3600);
    const r = await record(m, { mode: 'live', method: 'GET', path: '/api/v1/customers', timestamp: simulated });
    expect(r.diagnosis).toMatchObject({
      id: 'timestamp_from_simulated_clock',
      details: { within_simulated_clock: true },
    });
    expect(r.diagnosis.message).toMatch(/mock clock advance/);
  });
});

describe('401 invalid_api_key', () => {
  it('an unknown key id', async () => {
    const r = await record(mock, {
      method: 'GET',
      path: '/api/v1/customers',
      key: { keyId: '01JD2Q7N8V3K4M5P6R7S8T9ZZZ', secret: 'x' },
    });
    expect(r.diagnosis).toMatchObject({ id: 'key_unknown', details: { key_id: '01JD2Q7N8V3K4M5P6R7S8T9ZZZ' } });
  });
  for (const mode of ['test', 'live'] as const) {
    it(`a revoked ${mode} key, with when`, async () => {
      const key = await newKey(mock, { mode });
      await ctl(mock, 'POST', `/_mock/keys/${key.keyId}/revoke`);
      const r = await record(mock, { key, method: 'GET', path: '/api/v1/customers' });
      expect(r.diagnosis).toMatchObject({ id: 'key_revoked', details: { key_id: key.keyId, mode } });
      expect(Date.parse(r.diagnosis.details.revoked_at)).not.toBeNaN();
    });
  }
  it('an expired key, with when', async () => {
    const m = await newMock({ seed: 182 });
    const d = await ctl(m, 'POST', '/_mock/keys', { mode: 'test', expires_in_seconds: 60 });
    await ctl(m, 'POST', '/_mock/clock/advance', { seconds: 120 });
    const r = await record(m, { key: { keyId: d.key_id, secret: d.secret }, method: 'GET', path: '/api/v1/customers' });
    expect(r.diagnosis).toMatchObject({ id: 'key_expired', details: { key_id: d.key_id } });
    expect(Math.floor(Date.parse(r.diagnosis.details.expires_at) / 1000)).toBe(Date.parse(d.expires_at) / 1000);
  });
  it('a secret sent as the key id, without recording it', async () => {
    const r = await record(mock, {
      method: 'GET',
      path: '/api/v1/customers',
      key: { keyId: mock.keys.live.secret, secret: mock.keys.live.secret },
    });
    expect(r.diagnosis.id).toBe('secret_sent_as_key_id');
    expect(JSON.stringify(r)).not.toContain(mock.keys.live.secret);
  });
});

describe('401 invalid_signature', () => {
  for (const mode of ['test', 'live'] as const) {
    it(`finds the query signed unsorted with the key's secret (${mode} mode), same id as sign diagnose`, async () => {
      const r = await record(mock, {
        mode,
        method: 'GET',
        path: '/api/v1/customers',
        query: 'per_page=2&cursor=abc',
        signed: { query: 'per_page=2&cursor=abc' },
      });
      expect(r.codes).toEqual(['invalid_signature']);
      expect(r.diagnosis.id).toBe('query_not_sorted');
      expect(r.diagnosis.details.mistakes.map((m: any) => m.id)).toEqual(['query_not_sorted']);
      expect(r.diagnosis.details.canonical).toEqual([
        'GET',
        '/api/v1/customers',
        'cursor=abc&per_page=2',
        keyOf(mock, mode).keyId,
        expect.any(String),
        expect.any(String),
        expect.stringMatching(/^[0-9a-f]{64}$/),
      ]);
    });
  }
  it('finds the path signed without /api/v1 and a pretty-printed body', async () => {
    expect(
      (await record(mock, { method: 'GET', path: '/api/v1/customers', signed: { path: '/customers' } })).diagnosis.id,
    ).toBe('path_without_prefix');
    const body = JSON.stringify({ first_name: 'Ada' });
    const pretty = JSON.stringify({ first_name: 'Ada' }, null, 2);
    const { createHash } = await import('node:crypto');
    const r = await record(mock, {
      mode: 'live',
      method: 'POST',
      path: '/api/v1/customers',
      body,
      signed: { bodySha256: createHash('sha256').update(pretty).digest('hex') },
    });
    expect(r.diagnosis.id).toBe('body_pretty_printed');
  });
  it('finds a secret read with its trailing newline', async () => {
    const r = await record(mock, {
      method: 'GET',
      path: '/api/v1/customers',
      signed: { secret: mock.keys.test.secret + '\n' },
    });
    expect(r.diagnosis.id).toBe('secret_trailing_newline');
  });
  it('names the key whose secret signed it: the other mode', async () => {
    const r = await record(mock, {
      method: 'GET',
      path: '/api/v1/customers',
      signed: { secret: mock.keys.live.secret },
    });
    expect(r.diagnosis).toMatchObject({
      id: 'signed_with_other_secret',
      details: { signed_with_key_id: mock.keys.live.keyId },
    });
    expect(r.diagnosis.message).toMatch(/the live key .* \(the other mode\)/);
  });
  it('names a revoked key whose secret signed it', async () => {
    const revoked = await newKey(mock, { mode: 'test' });
    await ctl(mock, 'POST', `/_mock/keys/${revoked.keyId}/revoke`);
    const r = await record(mock, { method: 'GET', path: '/api/v1/customers', signed: { secret: revoked.secret } });
    expect(r.diagnosis).toMatchObject({
      id: 'signed_with_other_secret',
      details: { signed_with_key_id: revoked.keyId },
    });
    expect(r.diagnosis.message).toMatch(/revoked key/);
  });
  it('names a rolled secret past its 24 hours', async () => {
    const m = await newMock({ seed: 183 });
    const old = m.keys.test;
    await ctl(m, 'POST', `/_mock/keys/${old.keyId}/roll`);
    await ctl(m, 'POST', '/_mock/clock/advance', { seconds: 25 * 3600 });
    const r = await record(m, { key: old, method: 'GET', path: '/api/v1/customers' });
    expect(r.diagnosis).toMatchObject({ id: 'signed_with_other_secret', details: { signed_with_key_id: old.keyId } });
    expect(r.diagnosis.message).toMatch(/previous secret, accepted for 24 h after the roll/);
  });
  it('names the same mistake as `cardctl sign diagnose` given the same request', async () => {
    const key = mock.keys.live;
    const [ts, nonce, body] = [nowS(), randomUUID(), '{"first_name":"Ada"}'];
    const signature = independentSignature(key.secret + '\n', [
      'POST',
      '/api/v1/customers',
      '',
      key.keyId,
      ts,
      nonce,
      sha256hex(body),
    ]);
    const headers = {
      'X-Api-Key': key.keyId,
      'X-Timestamp': ts,
      'X-Nonce': nonce,
      'X-Signature': signature,
      'Content-Type': 'application/json',
    };
    await rawRequest({ port: mock.port, method: 'POST', path: '/api/v1/customers', headers, body });
    const [r] = await ctl(mock, 'GET', '/_mock/requests?limit=1');
    const sandbox = makeSandbox();
    try {
      const raw = `POST /api/v1/customers HTTP/1.1\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n')}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const cli = await sandbox.run(['sign', 'diagnose', '--request', '-', '--json'], {
        input: raw,
        env: { CARDCTL_API_SECRET: key.secret, CARDCTL_API_KEY: key.keyId },
      });
      const ids = JSON.parse(cli.stdout).mistakes.map((m: any) => m.id);
      expect(ids).toEqual(['secret_trailing_newline']);
      expect(r.diagnosis.details.mistakes.map((m: any) => m.id)).toEqual(ids);
    } finally {
      sandbox.cleanup();
    }
  });
  it('shows the canonical string with invisible characters made visible', async () => {
    const r = await record(mock, {
      method: 'GET',
      path: '/api/v1/customers',
      nonce: 'nonce\u00a0x',
      signed: { path: '/api/v1/customers/' },
    });
    expect(r.diagnosis.details.canonical[5]).toBe('nonce\\u{A0}x');
  });
});

describe('409 replay_detected', () => {
  for (const mode of ['test', 'live'] as const) {
    it(`names the request that first used the nonce (${mode} mode)`, async () => {
      const nonce = randomUUID();
      const first = await record(mock, { mode, method: 'GET', path: '/api/v1/customers', nonce });
      const again = await record(mock, { mode, method: 'GET', path: '/api/v1/customers', nonce });
      expect(again.codes).toEqual(['replay_detected']);
      expect(again.diagnosis).toMatchObject({
        id: 'nonce_reused',
        details: { nonce, first_request: { request_id: first.id, at: first.received_at } },
      });
    });
  }
});

describe('idempotency', () => {
  it('422 payload_mismatch: the fields that differ from the first body, and its id', async () => {
    const customer = (await approvedCustomer(mock)).id;
    const key = `idem-${randomUUID()}`;
    const first = await record(mock, {
      method: 'POST',
      path: '/api/v1/cards',
      body: JSON.stringify({ customer_id: customer, amount_minor: 1000 }),
      headers: { 'Idempotency-Key': key },
    });
    expect(first.status).toBe(201);
    const changed = await record(mock, {
      method: 'POST',
      path: '/api/v1/cards',
      body: JSON.stringify({ customer_id: customer, amount_minor: 2000 }),
      headers: { 'Idempotency-Key': key },
    });
    expect(changed.codes).toEqual(['payload_mismatch']);
    expect(changed.diagnosis).toMatchObject({
      id: 'body_fields_differ',
      details: { fields: ['amount_minor'], first_request: { request_id: first.id } },
    });
    const reordered = await record(mock, {
      method: 'POST',
      path: '/api/v1/cards',
      body: JSON.stringify({ amount_minor: 1000, customer_id: customer }),
      headers: { 'Idempotency-Key': key },
    });
    expect(reordered.diagnosis).toMatchObject({
      id: 'same_fields_other_bytes',
      details: { first_request: { request_id: first.id } },
    });
  });
  it('422 payload_mismatch: the key reused for another operation (live mode)', async () => {
    await ctl(mock, 'POST', '/_mock/deposits', { network: mock.networks[0], asset_amount: '1000', status: 'credited' });
    const card = await activeCard(mock, { mode: 'live' });
    const another = await activeCard(mock, { mode: 'live' });
    const key = `idem-${randomUUID()}`;
    const body = JSON.stringify({ amount: 500 });
    await record(mock, {
      mode: 'live',
      method: 'POST',
      path: `/api/v1/cards/${card.id}/recharge`,
      body,
      headers: { 'Idempotency-Key': key },
    });
    const other = await record(mock, {
      mode: 'live',
      method: 'POST',
      path: `/api/v1/cards/${another.id}/recharge`,
      body,
      headers: { 'Idempotency-Key': key },
    });
    expect(other.diagnosis.id, JSON.stringify(other.diagnosis)).toBe('key_reused_for_other_operation');
  });
  it('409 in_flight: the request still running with the key', async () => {
    const m = await newMock({ seed: 184, providerLatencyMs: 1500 });
    const customer = (await approvedCustomer(m)).id;
    const key = `idem-${randomUUID()}`;
    const body = JSON.stringify({ customer_id: customer, amount_minor: 1000 });
    const running = signedCall({
      port: m.port,
      method: 'POST',
      path: '/api/v1/cards',
      body,
      headers: { 'Idempotency-Key': key },
      ...m.keys.test,
    });
    await new Promise((r) => setTimeout(r, 300));
    const second = await record(m, {
      method: 'POST',
      path: '/api/v1/cards',
      body,
      headers: { 'Idempotency-Key': key },
    });
    expect((await running).status).toBe(201);
    expect(second.codes).toEqual(['in_flight']);
    expect(second.diagnosis.id).toBe('key_still_running');
    const [firstRec] = await ctl(m, 'GET', '/_mock/requests?status=201&limit=1');
    expect(second.diagnosis.details.first_request.request_id).toBe(firstRec.id);
  });
});

describe('422 validation', () => {
  it('lists the fields and their messages', async () => {
    const r = await record(mock, {
      mode: 'live',
      method: 'POST',
      path: '/api/v1/customers',
      body: JSON.stringify({ first_name: 'Ada' }),
    });
    expect(r.diagnosis.id).toBe('validation');
    expect(Object.keys(r.diagnosis.details.fields)).toEqual(expect.arrayContaining(['last_name', 'email']));
    expect(r.diagnosis.message).toMatch(/last_name: /);
  });
});

describe('404', () => {
  it('an unknown route: the wrong method, the path without /api/v1, a typo', async () => {
    const wrong = await record(mock, { method: 'DELETE', path: '/api/v1/customers' });
    expect(wrong.diagnosis).toMatchObject({ id: 'route_wrong_method', details: { methods: ['POST', 'GET'] } });
    const bare = await rawRequest({ port: mock.port, method: 'GET', path: '/customers' });
    expect(bare.status).toBe(404);
    const [r] = await ctl(mock, 'GET', '/_mock/requests?limit=1');
    expect(r.diagnosis).toMatchObject({ id: 'route_without_prefix', details: { nearest: 'GET /api/v1/customers' } });
    const typo = await record(mock, { mode: 'live', method: 'GET', path: '/api/v1/custmers' });
    expect(typo.diagnosis).toMatchObject({ id: 'route_typo', details: { nearest: 'GET /api/v1/customers' } });
  });
  it('an unknown resource, and one that exists in the other mode', async () => {
    const card = await activeCard(mock, { mode: 'test' });
    const other = await record(mock, { mode: 'live', method: 'GET', path: `/api/v1/cards/${card.id}` });
    expect(other.diagnosis).toMatchObject({ id: 'resource_in_other_mode', details: { card: card.id, mode: 'test' } });
    const none = await record(mock, { method: 'GET', path: '/api/v1/cards/01JD2Q7N8V3K4M5P6R7S8T9V0W' });
    expect(none.diagnosis.id).toBe('resource_unknown');
  });
});

describe('403', () => {
  it("the scope needed and the key's scopes", async () => {
    const key = await newKey(mock, { mode: 'live', scopes: ['cards.read'] });
    const r = await record(mock, { key, method: 'GET', path: '/api/v1/customers' });
    expect(r.diagnosis).toMatchObject({
      id: 'scope_missing',
      details: { needed: 'customers.read', scopes: ['cards.read'] },
    });
  });
  it('the address and the allowlist', async () => {
    const key = await newKey(mock, { mode: 'test', ip_allowlist: ['203.0.113.0/24'] });
    const r = await record(mock, { key, method: 'GET', path: '/api/v1/customers' });
    expect(r.diagnosis).toMatchObject({ id: 'address_not_allowed', details: { allowlist: ['203.0.113.0/24'] } });
    expect(r.diagnosis.details.address).toMatch(/127\.0\.0\.1/);
  });
  it('a live-only route with a test key', async () => {
    const r = await record(mock, { method: 'GET', path: '/api/v1/deposits' });
    expect(r.diagnosis.id).toBe('live_only');
  });
});

describe('429', () => {
  it('the window, the count and the reset', async () => {
    const m = await newMock({ seed: 185, rateLimit: 2 });
    for (let i = 0; i < 2; i++) await record(m, { mode: 'live', method: 'GET', path: '/api/v1/customers' });
    const r = await record(m, { mode: 'live', method: 'GET', path: '/api/v1/customers' });
    expect(r.status).toBe(429);
    expect(r.diagnosis).toMatchObject({
      id: 'rate_limit_exceeded',
      details: { window_seconds: 60, count: 2, limit: 2 },
    });
    expect(r.diagnosis.details.reset_seconds).toBeGreaterThanOrEqual(1);
    expect(await byId(m, r.id)).toEqual(r);
  });
});

describe('an injected fault', () => {
  it('says the answer came from `mock faults add`, not from a mistake of the client', async () => {
    const m = await newMock({ seed: 186 });
    await ctl(m, 'POST', '/_mock/faults', { operation: 'customers.list', kind: '503', count: 1 });
    const r = await record(m, { mode: 'live', method: 'GET', path: '/api/v1/customers' });
    expect(r.status).toBe(503);
    expect(r.diagnosis).toMatchObject({ id: 'injected_fault', details: { fault: '503' } });
    const after = await record(m, { mode: 'live', method: 'GET', path: '/api/v1/customers' });
    expect(after).toMatchObject({ status: 200, diagnosis: null });
  });
});
