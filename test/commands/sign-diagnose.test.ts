// `cardctl sign diagnose` through the built CLI: each known mistake is made on purpose by a
// deliberately wrong client signer (written here, independent of src/signing), the request is
// written as raw HTTP text to a file, and the diagnosis must name that mistake.
// In this process (test/helpers/in-process.ts): sign's whole-process runs are test/commands/sign.test.ts's.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KNOWN_MISTAKES } from '../../src/signing/diagnose.js';
import { makeSandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

const SECRET = 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=';
const KEY = '01JD2Q7N8V3K4M5P6R7S8T9V0W';
const TS = '1763800000';
const NONCE = '6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f';
const sandbox = makeSandbox();
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const diagnoseRun = inProcessRunner(sandbox);
const env = { CARDCTL_API_SECRET: SECRET, CARDCTL_API_KEY: KEY };
afterAll(() => sandbox.cleanup());

type Mistake =
  | 'method_not_uppercased'
  | 'trailing_slash_kept'
  | 'path_without_prefix'
  | 'path_includes_query'
  | 'query_not_sorted'
  | 'query_space_as_percent20'
  | 'query_brackets_encoded'
  | 'query_unreserved_not_encoded'
  | 'query_lowercase_hex'
  | 'query_as_sent'
  | 'query_omitted'
  | 'timestamp_ms_signed'
  | 'body_pretty_printed'
  | 'body_keys_reordered'
  | 'body_reserialized'
  | 'body_trailing_newline_added'
  | 'body_trailing_newline_removed'
  | 'body_not_signed'
  | 'body_hash_uppercase'
  | 'secret_base64_decoded'
  | 'secret_trailing_newline'
  | 'signature_hex'
  | 'signature_base64url'
  | 'signature_base64url_unpadded'
  | 'signature_base64_unpadded'
  | 'canonical_trailing_newline'
  | 'canonical_crlf';

interface WireRequest {
  method: string;
  path: string;
  /** raw query as sent */
  query?: string;
  body?: string;
  headers?: Record<string, string>;
  timestamp?: string;
}

// ---- the wrong client: its own canonicalization, with switches for each mistake ----
function enc(s: string, m: Set<Mistake>): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(b);
    const keep = m.has('query_unreserved_not_encoded') ? /[A-Za-z0-9\-_.~!*'()]/ : /[A-Za-z0-9\-_.]/;
    if (keep.test(ch)) out += ch;
    else if (b === 0x20) out += m.has('query_space_as_percent20') ? '%20' : '+';
    else {
      const h = b.toString(16).padStart(2, '0');
      out += '%' + (m.has('query_lowercase_hex') ? h : h.toUpperCase());
    }
  }
  return out;
}
function clientQuery(raw: string, m: Set<Mistake>): string {
  if (m.has('query_omitted')) return '';
  if (m.has('query_as_sent')) return raw;
  const params = raw
    .split('&')
    .filter(Boolean)
    .map((piece) => {
      const eq = piece.indexOf('=');
      const dec = (s: string): string => decodeURIComponent(s.replace(/\+/g, ' '));
      let key = dec(eq < 0 ? piece : piece.slice(0, eq));
      const list = key.endsWith('[]');
      if (list) key = key.slice(0, -2);
      return { key, value: eq < 0 ? '' : dec(piece.slice(eq + 1)), list };
    });
  const cmp = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const sorted = m.has('query_not_sorted')
    ? params
    : [...params].sort((a, b) => cmp(a.key, b.key) || cmp(a.value, b.value));
  const count = (k: string): number => params.filter((p) => p.key === k).length;
  const brackets = m.has('query_brackets_encoded') ? '%5B%5D' : '[]';
  return sorted
    .map((p) => `${enc(p.key, m)}${p.list || count(p.key) > 1 ? brackets : ''}=${enc(p.value, m)}`)
    .join('&');
}
function clientBody(body: string, m: Set<Mistake>): string {
  let b = body;
  if (m.has('body_keys_reordered'))
    b = JSON.stringify(
      Object.fromEntries(Object.entries(JSON.parse(b) as object).sort(([x], [y]) => (x < y ? -1 : 1))),
    );
  if (m.has('body_pretty_printed')) b = JSON.stringify(JSON.parse(b), null, 2);
  if (m.has('body_reserialized')) b = JSON.stringify(JSON.parse(b)); // the wire body is pretty, the client signed compact
  if (m.has('body_trailing_newline_added')) b += '\n';
  if (m.has('body_trailing_newline_removed')) b = b.replace(/\n$/, '');
  return b;
}
function wrongSign(req: WireRequest, mistakes: Mistake[]): string {
  const m = new Set(mistakes);
  let path = req.path;
  if (!m.has('trailing_slash_kept') && path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (m.has('path_without_prefix')) path = path.replace(/^\/api\/v1/, '');
  if (m.has('path_includes_query') && req.query) path += '?' + req.query;
  const body = req.body ?? '';
  const hash = m.has('body_not_signed')
    ? createHash('sha256').update('').digest('hex')
    : createHash('sha256').update(clientBody(body, m)).digest('hex');
  const ts = m.has('timestamp_ms_signed') ? (req.timestamp ?? TS) + '042' : (req.timestamp ?? TS);
  const fields = [
    m.has('method_not_uppercased') ? req.method.toLowerCase() : req.method.toUpperCase(),
    path,
    clientQuery(req.query ?? '', m),
    KEY,
    ts,
    NONCE,
    m.has('body_hash_uppercase') ? hash.toUpperCase() : hash,
  ];
  let canonical = fields.join(m.has('canonical_crlf') ? '\r\n' : '\n');
  if (m.has('canonical_trailing_newline')) canonical += '\n';
  let key: Buffer | string = SECRET;
  if (m.has('secret_base64_decoded')) key = Buffer.from(SECRET, 'base64');
  if (m.has('secret_trailing_newline')) key = SECRET + '\n';
  const digest = createHmac('sha256', key).update(canonical).digest();
  if (m.has('signature_hex')) return digest.toString('hex');
  if (m.has('signature_base64url')) return digest.toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
  if (m.has('signature_base64url_unpadded')) return digest.toString('base64url');
  if (m.has('signature_base64_unpadded')) return digest.toString('base64').replace(/=+$/, '');
  return digest.toString('base64');
}

/** Raw HTTP/1.1 text as a proxy dump shows it: CRLF, Content-Length. */
function rawHttp(req: WireRequest, signature: string | null, extra: Record<string, string> = {}): string {
  const body = req.body ?? '';
  const headers: Record<string, string> = {
    Host: 'api.example.test',
    'X-Api-Key': KEY,
    'X-Timestamp': req.timestamp ?? TS,
    'X-Nonce': NONCE,
    ...(signature === null ? {} : { 'X-Signature': signature }),
    ...(body ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) } : {}),
    ...extra,
  };
  const target = req.path + (req.query ? '?' + req.query : '');
  return `${req.method} ${target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body}`;
}

let fileNo = 0;
/** Every mistake id a case below got named, for the coverage check at the end. */
const named = new Set<string>();
async function diagnoseText(text: string, args: string[] = []) {
  const file = join(sandbox.dir, `req-${++fileNo}.http`);
  writeFileSync(file, text);
  const res = await diagnoseRun(['sign', 'diagnose', '--request', file, '--now', TS, '--json', ...args], { env });
  const json = JSON.parse(res.stdout) as {
    valid: boolean;
    found: boolean;
    expected_signature?: string;
    expected_signature_prefix: string;
    received_signature: string | null;
    signatures_match: boolean;
    first_difference: number | null;
    signed_with_profile?: string;
    mistakes: Array<{ id: string; description: string; fix: string }>;
    warnings: string[];
    checked: string[];
  };
  for (const m of json.mistakes) named.add(m.id);
  return { ...res, json, ids: json.mistakes.map((x) => x.id) };
}

const GET_LIST: WireRequest = { method: 'GET', path: '/api/v1/customers', query: 'per_page=5&cursor=ab%2Bc' };
const POST_CARD: WireRequest = {
  method: 'POST',
  path: '/api/v1/cards',
  body: '{"customer_id":"01JD2Q9ZZZZZZZZZZZZZZZZZZZ","amount":5000}',
};

// url-safe base64 only differs from base64 when the signature has a "+" or "/": pick such a request
const URL_UNSAFE: WireRequest = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
  .map((n): WireRequest => ({ method: 'GET', path: `/api/v1/cards/${n}` }))
  .find((r) => /[+/]/.test(wrongSign(r, [])))!;

const CASES: Array<{ mistake: string; req: WireRequest; client: Mistake[] }> = [
  {
    mistake: 'method_not_uppercased',
    req: { method: 'POST', path: '/api/v1/cards/01JD2QA1B2C3D4E5F6G7H8J9KM/freeze' },
    client: ['method_not_uppercased'],
  },
  {
    mistake: 'trailing_slash_kept',
    req: { method: 'GET', path: '/api/v1/customers/' },
    client: ['trailing_slash_kept'],
  },
  {
    mistake: 'path_without_prefix',
    req: { method: 'GET', path: '/api/v1/cards/01JD2QA1B2C3D4E5F6G7H8J9KM' },
    client: ['path_without_prefix'],
  },
  { mistake: 'path_includes_query', req: GET_LIST, client: ['path_includes_query'] },
  { mistake: 'query_not_sorted', req: GET_LIST, client: ['query_not_sorted'] },
  {
    mistake: 'query_space_as_percent20',
    req: { method: 'GET', path: '/api/v1/customers', query: 'q=john+smith' },
    client: ['query_space_as_percent20'],
  },
  {
    mistake: 'query_brackets_encoded',
    req: { method: 'GET', path: '/api/v1/customers', query: 'status[]=active&status[]=disabled' },
    client: ['query_brackets_encoded'],
  },
  {
    mistake: 'query_unreserved_not_encoded',
    req: { method: 'GET', path: '/api/v1/customers', query: 'a=~x*y' },
    client: ['query_unreserved_not_encoded'],
  },
  {
    mistake: 'query_lowercase_hex',
    req: { method: 'GET', path: '/api/v1/deposits', query: 'cursor=ab%2Bc%2Fd%3D%3D' },
    client: ['query_lowercase_hex'],
  },
  {
    mistake: 'query_as_sent',
    req: { method: 'GET', path: '/api/v1/customers', query: 'z=1&a=%7e' },
    client: ['query_as_sent'],
  },
  { mistake: 'query_omitted', req: GET_LIST, client: ['query_omitted'] },
  {
    mistake: 'timestamp_milliseconds',
    req: { method: 'GET', path: '/api/v1/customers' },
    client: ['timestamp_ms_signed'],
  },
  { mistake: 'body_pretty_printed', req: POST_CARD, client: ['body_pretty_printed'] },
  { mistake: 'body_keys_reordered', req: POST_CARD, client: ['body_keys_reordered'] },
  {
    mistake: 'body_reserialized',
    req: { ...POST_CARD, body: '{\n  "customer_id": "01JD2Q9ZZZZZZZZZZZZZZZZZZZ",\n  "amount": 5000\n}' },
    client: ['body_reserialized'],
  },
  { mistake: 'body_trailing_newline_added', req: POST_CARD, client: ['body_trailing_newline_added'] },
  {
    mistake: 'body_trailing_newline_removed',
    req: { ...POST_CARD, body: POST_CARD.body + '\n' },
    client: ['body_trailing_newline_removed'],
  },
  { mistake: 'body_not_signed', req: POST_CARD, client: ['body_not_signed'] },
  { mistake: 'body_hash_encoding', req: POST_CARD, client: ['body_hash_uppercase'] },
  { mistake: 'secret_base64_decoded', req: POST_CARD, client: ['secret_base64_decoded'] },
  { mistake: 'secret_trailing_newline', req: GET_LIST, client: ['secret_trailing_newline'] },
  { mistake: 'signature_hex', req: GET_LIST, client: ['signature_hex'] },
  { mistake: 'signature_base64url', req: URL_UNSAFE, client: ['signature_base64url'] },
  { mistake: 'signature_base64url_unpadded', req: URL_UNSAFE, client: ['signature_base64url_unpadded'] },
  { mistake: 'signature_base64_unpadded', req: POST_CARD, client: ['signature_base64_unpadded'] },
  { mistake: 'canonical_trailing_newline', req: POST_CARD, client: ['canonical_trailing_newline'] },
  { mistake: 'canonical_crlf', req: GET_LIST, client: ['canonical_crlf'] },
];

// Concurrent: each case is an independent child process (vitest runs at most 5 at once).
describe.concurrent('sign diagnose names each known mistake', () => {
  for (const c of CASES) {
    it(c.mistake, async () => {
      const sig = wrongSign(c.req, c.client);
      expect(sig).not.toBe(wrongSign(c.req, [])); // the wrong signer really made the mistake
      const r = await diagnoseText(rawHttp(c.req, sig));
      expect(r.code, r.stderr).toBe(3);
      expect(r.json.valid).toBe(false);
      expect(r.json.found).toBe(true);
      expect(r.ids).toEqual([c.mistake]);
      expect(r.json.received_signature).toBe(sig);
      // the valid signature is never printed whole: its first 6 characters and where they differ
      const valid = wrongSign(c.req, []);
      expect(r.json.expected_signature).toBeUndefined();
      expect(r.json.expected_signature_prefix).toBe(valid.slice(0, 6));
      expect(r.json.signatures_match).toBe(false);
      expect(r.stdout + r.stderr).not.toContain(valid);
    });
  }

  it('a pair of mistakes: query not sorted and a hex signature', async () => {
    const r = await diagnoseText(rawHttp(GET_LIST, wrongSign(GET_LIST, ['query_not_sorted', 'signature_hex'])));
    expect(r.code).toBe(3);
    expect(r.ids.sort()).toEqual(['query_not_sorted', 'signature_hex']);
  });

  it('a pair of mistakes: body pretty-printed and secret base64-decoded', async () => {
    const r = await diagnoseText(
      rawHttp(POST_CARD, wrongSign(POST_CARD, ['body_pretty_printed', 'secret_base64_decoded'])),
    );
    expect(r.ids.sort()).toEqual(['body_pretty_printed', 'secret_base64_decoded']);
  });

  it('X-Timestamp sent in milliseconds (signed consistently): invalid, names it', async () => {
    const req = { method: 'GET', path: '/api/v1/customers', timestamp: '1763800000123' };
    const r = await diagnoseText(rawHttp(req, wrongSign(req, [])));
    expect(r.code).toBe(3);
    expect(r.ids).toEqual(['timestamp_milliseconds']);
  });

  it('X-Timestamp with a fraction (1763800000.5, signed consistently): invalid, names it', async () => {
    const req = { method: 'GET', path: '/api/v1/customers', timestamp: '1763800000.5' };
    const r = await diagnoseText(rawHttp(req, wrongSign(req, [])));
    expect(r.code).toBe(3);
    expect(r.ids).toContain('timestamp_malformed');
    expect(r.json.mistakes.find((m) => m.id === 'timestamp_malformed')?.description).toContain('1763800000.5');
  });

  it('a client that shows its own canonical string (a `# canonical:` comment) gets the differing field named', async () => {
    const canonical = [
      'GET',
      '/api/v1/customers',
      'per_page=5',
      KEY,
      TS,
      NONCE,
      createHash('sha256').update('').digest('hex'),
    ].join('\n');
    const sig = createHmac('sha256', SECRET).update(canonical).digest('base64');
    const r = await diagnoseText(
      `# canonical: ${JSON.stringify(canonical)}\n` + rawHttp({ method: 'GET', path: '/api/v1/customers' }, sig),
    );
    expect(r.code).toBe(3);
    expect(r.ids).toEqual(['canonical_differs']);
    expect(r.json.mistakes[0]?.description).toContain('QUERY_STRING');
  });

  it('a missing header', async () => {
    const text = rawHttp(GET_LIST, wrongSign(GET_LIST, [])).replace(/X-Nonce: .*\r\n/, '');
    const r = await diagnoseText(text);
    expect(r.code).toBe(3);
    expect(r.ids).toContain('missing_headers');
    expect(r.json.mistakes[0]!.description).toContain('X-Nonce');
  });

  it('a query that is not valid UTF-8', async () => {
    const req = { method: 'GET', path: '/api/v1/customers', query: 'q=%FF' };
    const r = await diagnoseText(rawHttp(req, 'AAAA'));
    expect(r.code).toBe(3);
    expect(r.ids).toContain('query_invalid_encoding');
  });

  it('a body changed after signing, found through the body hash the client declared', async () => {
    const signedBody = POST_CARD.body!;
    const sentBody = signedBody.replace('5000', '5001');
    const sig = wrongSign(POST_CARD, []); // signed over the original body
    const declared = createHash('sha256').update(signedBody).digest('hex');
    const r = await diagnoseText(rawHttp({ ...POST_CARD, body: sentBody }, sig, { 'X-Content-Sha256': declared }));
    expect(r.code).toBe(3);
    expect(r.ids).toEqual(['body_changed_after_signing']);
    expect(r.json.warnings.join(' ')).toMatch(/does not match the body/);
  });
});

describe('sign diagnose verdicts', () => {
  it('a valid request: exit 0, human output says valid', async () => {
    const file = join(sandbox.dir, 'valid.http');
    writeFileSync(file, rawHttp(POST_CARD, wrongSign(POST_CARD, [])));
    const r = await diagnoseRun(['sign', 'diagnose', '--request', file, '--now', TS], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Valid:/);
    expect(r.stdout).not.toContain(SECRET);
  });

  it('an unknown cause (another secret): exit 3, says it could not find it and lists what it checked', async () => {
    const file = join(sandbox.dir, 'unknown.http');
    const sig = createHmac('sha256', 'some other secret').update('x').digest('base64');
    writeFileSync(file, rawHttp(POST_CARD, sig));
    const r = await diagnoseRun(['sign', 'diagnose', '--request', file, '--now', TS], { env });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/could not be found/);
    expect(r.stdout).toMatch(
      /Checked: .*secret_base64_decoded.*body_pretty_printed|Checked: .*body_pretty_printed.*secret_base64_decoded/,
    );
    const j = await diagnoseText(readFileSync(file, 'utf8'));
    expect(j.json.found).toBe(false);
    expect(j.json.checked.length).toBeGreaterThan(10);
  });

  it('a valid request pasted from curl -v with LF line ends and the body after the headers', async () => {
    const sig = wrongSign(POST_CARD, []);
    const text = [
      '*   Trying 127.0.0.1:4010...',
      '* Connected to 127.0.0.1 (127.0.0.1) port 4010',
      `> POST http://127.0.0.1:4010/api/v1/cards HTTP/1.1`,
      '> Host: 127.0.0.1:4010',
      '> User-Agent: curl/8.5.0',
      `> x-api-key: ${KEY}`,
      `> x-timestamp: ${TS}`,
      `> x-nonce: ${NONCE}`,
      `> x-signature: ${sig}`,
      '> Content-Type: application/json',
      `> Content-Length: ${POST_CARD.body!.length}`,
      '> ',
      POST_CARD.body!,
      '< HTTP/1.1 401 Unauthorized',
      '< Content-Type: application/json',
      '<',
      '{"message":"Unauthenticated.","errors":{"gateway":["invalid_signature"]}}',
    ].join('\n');
    const r = await diagnoseText(text);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.json.valid).toBe(true);
  });

  it('warns about a stale timestamp but keeps a valid signature valid', async () => {
    const file = join(sandbox.dir, 'stale.http');
    writeFileSync(file, rawHttp(GET_LIST, wrongSign(GET_LIST, [])));
    const r = await diagnoseRun(['sign', 'diagnose', '--request', file, '--now', String(Number(TS) + 3600), '--json'], {
      env,
    });
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { warnings: string[] }).warnings.join(' ')).toMatch(
      /3600 s in the past.*timestamp_out_of_window/,
    );
  });

  it('the human verdict names the mistake and the fix in one sentence', async () => {
    const file = join(sandbox.dir, 'human.http');
    writeFileSync(file, rawHttp(GET_LIST, wrongSign(GET_LIST, ['query_not_sorted'])));
    const r = await diagnoseRun(['sign', 'diagnose', '--request', file, '--now', TS], { env });
    expect(r.code).toBe(3);
    expect(r.stdout.split('\n')[0]).toMatch(
      /^Invalid: the query parameters were signed in the order they were sent.*Fix: sort the parameters/,
    );
    expect(r.stdout).not.toContain(SECRET);
  });

  it('a file that is not an HTTP request is a usage error with what to do', async () => {
    const file = join(sandbox.dir, 'bad.http');
    writeFileSync(file, 'hello world\n');
    const res = await diagnoseRun(['sign', 'diagnose', '--request', file], { env });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/request line/);
    expect(res.stderr).toMatch(/blank line/);
  });
});

describe('sign diagnose never prints a working signature unless asked', () => {
  const valid = wrongSign(POST_CARD, []);
  const invalid = wrongSign(POST_CARD, ['body_pretty_printed']);

  it('an invalid request: the expected signature is cut to 6 characters, text and --json', async () => {
    const file = join(sandbox.dir, 'paste.http');
    writeFileSync(file, rawHttp(POST_CARD, invalid));
    const text = await diagnoseRun(['sign', 'diagnose', '--request', file, '--now', TS], { env });
    expect(text.code).toBe(3);
    expect(text.stdout + text.stderr).not.toContain(valid);
    expect(text.stdout).toContain(`expected X-Signature: ${valid.slice(0, 6)}…`);
    expect(text.stdout).toMatch(/--show-valid-signature/);
    expect(text.stdout).toMatch(
      new RegExp(`received X-Signature: ${invalid.replace(/[+/]/g, '\\$&')} \\(differs from character \\d+ on\\)`),
    );
    const json = await diagnoseText(rawHttp(POST_CARD, invalid));
    expect(json.stdout + json.stderr).not.toContain(valid);
    expect(json.json.first_difference).toBeGreaterThan(0);
  });

  it('a valid request: the received signature, being valid, is cut too', async () => {
    for (const args of [[], ['--json']]) {
      const file = join(sandbox.dir, 'valid-paste.http');
      writeFileSync(file, rawHttp(POST_CARD, valid));
      const r = await diagnoseRun(['sign', 'diagnose', '--request', file, '--now', TS, ...args], { env });
      expect(r.code).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(valid);
    }
  });

  it('--show-valid-signature prints it whole, and its help says what that gives away', async () => {
    const r = await diagnoseText(rawHttp(POST_CARD, invalid), ['--show-valid-signature']);
    expect(r.json.expected_signature).toBe(valid);
    const text = await diagnoseRun(
      ['sign', 'diagnose', '--request', join(sandbox.dir, 'paste.http'), '--now', TS, '--show-valid-signature'],
      { env },
    );
    expect(text.stdout).toContain(`expected X-Signature: ${valid}\n`);
    const help = await diagnoseRun(['sign', 'diagnose', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(
      /--show-valid-signature print the whole signature the server expects: with the request beside it, that is a request the server accepts/,
    );
  });
});

describe('sign diagnose tries the secrets of the other profiles', () => {
  // profile "test" holds KEY's secret; "live" another key's; the request names KEY but was signed with live's secret
  const LIVE_SECRET = Buffer.from('canary: the live profile secret!').toString('base64');
  const LIVE_KEY = '01JD2Q7N8V3K4M5P6R7S8T9V0X';
  const VAULT_SECRET = Buffer.from('canary: secret from a vault cmd!').toString('base64');
  const VAULT_KEY = '01JD2Q7N8V3K4M5P6R7S8T9V0Y';
  const profiles = makeSandbox();
  const runIn = inProcessRunner(profiles);
  afterAll(() => profiles.cleanup());
  const signedWith = (secret: string, req: WireRequest): string =>
    createHmac('sha256', secret)
      .update(
        [
          req.method,
          req.path,
          '',
          KEY,
          TS,
          NONCE,
          createHash('sha256')
            .update(req.body ?? '')
            .digest('hex'),
        ].join('\n'),
      )
      .digest('base64');
  const secrets = [SECRET, LIVE_SECRET, VAULT_SECRET];

  it('set up: three profiles, one whose secret comes from a command', async () => {
    const add = (name: string, key: string, mode: string, input: string) =>
      runIn(['profiles', 'add', name, '--key-id', key, '--mode', mode, '--secret-stdin'], { input });
    expect((await add('test', KEY, 'test', `${SECRET}\n`)).code).toBe(0);
    expect((await add('live', LIVE_KEY, 'live', `${LIVE_SECRET}\n`)).code).toBe(0);
    writeFileSync(join(profiles.dir, 'vault'), VAULT_SECRET);
    const vault = await runIn([
      'profiles',
      'add',
      'vault',
      '--key-id',
      VAULT_KEY,
      '--mode',
      'live',
      '--secret-command',
      `cat '${join(profiles.dir, 'vault')}'`,
    ]);
    expect(vault.code, vault.stderr).toBe(0);
  });

  async function diagnoseAs(req: WireRequest, secret: string, args: string[] = []) {
    const file = join(profiles.dir, `other-${++fileNo}.http`);
    writeFileSync(file, rawHttp(req, signedWith(secret, req)));
    const text = await runIn(['sign', 'diagnose', '--request', file, '--now', TS, '--profile', 'test', ...args]);
    const json = await runIn([
      'sign',
      'diagnose',
      '--request',
      file,
      '--now',
      TS,
      '--profile',
      'test',
      '--json',
      ...args,
    ]);
    for (const out of [text, json]) for (const s of secrets) expect(out.stdout + out.stderr).not.toContain(s);
    const j = JSON.parse(json.stdout) as {
      found: boolean;
      signed_with_profile?: string;
      mistakes: Array<{ id: string; description: string }>;
    };
    for (const m of j.mistakes) named.add(m.id);
    return { text, json: j };
  }

  it("signed with the live profile's secret, sent with the test key: names profile live", async () => {
    const r = await diagnoseAs(POST_CARD, LIVE_SECRET);
    expect(r.text.code).toBe(3);
    expect(r.json.found).toBe(true);
    expect(r.json.signed_with_profile).toBe('live');
    expect(r.json.mistakes.map((m) => m.id)).toEqual(['signed_with_other_secret']);
    expect(r.text.stdout.split('\n')[0]).toMatch(
      /^Invalid: the request was signed with the secret of profile "live" \(key 01JD2Q7N8V3K4M5P6R7S8T9V0X\), not with the secret of key 01JD2Q7N8V3K4M5P6R7S8T9V0W.*Fix:/,
    );
  });

  it('a profile whose secret comes from a command is tried only with --try-secret-commands', async () => {
    const without = await diagnoseAs(POST_CARD, VAULT_SECRET);
    expect(without.json.found).toBe(false);
    expect(without.text.stdout).toMatch(
      /except profile "vault" \(its secret comes from a command: pass --try-secret-commands/,
    );
    const withFlag = await diagnoseAs(POST_CARD, VAULT_SECRET, ['--try-secret-commands']);
    expect(withFlag.json.found).toBe(true);
    expect(withFlag.json.signed_with_profile).toBe('vault');
  });
});

describe('coverage', () => {
  it('every mistake sign diagnose can name was named by a request made with it above', () => {
    expect([...named].sort()).toEqual(Object.keys(KNOWN_MISTAKES).sort());
  });
});
