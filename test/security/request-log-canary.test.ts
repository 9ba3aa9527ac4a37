// The request log holds no secret (issue 18): a canary API secret, the webhook secret, the
// control token and the signatures the mock expected appear in no record, in any form a leak
// would take, after requests that get every kind of answer: good ones, wrong secrets, the
// secret sent where a key id or a nonce goes, a rolled secret, a wrong control token. The log
// is read over HTTP and through the built CLI (`mock requests --json`, `mock requests show`).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startMock, type MockServer } from '../../src/mock/index.js';
import { control, ctl, rawRequest, type MockHandle } from '../helpers/api.js';
import { makeSandbox } from '../helpers/cli.js';
import { canonicalQueryOf, independentSignature, nowS, sha256hex, signedCall } from '../helpers/independent-signer.js';

const CANARY_BYTES = Buffer.concat([
  Buffer.from('CANARY-SECRET-CANARY-SECRET'),
  Buffer.from([0xfb, 0xef, 0xff, 0xfb, 0xf0]),
]);
const CANARY = CANARY_BYTES.toString('base64');
const KEY_ID = '01JD2Q7N8V3K4M5P6R7S8T9CAN';

function leakForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'base64');
  const forms = [secret, Buffer.from(secret).toString('hex'), encodeURIComponent(secret), secret.replace(/=+$/, '')];
  if (bytes.toString('base64') === secret) forms.push(bytes.toString('hex'), bytes.toString('base64url'));
  return forms.filter((f) => f.length >= 16);
}

const sandbox = makeSandbox();
let mock: MockServer;
const expectedSignatures: string[] = [];

beforeAll(async () => {
  mock = await startMock({
    port: 0,
    seed: 99,
    providerLatencyMs: 0,
    keys: [{ keyId: KEY_ID, secret: CANARY, mode: 'test' }],
  });
});
afterAll(async () => {
  await mock?.close();
  sandbox.cleanup();
});

/** Sends a request signed wrong and remembers the signature the mock expected for it. */
async function wronglySigned(path: string, query: string, signedQuery: string): Promise<void> {
  const nonce = `n-${Math.random()}`;
  const ts = nowS();
  await signedCall({
    port: mock.port,
    method: 'GET',
    path,
    query,
    keyId: KEY_ID,
    secret: CANARY,
    nonce,
    timestamp: ts,
    signed: { query: signedQuery },
  });
  expectedSignatures.push(
    independentSignature(CANARY, ['GET', path, canonicalQueryOf(query), KEY_ID, ts, nonce, sha256hex('')]),
  );
}

it('no record, read over HTTP or through the CLI, holds a secret, the control token or an expected signature', async () => {
  const handle = mock as unknown as MockHandle;
  const key = { keyId: KEY_ID, secret: CANARY };
  // good requests, then every kind of refusal
  await signedCall({ port: mock.port, method: 'GET', path: '/api/v1/customers', query: 'per_page=1', ...key });
  await wronglySigned('/api/v1/customers', 'per_page=2&cursor=x', 'per_page=2&cursor=x');
  await wronglySigned('/api/v1/customers', 'a=1', '');
  await signedCall({
    port: mock.port,
    method: 'GET',
    path: '/api/v1/customers',
    keyId: KEY_ID,
    secret: mock.keys.test.secret,
  }); // another key's secret
  await signedCall({ port: mock.port, method: 'GET', path: '/api/v1/customers', keyId: CANARY, secret: CANARY }); // the secret as the key id
  await signedCall({ port: mock.port, method: 'GET', path: '/api/v1/customers', nonce: CANARY, ...key }); // the secret as the nonce
  await signedCall({
    port: mock.port,
    method: 'POST',
    path: '/api/v1/cards',
    body: '{"customer_id":"x"}',
    headers: { 'Idempotency-Key': CANARY },
    ...key,
  });
  await rawRequest({
    port: mock.port,
    method: 'GET',
    path: '/api/v1/customers',
    headers: { 'X-Api-Key': KEY_ID, 'X-Signatur': CANARY },
  });
  const rolled = await ctl(handle, 'POST', `/_mock/keys/${KEY_ID}/roll`);
  await ctl(handle, 'POST', '/_mock/clock/advance', { seconds: 2 * 24 * 3600 });
  await signedCall({ port: mock.port, method: 'GET', path: '/api/v1/customers', ...key }); // the old secret past its 24 h
  await signedCall({
    port: mock.port,
    method: 'GET',
    path: '/api/v1/customers',
    keyId: KEY_ID,
    secret: rolled.secret,
    signed: { query: 'x=1' },
  });
  await control(handle, 'GET', '/_mock/state', undefined, CANARY); // the secret as a control token
  await control(handle, 'GET', '/_mock/state', undefined, `${mock.controlToken}x`);
  // the secret where it does not belong, a client's own mistake: a query parameter, a path, a body
  const inQuery = await signedCall({
    port: mock.port,
    method: 'GET',
    path: '/api/v1/customers',
    query: `api_secret=${encodeURIComponent(CANARY)}`,
    ...key,
  });
  const inPath = await signedCall({
    port: mock.port,
    method: 'GET',
    path: `/api/v1/customers/${encodeURIComponent(CANARY)}`,
    ...key,
  });
  const inBody = await signedCall({
    port: mock.port,
    method: 'POST',
    path: '/api/v1/customers',
    body: JSON.stringify({ note: CANARY, hook: mock.webhookSecret }),
    ...key,
  });
  const answerHeaders = [inQuery, inPath, inBody].map((r) => JSON.stringify(r.headers));

  const secrets = [
    CANARY,
    rolled.secret as string,
    mock.keys.test.secret,
    mock.keys.live.secret,
    mock.webhookSecret,
    mock.controlToken,
  ];
  const forms = [...secrets.flatMap(leakForms), ...expectedSignatures];

  const list = await control(handle, 'GET', '/_mock/requests?limit=1000');
  expect(list.body.data.length).toBeGreaterThanOrEqual(14);
  const texts = [list.raw.toString('utf8'), ...answerHeaders];
  // the records of those three are there, with the secret replaced
  expect(list.raw.toString('utf8')).toContain('api_secret=(a secret: not recorded)');
  expect(list.raw.toString('utf8')).toContain('/api/v1/customers/(a secret: not recorded)');
  for (const r of list.body.data)
    texts.push((await control(handle, 'GET', `/_mock/requests/${r.id}`)).raw.toString('utf8'));
  // the diagnoses were made: a canary test of an empty log would prove nothing
  expect(list.body.data.filter((r: any) => r.diagnosis).map((r: any) => r.diagnosis.id)).toEqual(
    expect.arrayContaining([
      'signed_with_other_secret',
      'secret_sent_as_key_id',
      'query_omitted',
      'control_token_wrong',
    ]),
  );

  const env = { CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken };
  for (const args of [
    ['mock', 'requests', '--limit', '1000', '--json'],
    ['mock', 'requests', '--limit', '1000'],
    ['mock', 'requests', '--failed', '--ndjson'],
  ]) {
    const r = await sandbox.run(args, { env });
    expect(r.code, r.stderr).toBe(0);
    texts.push(r.stdout, r.stderr);
  }
  for (const r of list.body.data.slice(0, 10)) {
    const shown = await sandbox.run(['mock', 'requests', 'show', r.id], { env });
    expect(shown.code, shown.stderr).toBe(0);
    texts.push(shown.stdout, shown.stderr);
  }
  const all = texts.join('\n');
  for (const form of forms) expect(all.includes(form), `a secret form leaked: ${form.slice(0, 6)}…`).toBe(false);
});
