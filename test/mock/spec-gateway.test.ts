// Gateway rules (spec "Errors > Gateway", "Authentication", SIGNING.md "What the server checks"),
// each through a real signed HTTP request to a mock on port 0.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { signRequest } from '../../src/signing/index.js';
import {
  activeCard,
  advance,
  apiCall,
  control,
  ctl,
  customerInput,
  expectError,
  expectNotFound,
  expectOk,
  newKey,
  nowSeconds,
  rawRequest,
  signedHeaders,
  UNKNOWN_ULID,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 11, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

const CARDS_PATH = '/api/v1/cards/' + UNKNOWN_ULID;

describe('401 missing_signature_headers', () => {
  for (const header of ['X-Api-Key', 'X-Timestamp', 'X-Nonce', 'X-Signature']) {
    it(`when ${header} is absent`, async () => {
      const headers = signedHeaders(mock, { method: 'GET', path: CARDS_PATH });
      delete headers[header];
      const res = await rawRequest({ port: mock.port, method: 'GET', path: CARDS_PATH, headers });
      expectError(res, 401, 'gateway', 'missing_signature_headers');
    });
  }
  it('with no header at all, whatever the route', async () => {
    const res = await rawRequest({ port: mock.port, method: 'GET', path: '/api/v1/nothing-here' });
    expectError(res, 401, 'gateway', 'missing_signature_headers');
  });
});

describe('401 timestamp_out_of_window', () => {
  // The window is checked on the mock's real clock, here a fixed one (startMock's `now`): the
  // boundary is exact, never raced by a second that turns between signing and checking.
  const NOW_S = 1_763_800_000;
  let fixed: MockHandle;
  beforeAll(async () => {
    fixed = (await startMock({
      port: 0,
      seed: 12,
      providerLatencyMs: 0,
      now: () => NOW_S * 1000 + 999,
    })) as unknown as MockHandle;
  });
  afterAll(async () => fixed?.close());

  for (const [label, ts] of [
    ['301 s in the past', () => NOW_S - 301],
    ['301 s in the future', () => NOW_S + 301],
    ['in milliseconds', () => NOW_S * 1000],
    ['not decimal digits', () => 'abc'],
    ['negative', () => `-${NOW_S}`],
    ['with a fraction', () => `${NOW_S}.5`],
    ['11 digits', () => `0${NOW_S}`],
  ] as const) {
    it(`when X-Timestamp is ${label}`, async () => {
      const res = await apiCall(fixed, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, timestamp: ts() });
      expectError(res, 401, 'gateway', 'timestamp_out_of_window');
    });
  }
  it('accepts a timestamp 300 s off either way, the edge of the window (not 401)', async () => {
    for (const ts of [NOW_S - 300, NOW_S + 300]) {
      const res = await apiCall(fixed, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, timestamp: ts });
      expectNotFound(res);
    }
  });
  it('uses the real clock: a simulated clock moved forward does not shift the window', async () => {
    await advance(mock, 3600);
    const res = await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}` });
    expectNotFound(res);
  });
});

describe('401 invalid_api_key', () => {
  it('for an unknown key id', async () => {
    const res = await apiCall(mock, {
      method: 'GET',
      path: `/cards/${UNKNOWN_ULID}`,
      key: { keyId: UNKNOWN_ULID, secret: mock.keys.test.secret },
    });
    expectError(res, 401, 'gateway', 'invalid_api_key');
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });
  it('for a revoked key, at once', async () => {
    const key = await newKey(mock, { mode: 'test' });
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key }));
    expect(await ctl(mock, 'POST', `/keys/${key.keyId}/revoke`)).toMatchObject({ key_id: key.keyId, revoked: true });
    expectError(
      await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key }),
      401,
      'gateway',
      'invalid_api_key',
    );
  });
  it('for an expired key (POST /_mock/keys expires_in_seconds, on the simulated clock)', async () => {
    const created = await ctl(mock, 'POST', '/keys', { mode: 'test', expires_in_seconds: 600 });
    const clock = await ctl(mock, 'GET', '/clock');
    expect(Date.parse(created.expires_at) - Date.parse(clock.now)).toBeGreaterThanOrEqual(599_000);
    const key = { keyId: created.key_id, secret: created.secret };
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key }));
    await advance(mock, 601);
    const expired = await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key });
    expectError(expired, 401, 'gateway', 'invalid_api_key');
    expect(expired.headers['x-ratelimit-limit']).toBeUndefined();
    // a key without expiry has expires_at null; a bad value is a 422 naming the field
    expect((await ctl(mock, 'POST', '/keys', { mode: 'test' })).expires_at).toBeNull();
    for (const bad of [0, -5, 1.5, '60']) {
      const res = await control(mock, 'POST', '/keys', { mode: 'test', expires_in_seconds: bad });
      expectError(res, 422, 'expires_in_seconds');
    }
  });
  it('is checked before the signature (a wrong secret on an unknown key still says invalid_api_key)', async () => {
    const res = await apiCall(mock, {
      method: 'GET',
      path: '/customers',
      key: { keyId: UNKNOWN_ULID, secret: 'wrong' },
    });
    expectError(res, 401, 'gateway', 'invalid_api_key');
  });
});

describe('401 invalid_signature', () => {
  it('for a signature made with the wrong secret', async () => {
    const res = await apiCall(mock, {
      method: 'GET',
      path: '/customers',
      key: { keyId: mock.keys.test.keyId, secret: mock.keys.live.secret },
    });
    expectError(res, 401, 'gateway', 'invalid_signature');
  });
  it('for a body changed after signing', async () => {
    const headers = signedHeaders(mock, { method: 'POST', path: '/customers', body: customerInput() });
    const res = await rawRequest({
      port: mock.port,
      method: 'POST',
      path: '/api/v1/customers',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(customerInput()),
    });
    expectError(res, 401, 'gateway', 'invalid_signature');
  });
  it('for a query changed after signing', async () => {
    const headers = signedHeaders(mock, { method: 'GET', path: '/customers', query: 'per_page=5' });
    const res = await rawRequest({ port: mock.port, method: 'GET', path: '/api/v1/customers?per_page=6', headers });
    expectError(res, 401, 'gateway', 'invalid_signature');
  });
  it('for a path signed without the /api/v1 prefix', async () => {
    const headers = signRequest({
      method: 'GET',
      path: '/customers',
      keyId: mock.keys.test.keyId,
      secret: mock.keys.test.secret,
      timestamp: nowSeconds(),
      nonce: randomUUID(),
    }).headers;
    const res = await rawRequest({ port: mock.port, method: 'GET', path: '/api/v1/customers', headers });
    expectError(res, 401, 'gateway', 'invalid_signature');
  });
  it('for a query that does not percent-decode to UTF-8 (never a 500)', async () => {
    // signed for a decodable query; the one sent cannot be canonicalized at all
    const headers = signedHeaders(mock, { method: 'GET', path: '/customers', query: 'x=1' });
    const res = await rawRequest({ port: mock.port, method: 'GET', path: '/api/v1/customers?x=%FF', headers });
    expectError(res, 401, 'gateway', 'invalid_signature');
  });
  it('accepts a query sent in another valid encoding of the same parameters', async () => {
    // signed from `q=john smith&a=1`; sent as `a=1&q=john%20smith`
    const headers = signedHeaders(mock, { method: 'GET', path: '/customers', query: 'q=john+smith&a=1' });
    const res = await rawRequest({
      port: mock.port,
      method: 'GET',
      path: '/api/v1/customers?a=1&q=john%20smith',
      headers,
    });
    expectOk(res);
  });
  it('accepts the previous secret for 24 h after a roll, then only the new one', async () => {
    const key = await newKey(mock, { mode: 'test' });
    const rolled = await ctl(mock, 'POST', `/keys/${key.keyId}/roll`);
    expect(rolled.key_id).toBe(key.keyId);
    expect(rolled.secret).not.toBe(key.secret);
    const fresh = { keyId: key.keyId, secret: rolled.secret as string };
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', key }));
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', key: fresh }));
    await advance(mock, 24 * 3600 + 60);
    expectError(await apiCall(mock, { method: 'GET', path: '/customers', key }), 401, 'gateway', 'invalid_signature');
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', key: fresh }));
  });
  it('rotate gives a new key with the same scopes; the old key works until revoked', async () => {
    const key = await newKey(mock, { mode: 'test', scopes: ['cards.read'] });
    const rotated = await ctl(mock, 'POST', `/keys/${key.keyId}/rotate`);
    expect(rotated.key_id).not.toBe(key.keyId);
    const fresh = { keyId: rotated.key_id as string, secret: rotated.secret as string };
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key: fresh }));
    expectError(await apiCall(mock, { method: 'GET', path: '/customers', key: fresh }), 403, 'gateway', 'out_of_scope');
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key }));
    await ctl(mock, 'POST', `/keys/${key.keyId}/revoke`);
    expectError(
      await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key }),
      401,
      'gateway',
      'invalid_api_key',
    );
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key: fresh }));
  });
});

describe('409 replay_detected', () => {
  it('for a nonce reused by the same key', async () => {
    const nonce = randomUUID();
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', nonce }));
    const again = await apiCall(mock, { method: 'GET', path: '/customers', nonce });
    expectError(again, 409, 'gateway', 'replay_detected');
  });
  it('a request with a bad signature does not burn the nonce', async () => {
    const nonce = randomUUID();
    const bad = await apiCall(mock, {
      method: 'GET',
      path: '/customers',
      nonce,
      key: { keyId: mock.keys.test.keyId, secret: 'not-the-secret' },
    });
    expectError(bad, 401, 'gateway', 'invalid_signature');
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', nonce }));
  });
  it('a nonce is per key: another key may use the same nonce', async () => {
    const nonce = randomUUID();
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', nonce, mode: 'test' }));
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', nonce, mode: 'live' }));
  });
  it('moving the simulated clock 601 s does not forget a nonce: the captured request is still refused inside its real window', async () => {
    const nonce = randomUUID();
    const ts = nowSeconds();
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', nonce, timestamp: ts }));
    await advance(mock, 601);
    expectError(
      await apiCall(mock, { method: 'GET', path: '/customers', nonce, timestamp: ts }),
      409,
      'gateway',
      'replay_detected',
    );
  });
  it('a captured recharge replayed after the simulated clock passed 24 h is refused and charges nothing', async () => {
    const card = await activeCard(mock);
    const nonce = randomUUID();
    const ts = nowSeconds();
    const capture = {
      method: 'POST',
      path: `/cards/${card.id}/recharge`,
      body: { amount: 500 },
      nonce,
      timestamp: ts,
      idempotencyKey: 'k-' + randomUUID(),
    };
    expectOk(await apiCall(mock, capture));
    const after = expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` }));
    // the API has forgotten the idempotency key (24 h) and, on the simulated clock, the nonce
    await advance(mock, 24 * 3600 + 601);
    expectError(await apiCall(mock, capture), 409, 'gateway', 'replay_detected');
    const again = expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` }));
    expect(again.balance_minor).toBe(after.balance_minor);
  });
  it('a nonce is forgotten once 600 s passed on both clocks (real and simulated)', async () => {
    let real = Date.now();
    const timed = (await startMock({
      port: 0,
      seed: 13,
      providerLatencyMs: 0,
      now: () => real,
    })) as unknown as MockHandle;
    try {
      const nonce = randomUUID();
      expectOk(await apiCall(timed, { method: 'GET', path: '/customers', nonce, timestamp: Math.floor(real / 1000) }));
      real += 601_000; // the real clock alone: the simulated one has not moved 600 s
      const sent = () =>
        apiCall(timed, { method: 'GET', path: '/customers', nonce, timestamp: Math.floor(real / 1000) });
      expectError(await sent(), 409, 'gateway', 'replay_detected');
      await advance(timed, 601);
      expectOk(await sent());
    } finally {
      await timed.close();
    }
  });
});

describe('403 ip_not_allowed', () => {
  it('when the source is not on the allowlist', async () => {
    const key = await newKey(mock, { mode: 'test', ip_allowlist: ['10.0.0.0/8', '2001:db8::/32'] });
    expectError(await apiCall(mock, { method: 'GET', path: '/customers', key }), 403, 'gateway', 'ip_not_allowed');
  });
  it('passes for an address or a CIDR range that holds the source', async () => {
    for (const list of [['127.0.0.1'], ['127.0.0.0/8'], ['10.1.2.3', '127.0.0.1/32']]) {
      const key = await newKey(mock, { mode: 'test', ip_allowlist: list });
      expectOk(await apiCall(mock, { method: 'GET', path: '/customers', key }));
    }
  });
  it('only after a valid signature: a wrong secret says invalid_signature', async () => {
    const key = await newKey(mock, { mode: 'test', ip_allowlist: ['10.0.0.0/8'] });
    expectError(
      await apiCall(mock, { method: 'GET', path: '/customers', key: { keyId: key.keyId, secret: 'x' } }),
      401,
      'gateway',
      'invalid_signature',
    );
  });
  it('an IPv4-mapped IPv6 source matches its IPv4 form (dual-stack listener)', async () => {
    const dual = (await startMock({ host: '::', port: 0, seed: 12, providerLatencyMs: 0 })) as unknown as MockHandle;
    try {
      const via4 = {
        ...dual,
        baseUrl: `http://127.0.0.1:${dual.port}/api/v1`,
        controlUrl: `http://127.0.0.1:${dual.port}/_mock`,
      };
      const allowed = await newKey(via4, { mode: 'test', ip_allowlist: ['127.0.0.1'] });
      expectOk(await apiCall(via4, { method: 'GET', path: '/customers', key: allowed }));
      const denied = await newKey(via4, { mode: 'test', ip_allowlist: ['127.0.0.2'] });
      expectError(
        await apiCall(via4, { method: 'GET', path: '/customers', key: denied }),
        403,
        'gateway',
        'ip_not_allowed',
      );
    } finally {
      await dual.close();
    }
  });
});

describe('403 out_of_scope, per route', () => {
  const routes: Array<[string, string, string, object?]> = [
    ['cards.write', 'POST', '/cards', { customer_id: UNKNOWN_ULID, amount_minor: 100 }],
    ['cards.read', 'GET', `/cards/${UNKNOWN_ULID}`],
    ['cards.write', 'POST', `/cards/${UNKNOWN_ULID}/recharge`, { amount: 1 }],
    ['cards.write', 'POST', `/cards/${UNKNOWN_ULID}/freeze`],
    ['cards.write', 'POST', `/cards/${UNKNOWN_ULID}/unfreeze`],
    ['cards.write', 'POST', `/cards/${UNKNOWN_ULID}/terminate`, {}],
    ['cards.read', 'GET', `/cards/${UNKNOWN_ULID}/transactions`],
    ['customers.write', 'POST', '/customers', {}],
    ['customers.read', 'GET', '/customers'],
    ['customers.read', 'GET', `/customers/${UNKNOWN_ULID}`],
    ['customers.write', 'PATCH', `/customers/${UNKNOWN_ULID}`, {}],
    ['customers.write', 'POST', `/customers/${UNKNOWN_ULID}/kyc`],
    ['deposits.write', 'POST', '/deposit-addresses', { network: 'nope' }],
    ['deposits.read', 'GET', '/deposit-addresses'],
    ['deposits.read', 'GET', '/deposits'],
  ];
  const all = ['customers.read', 'customers.write', 'cards.read', 'cards.write', 'deposits.read', 'deposits.write'];
  for (const [scope, method, path, body] of routes) {
    it(`${method} ${path.replace(UNKNOWN_ULID, '{id}')} needs ${scope}`, async () => {
      const others = await newKey(mock, { mode: 'live', scopes: all.filter((s) => s !== scope) });
      const res = await apiCall(mock, { method, path, body, key: others, idempotencyKey: 'k-' + randomUUID() });
      expectError(res, 403, 'gateway', 'out_of_scope');
      const only = await newKey(mock, { mode: 'live', scopes: [scope] });
      const ok = await apiCall(mock, { method, path, body, key: only, idempotencyKey: 'k-' + randomUUID() });
      expect(ok.status, ok.raw.toString()).not.toBe(403);
      expect(ok.status).not.toBe(401);
    });
  }
  it('a key without scopes has all', async () => {
    const key = await newKey(mock, { mode: 'test' });
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', key }));
    expectOk(await apiCall(mock, { method: 'POST', path: '/customers', key, body: customerInput() }), 202);
  });
  it('a replayed nonce is reported before the scope (order 5 before 8)', async () => {
    const key = await newKey(mock, { mode: 'test', scopes: ['cards.read'] });
    const nonce = randomUUID();
    expectError(await apiCall(mock, { method: 'GET', path: '/customers', key, nonce }), 403, 'gateway', 'out_of_scope');
    expectError(
      await apiCall(mock, { method: 'GET', path: '/customers', key, nonce }),
      409,
      'gateway',
      'replay_detected',
    );
  });
});

describe('the order of the gateway checks (SIGNING.md 1 to 8)', () => {
  it('1 before 2: a missing header wins over a stale timestamp', async () => {
    const headers = signedHeaders(mock, { method: 'GET', path: CARDS_PATH, timestamp: nowSeconds() - 9999 });
    delete headers['X-Nonce'];
    expectError(
      await rawRequest({ port: mock.port, method: 'GET', path: CARDS_PATH, headers }),
      401,
      'gateway',
      'missing_signature_headers',
    );
  });
  it('2 before 3: a stale timestamp wins over an unknown key', async () => {
    const res = await apiCall(mock, {
      method: 'GET',
      path: '/customers',
      timestamp: nowSeconds() - 9999,
      key: { keyId: UNKNOWN_ULID, secret: 'x' },
    });
    expectError(res, 401, 'gateway', 'timestamp_out_of_window');
  });
  it('4 before 5: a reused nonce with a bad signature says invalid_signature', async () => {
    const nonce = randomUUID();
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', nonce }));
    const res = await apiCall(mock, {
      method: 'GET',
      path: '/customers',
      nonce,
      key: { keyId: mock.keys.test.keyId, secret: 'x' },
    });
    expectError(res, 401, 'gateway', 'invalid_signature');
  });
  it('5: a nonce is single-use across different requests of the key', async () => {
    const nonce = randomUUID();
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers', nonce }));
    expectError(
      await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, nonce }),
      409,
      'gateway',
      'replay_detected',
    );
  });
  it('7 before 8: a key off its allowlist and without the scope says ip_not_allowed', async () => {
    const key = await newKey(mock, { mode: 'test', scopes: ['deposits.read'], ip_allowlist: ['192.0.2.0/24'] });
    expectError(await apiCall(mock, { method: 'GET', path: '/customers', key }), 403, 'gateway', 'ip_not_allowed');
  });
  it('gateway before validation: an unsigned invalid body says missing_signature_headers', async () => {
    const res = await rawRequest({
      port: mock.port,
      method: 'POST',
      path: '/api/v1/customers',
      headers: { 'Content-Type': 'application/json' },
      body: '{',
    });
    expectError(res, 401, 'gateway', 'missing_signature_headers');
  });
});

describe('404 for routes', () => {
  it('an unmatched route answers 404 with errors {}', async () => {
    expectNotFound(await apiCall(mock, { method: 'GET', path: '/wallets' }));
  });
  it('a method the path does not support answers 404', async () => {
    expectNotFound(await apiCall(mock, { method: 'DELETE', path: `/cards/${UNKNOWN_ULID}` }));
  });
  it('an id that is not a ULID answers 404', async () => {
    expectNotFound(await apiCall(mock, { method: 'GET', path: '/cards/not-a-ulid' }));
  });
  it('a trailing slash on the path is tolerated (signature and route)', async () => {
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers/' }));
  });
});

describe('429 rate_limit exceeded and the X-RateLimit headers', () => {
  let limited: MockHandle;
  beforeAll(async () => {
    limited = (await startMock({ port: 0, seed: 13, rateLimit: 5, providerLatencyMs: 0 })) as unknown as MockHandle;
  });
  afterAll(async () => limited?.close());

  it('counts only requests that passed the signature, sends the headers on every answer to a known key, 429 with Retry-After', async () => {
    const key = await newKey(limited, { mode: 'test' });
    // Failed signatures do not count, but still carry the headers (known key).
    for (let i = 0; i < 3; i++) {
      const bad = await apiCall(limited, {
        method: 'GET',
        path: '/customers',
        key: { keyId: key.keyId, secret: 'wrong' },
      });
      expectError(bad, 401, 'gateway', 'invalid_signature');
      expect(bad.headers['x-ratelimit-limit']).toBe('5');
      expect(bad.headers['x-ratelimit-remaining']).toBeDefined();
    }
    const remaining: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await apiCall(limited, { method: 'GET', path: i % 2 ? '/customers' : `/cards/${UNKNOWN_ULID}`, key });
      expect([200, 404]).toContain(res.status);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      remaining.push(Number(res.headers['x-ratelimit-remaining']));
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0]);
    const over = await apiCall(limited, { method: 'GET', path: '/customers', key });
    expectError(over, 429, 'rate_limit', 'exceeded');
    expect(over.headers['x-ratelimit-limit']).toBe('5');
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    const retry = Number(over.headers['retry-after']);
    expect(Number.isInteger(retry)).toBe(true);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  });
  it('counts per key: another key is not limited', async () => {
    const a = await newKey(limited, { mode: 'test' });
    const b = await newKey(limited, { mode: 'test' });
    for (let i = 0; i < 5; i++) expectOk(await apiCall(limited, { method: 'GET', path: '/customers', key: a }));
    expectError(await apiCall(limited, { method: 'GET', path: '/customers', key: a }), 429, 'rate_limit', 'exceeded');
    const other = await apiCall(limited, { method: 'GET', path: '/customers', key: b });
    expectOk(other);
    expect(other.headers['x-ratelimit-remaining']).toBe('4');
  });
  it('headers are on 403 and 409 gateway answers to a known key too', async () => {
    const key = await newKey(limited, { mode: 'test', scopes: ['cards.read'] });
    const forbidden = await apiCall(limited, { method: 'GET', path: '/customers', key });
    expectError(forbidden, 403, 'gateway', 'out_of_scope');
    expect(forbidden.headers['x-ratelimit-limit']).toBe('5');
    const nonce = randomUUID();
    await apiCall(limited, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key, nonce });
    const replay = await apiCall(limited, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key, nonce });
    expectError(replay, 409, 'gateway', 'replay_detected');
    expect(replay.headers['x-ratelimit-limit']).toBe('5');
    expect(replay.headers['x-ratelimit-remaining']).toBeDefined();
  });
  it('headers on 401 missing_signature_headers, 401 timestamp_out_of_window and 413 to a known key, read-only (none counts)', async () => {
    const key = await newKey(limited, { mode: 'test' });
    const missing = signedHeaders(limited, { method: 'GET', path: '/customers', key });
    delete missing['X-Nonce'];
    const noNonce = await rawRequest({
      port: limited.port,
      method: 'GET',
      path: '/api/v1/customers',
      headers: missing,
    });
    expectError(noNonce, 401, 'gateway', 'missing_signature_headers');
    expect(noNonce.headers['x-ratelimit-limit']).toBe('5');
    expect(noNonce.headers['x-ratelimit-remaining']).toBe('5');
    const stale = await apiCall(limited, { method: 'GET', path: '/customers', key, timestamp: nowSeconds() - 301 });
    expectError(stale, 401, 'gateway', 'timestamp_out_of_window');
    expect(stale.headers['x-ratelimit-limit']).toBe('5');
    expect(stale.headers['x-ratelimit-remaining']).toBe('5');
    const big = Buffer.alloc(6 * 1024 * 1024 + 1, 0x20);
    const tooLarge = await rawRequest({
      port: limited.port,
      method: 'POST',
      path: '/api/v1/customers',
      headers: {
        ...signedHeaders(limited, { method: 'POST', path: '/customers', key, body: big }),
        'Content-Type': 'application/json',
      },
      body: big,
    });
    expectError(tooLarge, 413, 'body', 'too_large');
    expect(tooLarge.headers['x-ratelimit-limit']).toBe('5');
    expect(tooLarge.headers['x-ratelimit-remaining']).toBe('5');
    // nothing above was counted: the first request that passes 1 to 5 leaves 4
    const counted = await apiCall(limited, { method: 'GET', path: '/customers', key });
    expect(counted.headers['x-ratelimit-remaining']).toBe('4');
    // an unknown or revoked key is not known: no headers
    const unknown = signedHeaders(limited, {
      method: 'GET',
      path: '/customers',
      key: { keyId: UNKNOWN_ULID, secret: key.secret },
    });
    delete unknown['X-Nonce'];
    const stranger = await rawRequest({
      port: limited.port,
      method: 'GET',
      path: '/api/v1/customers',
      headers: unknown,
    });
    expectError(stranger, 401, 'gateway', 'missing_signature_headers');
    expect(stranger.headers['x-ratelimit-limit']).toBeUndefined();
  });
  it('6 before 7: an over-limit key off its allowlist gets 429, not 403', async () => {
    const key = await newKey(limited, { mode: 'test', ip_allowlist: ['192.0.2.1'] });
    for (let i = 0; i < 5; i++)
      expectError(await apiCall(limited, { method: 'GET', path: '/customers', key }), 403, 'gateway', 'ip_not_allowed');
    expectError(await apiCall(limited, { method: 'GET', path: '/customers', key }), 429, 'rate_limit', 'exceeded');
  });
  it('headers are present on error answers of the operation (404, 422) too', async () => {
    const key = await newKey(limited, { mode: 'test' });
    const nf = await apiCall(limited, { method: 'GET', path: `/cards/${UNKNOWN_ULID}`, key });
    expectNotFound(nf);
    expect(nf.headers['x-ratelimit-limit']).toBe('5');
    const val = await apiCall(limited, { method: 'POST', path: '/customers', body: {}, key });
    expect(val.status).toBe(422);
    expect(val.headers['x-ratelimit-remaining']).toBe('3');
  });
});

describe('signing vectors through the gateway', () => {
  interface Vector {
    name: string;
    method: string;
    path: string;
    query: string;
    key_id: string;
    timestamp: string;
    nonce: string;
    secret: string;
    body_base64: string;
    signature: string;
  }
  const vectors: Vector[] = JSON.parse(
    readFileSync(new URL('../fixtures/vectors/signing.json', import.meta.url), 'utf8'),
  );
  let vm: MockHandle;
  beforeAll(async () => {
    const keys = new Map<string, string>();
    for (const v of vectors) keys.set(v.key_id, v.secret);
    const ts = Number(vectors[0]!.timestamp);
    expect(vectors.every((v) => Number(v.timestamp) === ts)).toBe(true);
    vm = (await startMock({
      port: 0,
      seed: 14,
      providerLatencyMs: 0,
      now: () => ts * 1000,
      keys: [...keys].map(([keyId, secret]) => ({ keyId, secret, mode: 'test' as const })),
    })) as unknown as MockHandle;
  });
  afterAll(async () => vm?.close());

  const send = (v: Vector, change: Partial<Vector> = {}) => {
    const x = { ...v, ...change };
    const body = x.body_base64 ? Buffer.from(x.body_base64, 'base64') : undefined;
    const headers: Record<string, string> = {
      'X-Api-Key': x.key_id,
      'X-Timestamp': x.timestamp,
      'X-Nonce': x.nonce,
      'X-Signature': x.signature,
    };
    if (body) headers['Content-Type'] = 'application/json';
    // node:http uppercases the method on the wire; the canonical METHOD is uppercased anyway.
    return rawRequest({
      port: vm.port,
      method: x.method.toUpperCase(),
      path: x.query ? `${x.path}?${x.query}` : x.path,
      headers,
      body,
    });
  };

  it('every vector verifies (anything but 401; 409 replay_detected once the shared nonce is remembered)', async () => {
    let first = true;
    for (const v of vectors) {
      const res = await send(v);
      const ctx = `${v.name}: ${res.status} ${res.raw.toString('utf8').slice(0, 200)}`;
      expect(res.status, ctx).not.toBe(401);
      expect(res.body?.success, ctx).toBeTypeOf('boolean');
      if (first) expect(res.status, ctx).not.toBe(409);
      else expect(res.body?.errors?.gateway ?? ['replay_detected'], ctx).toContain('replay_detected');
      first = false;
    }
  });
  for (const v of vectors) {
    it(`tampered ${v.name} answers 401 invalid_signature`, async () => {
      const flip = (s: string) => s.slice(0, -2) + (s.at(-2) === 'A' ? 'B' : 'A') + s.slice(-1);
      expectError(await send(v, { signature: flip(v.signature) }), 401, 'gateway', 'invalid_signature');
      expectError(
        await send(v, { nonce: v.nonce.replace(/.$/, (c) => (c === '0' ? '1' : '0')) }),
        401,
        'gateway',
        'invalid_signature',
      );
    });
  }
});
