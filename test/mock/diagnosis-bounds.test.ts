// The diagnosis does bounded work on any body (issue 29): a body past 64 KiB or nested past 64
// levels is not parsed and re-serialized (5 MB took 1.5 s of the event loop; 100,000 nested arrays
// overflowed the stack and the request was missing from the log). Such a request is still
// recorded, and its diagnosis says what the other checks found and which were skipped. Figures
// of the time it takes: bench/mock-big-bodies.mjs.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { ctl, type MockHandle } from '../helpers/api.js';
import { sha256hex, signedCall, type SignedCall } from '../helpers/independent-signer.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, providerLatencyMs: 0, seed: 290 })) as unknown as MockHandle;
});
afterAll(async () => {
  await mock?.close();
});

/** Sends one request with the banner's test key; returns its answer's status and the record the log kept. */
async function recorded(call: Omit<SignedCall, 'port' | 'keyId' | 'secret'>): Promise<{ status: number; record: any }> {
  const res = await signedCall({
    port: mock.port,
    keyId: mock.keys.test.keyId,
    secret: mock.keys.test.secret,
    ...call,
  });
  const id = res.headers['x-cardctl-mock-request'] as string;
  const record = (await ctl(mock, 'GET', '/_mock/requests?plane=api&limit=50')).find((r: any) => r.id === id);
  return { status: res.status, record };
}

const bigJson = (bytes: number): string =>
  JSON.stringify({
    first_name: 'Big',
    notes: Array.from({ length: Math.ceil(bytes / 40) }, (_, i) => `note number ${i} of a long list`),
  });

it('a 200 KB body signed with a trailing newline: the mistake is still named, and the skipped checks are said', async () => {
  const body = bigJson(200_000);
  const { status, record } = await recorded({
    method: 'POST',
    path: '/api/v1/customers',
    body,
    signed: { bodySha256: sha256hex(`${body}\n`) },
  });
  expect(status).toBe(401);
  expect(record.diagnosis.id).toBe('body_trailing_newline_added');
  expect(record.diagnosis.details.body_checks_skipped).toMatch(
    /^the body is \d+ bytes, over 65536: not checked for having been signed as re-serialized JSON/,
  );
});

it('a 200 KB body signed pretty-printed: unexplained, and the message says the re-serialization was not checked', async () => {
  const body = bigJson(200_000);
  const { record } = await recorded({
    method: 'POST',
    path: '/api/v1/customers',
    body,
    signed: { bodySha256: sha256hex(JSON.stringify(JSON.parse(body), null, 2)) },
  });
  expect(record.diagnosis.id).toBe('signature_unexplained');
  expect(record.diagnosis.message).toMatch(
    /the mock did not check whether it was signed as re-serialized JSON; hash the exact bytes you send/,
  );
});

it('100,000 nested arrays with a bad signature: recorded, with a diagnosis', async () => {
  const body = '['.repeat(100_000) + ']'.repeat(100_000);
  const { status, record } = await recorded({
    method: 'POST',
    path: '/api/v1/customers',
    body,
    signed: { secret: 'not-the-secret' },
  });
  expect(status).toBe(401);
  expect(record).toBeDefined();
  expect(record.body.bytes).toBe(200_000);
  expect(record.diagnosis.details.body_checks_skipped).toMatch(/^the body is 200000 bytes, over 65536/);
});

it('4,000 nested objects (under 64 KiB) with a bad signature: recorded, the nesting named', async () => {
  const body = '{"a":'.repeat(4000) + '1' + '}'.repeat(4000);
  const { record } = await recorded({
    method: 'POST',
    path: '/api/v1/customers',
    body,
    signed: { secret: 'not-the-secret' },
  });
  expect(record).toBeDefined();
  expect(record.diagnosis.details.body_checks_skipped).toMatch(/^the body nests more than 64 levels/);
});

it('an idempotency key reused with a deeply nested body: recorded, the bodies said to differ', async () => {
  const key = randomUUID();
  const first = await recorded({
    method: 'POST',
    path: '/api/v1/cards',
    body: '{"customer_id":"01JD2QZZZZZZZZZZZZZZZZZZZZ","amount_minor":1}',
    headers: { 'Idempotency-Key': key },
  });
  expect(first.record).toBeDefined();
  for (const depth of [100_000, 4000]) {
    const deep = `{"customer_id":"01JD2QZZZZZZZZZZZZZZZZZZZZ","amount_minor":1,"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    const { status, record } = await recorded({
      method: 'POST',
      path: '/api/v1/cards',
      body: deep,
      headers: { 'Idempotency-Key': key },
    });
    expect(status).toBe(422);
    expect(record.diagnosis.id).toBe('body_differs');
    expect(record.diagnosis.message).toMatch(
      /the bodies are not both JSON small and shallow enough to compare field by field/,
    );
  }
});
