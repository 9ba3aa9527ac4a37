// Step 1 of the mock: one pipeline, every failure an envelope, never a 500 or a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  apiCall,
  expectError,
  expectNotFound,
  expectOk,
  expectValidation,
  rawRequest,
  rawSocket,
  signedHeaders,
  UNKNOWN_ULID,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 101, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

/** A signed POST /customers whose raw bytes and content type the test picks. */
function postRaw(body: Buffer, contentType = 'application/json') {
  const headers = { ...signedHeaders(mock, { method: 'POST', path: '/customers', body }), 'Content-Type': contentType };
  return rawRequest({ port: mock.port, method: 'POST', path: '/api/v1/customers', headers, body });
}

describe('bodies the API cannot use get a 422 envelope', () => {
  it('malformed JSON, invalid UTF-8, a JSON array, and a non-JSON content type', async () => {
    expect((await postRaw(Buffer.from('{"first_name": '))).body.errors.body[0]).toMatch(/valid JSON/);
    expectValidation(await postRaw(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])), 'body');
    expectValidation(await postRaw(Buffer.from('[1,2]')), 'body');
    expectValidation(await postRaw(Buffer.from('{}'), 'text/plain'), 'content_type');
  });

  it('an empty body on an operation that needs one names each missing field', async () => {
    const res = await apiCall(mock, { method: 'POST', path: '/cards', idempotencyKey: 'k1' });
    expectValidation(res, 'customer_id');
    expectValidation(res, 'amount_minor');
  });
});

describe('size limit', () => {
  it('a 10 MB body answers 413 with the error envelope, and the mock keeps serving', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024, 0x61);
    const res = await rawRequest({
      port: mock.port,
      method: 'POST',
      path: '/api/v1/customers',
      headers: { 'Content-Type': 'application/json' },
      body: big,
    });
    expectError(res, 413, 'body', 'too_large');
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers' }));
  });
});

describe('routes', () => {
  it('unknown routes and unsupported methods answer 404 envelopes after the gateway', async () => {
    expectNotFound(await apiCall(mock, { method: 'GET', path: '/nothing' }));
    expectNotFound(await apiCall(mock, { method: 'PUT', path: `/cards/${UNKNOWN_ULID}` }));
    expectNotFound(await rawRequest({ port: mock.port, method: 'GET', path: '/' }));
    expectError(
      await rawRequest({ port: mock.port, method: 'GET', path: '/api/v1/nothing' }),
      401,
      'gateway',
      'missing_signature_headers',
    );
  });

  it('CONNECT (a proxy tunnel request) gets the 404 envelope of an unmatched route and the connection closes', async () => {
    const out = (
      await rawSocket(mock.port, Buffer.from('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'))
    ).toString('latin1');
    expect(out).toMatch(/^HTTP\/1\.1 404 /);
    expect(out).toMatch(/\r\nConnection: close\r\n/i);
    const body = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4));
    expect(body).toEqual({ success: false, message: 'Endpoint not found.', errors: {} });
    expectOk(await apiCall(mock, { method: 'GET', path: '/customers' }));
  });

  it('bytes that are not HTTP get a 400 envelope and the connection closes; HEAD gets headers only', async () => {
    const out = (await rawSocket(mock.port, Buffer.from('\x00\x01 garbage\r\n\r\n'))).toString('latin1');
    expect(out).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4))).toMatchObject({ success: false, errors: {} });
    const head = await rawRequest({ port: mock.port, method: 'HEAD', path: '/api/v1/customers' });
    expect(head.status).toBe(401);
    expect(head.raw.length).toBe(0);
  });
});
