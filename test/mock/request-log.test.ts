// The mock's request log (issue 18 item 1): records, bounds, filters and paging of
// GET /_mock/requests, GET /_mock/requests/{id}, over real HTTP against the mock on port 0,
// requests signed by the test's own signer.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { control, ctl, rawRequest, type MockHandle } from '../helpers/api.js';
import { nowS, sha256hex, signedCall } from '../helpers/independent-signer.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 18, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

const get = (path: string, query = '', key = mock.keys.test) =>
  signedCall({ port: mock.port, method: 'GET', path, query, keyId: key.keyId, secret: key.secret });
const newest = async (query = 'limit=1'): Promise<any[]> => ctl(mock, 'GET', `/_mock/requests?${query}`);

describe('a record', () => {
  it('holds what the issue lists, and never a header it does not name', async () => {
    const res = await signedCall({
      port: mock.port,
      method: 'GET',
      path: '/api/v1/customers',
      query: 'per_page=2',
      keyId: mock.keys.test.keyId,
      secret: mock.keys.test.secret,
      nonce: 'nonce-record-1',
    });
    expect(res.status).toBe(200);
    const [r] = await newest();
    expect(r).toMatchObject({
      plane: 'api',
      method: 'GET',
      path: '/api/v1/customers',
      query: 'per_page=2',
      status: 200,
      outcome: 'answered',
      codes: [],
      key_id: mock.keys.test.keyId,
      mode: 'test',
      nonce: 'nonce-record-1',
      idempotency_key: null,
      source_address: expect.stringMatching(/127\.0\.0\.1/),
      body: { bytes: 0, sha256: sha256hex(''), text: null, truncated: false },
      diagnosis: null,
    });
    expect(r.id).toMatch(/^req_\d+$/);
    expect(Date.parse(r.received_at)).not.toBeNaN();
    expect(Date.parse(r.simulated_at)).not.toBeNaN();
    expect(typeof r.duration_ms).toBe('number');
    expect(JSON.stringify(r)).not.toContain('X-Signature');
  });

  it('keeps a body up to 16 KiB, with its size and SHA-256', async () => {
    const big = JSON.stringify({ first_name: 'x'.repeat(20_000) });
    await signedCall({
      port: mock.port,
      method: 'POST',
      path: '/api/v1/customers',
      body: big,
      keyId: mock.keys.test.keyId,
      secret: mock.keys.test.secret,
    });
    const [r] = await newest();
    expect(r.body).toMatchObject({ bytes: Buffer.byteLength(big), sha256: sha256hex(big), truncated: true });
    expect(Buffer.byteLength(r.body.text)).toBe(16 * 1024);
    expect(r.status).toBe(422);
    expect(r.diagnosis.id).toBe('validation');
  });

  it('tells the control plane apart, and does not log its own reads', async () => {
    await ctl(mock, 'GET', '/_mock/clock');
    await newest('limit=5');
    const [r] = await newest();
    expect(r).toMatchObject({ plane: 'control', method: 'GET', path: '/_mock/clock', status: 200, key_id: null });
  });

  it('is found by id; an unknown id is a 404 that says what ids look like', async () => {
    const [r] = await newest();
    expect(await ctl(mock, 'GET', `/_mock/requests/${r.id}`)).toEqual(r);
    const missing = await control(mock, 'GET', '/_mock/requests/req_999999');
    expect(missing.status).toBe(404);
    expect(JSON.stringify(missing.body.errors)).toMatch(/req_1/);
  });
});

describe('filters and pages', () => {
  it('narrows by status class and code, path prefix, key, since; newest first', async () => {
    const live = mock.keys.live;
    await get('/api/v1/customers', '', live);
    const before = (await newest())[0].received_at;
    await rawRequest({ port: mock.port, method: 'GET', path: '/api/v1/cards' }); // 401 missing headers
    await get('/api/v1/cards/01JD2Q7N8V3K4M5P6R7S8T9V0W'); // 404
    const failed = await newest(`failed=true&since=${encodeURIComponent(before)}&limit=10`);
    expect(failed.map((r) => r.status)).toEqual([404, 401]);
    expect((await newest('status=4xx&limit=1'))[0].status).toBe(404);
    expect((await newest('status=401&limit=1'))[0].codes).toEqual(['missing_signature_headers']);
    expect((await newest('code=missing_signature_headers&limit=1'))[0].path).toBe('/api/v1/cards');
    expect((await newest(`key=${live.keyId}&limit=1`))[0]).toMatchObject({ key_id: live.keyId, mode: 'live' });
    expect((await newest('path=/api/v1/cards/&limit=1'))[0].status).toBe(404);
    const soon = await newest(`since=${Number(nowS()) + 3600}`);
    expect(soon).toEqual([]);
  });

  it('pages with limit and cursor, without gaps or repeats', async () => {
    for (let i = 0; i < 5; i++) await get('/api/v1/customers', `page_probe=${i}`);
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 3; i++) {
      const res = await control(
        mock,
        'GET',
        `/_mock/requests?path=/api/v1/customers&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...res.body.data.filter((r: any) => r.query.startsWith('page_probe')).map((r: any) => r.query));
      cursor = res.body.meta.next_cursor;
    }
    expect(seen).toEqual(['page_probe=4', 'page_probe=3', 'page_probe=2', 'page_probe=1', 'page_probe=0']);
  });

  it('refuses a wrong filter with a 422 naming it', async () => {
    const res = await control(mock, 'GET', '/_mock/requests?status=9xx&limit=0&since=yesterday');
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors).sort()).toEqual(['limit', 'since', 'status']);
  });

  it('refuses a since that is no ISO 8601 time that exists (Nov 26 read as 2001, 2026-02-30 as March 2) with a 422', async () => {
    for (const value of ['Nov 26', '2026-02-30', 'foo 1', '2026-11-26T25:00:00Z']) {
      const res = await control(mock, 'GET', `/_mock/requests?since=${encodeURIComponent(value)}`);
      expect(res.status, value).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['since']);
    }
    for (const value of ['2026-11-26', '2026-11-26T01:00:00Z', '2026-11-26T01:00:00.5+05:30', '1795000000']) {
      expect((await control(mock, 'GET', `/_mock/requests?since=${encodeURIComponent(value)}`)).status, value).toBe(
        200,
      );
    }
  });

  it('refuses an unknown parameter (a typo must not answer every request unfiltered) with a 422 naming it', async () => {
    for (const query of ['stauts=401', 'status[]=401', 'limit=1&foo=bar']) {
      const res = await control(mock, 'GET', `/_mock/requests?${query}`);
      expect(res.status, query).toBe(422);
      const name = query.split('&').at(-1)!.split('=')[0]!;
      expect(res.body.errors[name][0]).toContain(
        `There is no parameter "${name}": the parameters are status, failed, code,`,
      );
    }
  });
});

describe('bounds', () => {
  it('keeps only the last N requests', async () => {
    const small = (await startMock({ port: 0, seed: 1, requestLog: 3 })) as unknown as MockHandle;
    try {
      for (let i = 0; i < 5; i++)
        await signedCall({
          port: small.port,
          method: 'GET',
          path: '/api/v1/customers',
          query: `n=${i}`,
          keyId: small.keys.test.keyId,
          secret: small.keys.test.secret,
        });
      const res = await control(small, 'GET', '/_mock/requests?limit=100');
      expect(res.body.data.map((r: any) => r.query)).toEqual(['n=4', 'n=3', 'n=2']);
      expect(res.body.meta).toMatchObject({ capacity: 3, has_more: false });
      expect((await control(small, 'GET', '/_mock/requests/req_1')).status).toBe(404);
    } finally {
      await small.close();
    }
  });

  it('tells a reader following with `after` what the log dropped before it read it (meta.dropped)', async () => {
    const small = (await startMock({ port: 0, seed: 1, requestLog: 3 })) as unknown as MockHandle;
    try {
      for (let i = 0; i < 8; i++) await rawRequest({ port: small.port, method: 'GET', path: '/api/v1/cards' });
      const behind = await control(small, 'GET', '/_mock/requests?after=req_2&order=oldest');
      expect(behind.body.data.map((r: any) => r.id)).toEqual(['req_6', 'req_7', 'req_8']);
      expect(behind.body.meta.dropped).toEqual({ count: 3, first: 'req_3', last: 'req_5' });
      const upToDate = await control(small, 'GET', '/_mock/requests?after=req_5&order=oldest');
      expect(upToDate.body.meta.dropped).toBeNull();
      expect((await control(small, 'GET', '/_mock/requests?limit=1')).body.meta).not.toHaveProperty('dropped'); // only with after
    } finally {
      await small.close();
    }
  });

  it('names the requests newer than `after` still being answered (meta.pending), until they are', async () => {
    const m = (await startMock({ port: 0, seed: 2 })) as unknown as MockHandle;
    const slow = net.connect(m.port, '127.0.0.1');
    try {
      await rawRequest({ port: m.port, method: 'GET', path: '/api/v1/cards' }); // req_1
      slow.write('POST /api/v1/cards HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n\r\n{');
      const read = async () => (await control(m, 'GET', '/_mock/requests?after=req_1&order=oldest')).body;
      let body = await read();
      for (let n = 0; n < 100 && body.meta.pending.length === 0; n++)
        await new Promise((r) => setTimeout(r, 20)), (body = await read());
      expect(body.meta.pending).toEqual(['req_2']);
      expect(body.data).toEqual([]);
      await rawRequest({ port: m.port, method: 'GET', path: '/api/v1/customers' }); // req_3, answered first
      expect((await read()).data.map((r: any) => r.id)).toEqual(['req_3']);
      const answered = new Promise<void>((resolve) => slow.on('data', () => resolve()));
      slow.end('}\r\n');
      await answered;
      body = await read();
      expect(body.meta.pending).toEqual([]);
      expect(body.data.map((r: any) => r.id)).toEqual(['req_2', 'req_3']);
      expect((await control(m, 'GET', '/_mock/requests?after=req_3&order=oldest')).body.meta.pending).toEqual([]);
    } finally {
      slow.destroy();
      await m.close();
    }
  });

  it('is off with requestLog 0: the calls say how to turn it on', async () => {
    const off = (await startMock({ port: 0, seed: 1, requestLog: 0 })) as unknown as MockHandle;
    try {
      await signedCall({
        port: off.port,
        method: 'GET',
        path: '/api/v1/customers',
        keyId: off.keys.test.keyId,
        secret: off.keys.test.secret,
      });
      const res = await control(off, 'GET', '/_mock/requests');
      expect(res.status).toBe(404);
      expect(JSON.stringify(res.body.errors)).toMatch(/--request-log 0/);
    } finally {
      await off.close();
    }
  });

  it('refuses a wrong requestLog option before starting', async () => {
    await expect(startMock({ port: 0, requestLog: -1 })).rejects.toThrow(RangeError);
    await expect(startMock({ port: 0, requestLog: 'many' as unknown as number })).rejects.toThrow(
      /requestLog must be a number/,
    );
  });
});
