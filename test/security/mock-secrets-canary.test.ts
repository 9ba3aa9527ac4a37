// Every secret the mock holds stays out of every view of its request log (issue 29): the API
// secrets of two merchants' keys, a rolled secret in its 24 h overlap and the new one, both
// webhook secrets and the control token are each sent in every place a record keeps (the key id
// header, the query, the path, the body, the nonce, the idempotency key, a control call's query),
// as is and in the encodings a user might paste (percent-encoded, hex, base64), inside longer
// strings too. None of them shows in `/_mock/requests`, `mock requests --json`, `mock requests`,
// `mock requests show`, the lines of `mock start --log`, or the canonical string of a diagnosis.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { control, ctl, rawRequest, handleFromBanner, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliOptions } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { signedCall } from '../helpers/independent-signer.js';
import { startMockProcess, type MockProcess } from '../helpers/mock-process.js';

const MARK = '(a secret: not recorded)';

/** The forms a leak would take, as test/security/canary.test.ts checks them. */
function leakForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'base64');
  const forms = [
    secret,
    Buffer.from(secret).toString('hex'),
    Buffer.from(secret).toString('base64'),
    encodeURIComponent(secret),
    secret.replace(/=+$/, ''),
  ];
  if (bytes.toString('base64') === secret) forms.push(bytes.toString('hex'), bytes.toString('base64url'));
  return forms.filter((f) => f.length >= 16);
}

/** The encodings a user might paste, each sent too. */
const pasted = (s: string): string[] => [
  s,
  encodeURIComponent(s),
  Buffer.from(s).toString('hex'),
  Buffer.from(s).toString('base64'),
];

const sandbox = makeSandbox();
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sandbox)(args, options);
let mock: MockProcess;
let handle: MockHandle;

beforeAll(async () => {
  mock = await startMockProcess(sandbox, ['--log', '--seed', '29', '--rate-limit', '100000']);
  handle = handleFromBanner(mock.banner);
});
afterAll(async () => {
  await mock?.stop();
  sandbox.cleanup();
});

it('no secret of the mock, in any place or encoding, shows in any view of the request log', async () => {
  const b = mock.banner;
  const other = await ctl(handle, 'POST', '/_mock/merchants');
  const rolledOld = b.keys.live.secret;
  const rolled = await ctl(handle, 'POST', `/_mock/keys/${b.keys.live.key_id}/roll`);
  const secrets: Record<string, string> = {
    'test secret': b.keys.test.secret,
    'live secret before the roll': rolledOld,
    'live secret after the roll': rolled.secret,
    "other merchant's test secret": other.keys.test.secret,
    'webhook secret': b.webhook_secret,
    "other merchant's webhook secret": other.webhook_secret,
    'control token': b.control_token,
  };
  const key = { keyId: b.keys.test.key_id, secret: b.keys.test.secret };
  const wrong = { signed: { secret: 'not-the-secret' } }; // refused 401: the diagnosis shows the canonical string
  const port = handle.port;
  for (const s of Object.values(secrets)) {
    const forms = pasted(s);
    const query = forms.map((f, i) => `p${i}=${encodeURIComponent(`x${f}y`)}`).join('&');
    await rawRequest({
      port,
      method: 'GET',
      path: '/api/v1/customers',
      headers: { 'X-Api-Key': s, 'X-Timestamp': '1', 'X-Nonce': 'n', 'X-Signature': 'x' },
    });
    await signedCall({ port, method: 'GET', path: '/api/v1/customers', query, ...key, ...wrong });
    for (const f of [encodeURIComponent(s), Buffer.from(s).toString('hex')])
      await signedCall({ port, method: 'GET', path: `/api/v1/customers/a${f}b`, ...key, ...wrong });
    await signedCall({
      port,
      method: 'POST',
      path: '/api/v1/customers',
      body: JSON.stringify({ note: forms.map((f) => `see ${f}.`) }),
      ...key,
      ...wrong,
    });
    await signedCall({
      port,
      method: 'GET',
      path: '/api/v1/customers',
      nonce: `${s}.${Buffer.from(s).toString('hex')}`,
      ...key,
      ...wrong,
    });
    await signedCall({ port, method: 'GET', path: '/api/v1/customers', nonce: s, ...key }); // a good signature
    await signedCall({
      port,
      method: 'POST',
      path: '/api/v1/cards',
      body: '{}',
      headers: { 'Idempotency-Key': `k-${s}-${Buffer.from(s).toString('base64')}` },
      ...key,
      ...wrong,
    });
    await control(handle, 'GET', `/_mock/state?token=${encodeURIComponent(s)}&hex=${Buffer.from(s).toString('hex')}`);
  }

  const list = await control(handle, 'GET', '/_mock/requests?limit=1000');
  const records: any[] = list.body.data;
  expect(records.length).toBeGreaterThanOrEqual(Object.keys(secrets).length * 9);
  // the records are there, each place redacted (a canary test of an empty log would prove nothing)
  const text = list.raw.toString('utf8');
  expect(records.some((r) => r.nonce === MARK)).toBe(true);
  expect(records.some((r) => r.idempotency_key === `k-${MARK}-${MARK}`)).toBe(true);
  expect(records.some((r) => r.plane === 'control' && r.query === `token=${MARK}&hex=${MARK}`)).toBe(true);
  expect(records.some((r) => r.path === `/api/v1/customers/a${MARK}b`)).toBe(true);
  expect(records.some((r) => r.body.text?.includes(`see ${MARK}.`))).toBe(true);
  const canonicalNonces = records
    .filter((r) => r.diagnosis?.details?.canonical)
    .map((r) => r.diagnosis.details.canonical[5]);
  expect(canonicalNonces).toContain(`${MARK}.${MARK}`);

  const views = [text];
  for (const r of records) views.push((await control(handle, 'GET', `/_mock/requests/${r.id}`)).raw.toString('utf8'));
  const env = { CARDCTL_MOCK_URL: handle.controlUrl, CARDCTL_MOCK_TOKEN: handle.controlToken };
  for (const args of [
    ['mock', 'requests', '--limit', '1000', '--json'],
    ['mock', 'requests', '--limit', '1000'],
  ]) {
    const r = await runIn(args, { env });
    expect(r.code, r.stderr).toBe(0);
    views.push(r.stdout, r.stderr);
  }
  // `show` of every place for two of the secrets (the view is built from the same record as --json)
  for (const r of records
    .filter(
      (x) =>
        x.query.includes(MARK) ||
        x.path.includes(MARK) ||
        x.nonce?.includes(MARK) ||
        x.idempotency_key?.includes(MARK) ||
        x.body.text?.includes(MARK),
    )
    .slice(0, 14)) {
    const shown = await runIn(['mock', 'requests', 'show', r.id], { env });
    expect(shown.code, shown.stderr).toBe(0);
    views.push(shown.stdout, shown.stderr);
  }
  await new Promise((r) => setTimeout(r, 200)); // the last --log lines
  views.push(mock.stderr());
  expect(mock.stderr()).toContain(`/_mock/state?token=${MARK}`);

  const all = views.join('\n');
  for (const [name, s] of Object.entries(secrets)) {
    for (const form of leakForms(s))
      expect(all.includes(form), `the ${name} leaked as ${form.slice(0, 6)}…`).toBe(false);
  }
});

it('a secret cut by the 16 KiB the record keeps of a body: its start is not kept either', async () => {
  const s = mock.banner.keys.test.secret;
  const body = `{"note":"${'a'.repeat(16 * 1024 - 9 - 20)}${s}"}`; // the cut falls 20 characters into the secret
  const res = await signedCall({
    port: handle.port,
    method: 'POST',
    path: '/api/v1/customers',
    body,
    keyId: mock.banner.keys.test.key_id,
    secret: 'not-the-secret',
  });
  const r = await control(handle, 'GET', `/_mock/requests/${res.headers['x-cardctl-mock-request'] as string}`);
  expect(r.body.data.body.truncated).toBe(true);
  expect(r.body.data.body.text.endsWith(`a${MARK}`)).toBe(true);
  expect(r.raw.toString('utf8')).not.toContain(s.slice(0, 12));
});

it('a secret of any characters (quotes, backslashes, slashes) is redacted and its record kept', async () => {
  const { startMock } = await import('../../src/mock/index.js');
  const secret = 'odd\\"secret/with\\/escapes"and-more-0123456789';
  const keyId = '01JD2Q7N8V3K4M5P6R7S8T9ODD';
  const m = (await startMock({
    port: 0,
    providerLatencyMs: 0,
    keys: [{ keyId, secret, mode: 'test' }],
  })) as unknown as MockHandle;
  try {
    const sent = [
      await signedCall({
        port: m.port,
        method: 'GET',
        path: '/api/v1/customers',
        nonce: secret,
        keyId,
        secret: 'not-the-secret',
      }),
      await signedCall({
        port: m.port,
        method: 'POST',
        path: '/api/v1/customers',
        body: JSON.stringify({ s: secret, escaped: secret.replace(/\//g, '\\/') }),
        keyId,
        secret: 'not-the-secret',
      }),
    ];
    const nonceRecord = await control(
      m,
      'GET',
      `/_mock/requests/${sent[0]!.headers['x-cardctl-mock-request'] as string}`,
    );
    expect(nonceRecord.body.data.diagnosis.details.canonical[5]).toBe(MARK); // line 6 of the canonical string, the nonce
    for (const res of sent) {
      const r = await control(m, 'GET', `/_mock/requests/${res.headers['x-cardctl-mock-request'] as string}`);
      expect(r.status).toBe(200);
      expect(r.body.data.diagnosis.id).toBeTruthy();
      expect(JSON.stringify(r.body.data)).not.toContain(JSON.stringify(secret).slice(1, -1));
      expect(JSON.stringify(r.body.data)).toContain(MARK);
    }
  } finally {
    await m.close();
  }
});
