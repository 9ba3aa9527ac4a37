// Parsing failing requests as raw HTTP text, and diagnose's handling of file artefacts.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diagnose, KNOWN_MISTAKES } from '../../src/signing/diagnose.js';
import { describeCanonical, visible } from '../../src/signing/visible.js';
import { headerValue, parseRawRequest, RawRequestError } from '../../src/signing/raw-request.js';

describe('parseRawRequest', () => {
  it('reads CRLF text with Content-Length, ignoring a newline an editor added after the body', () => {
    const r = parseRawRequest(
      'POST /api/v1/cards?b=2&a=1 HTTP/1.1\r\nX-Api-Key: K\r\nContent-Length: 7\r\n\r\n{"a":1}\n',
    );
    expect(r).toMatchObject({
      method: 'POST',
      path: '/api/v1/cards',
      query: 'b=2&a=1',
      bodySource: 'content-length',
      format: 'plain',
    });
    expect(r.body.toString()).toBe('{"a":1}');
    expect(headerValue(r, 'x-api-key')).toBe('K');
  });
  it('reads LF text without Content-Length: the rest of the text is the body', () => {
    const r = parseRawRequest('PATCH /api/v1/customers/1 HTTP/1.1\nX-Nonce: n\n\n{"a": 1}');
    expect(r.body.toString()).toBe('{"a": 1}');
    expect(r.bodySource).toBe('rest');
  });
  it('keeps the body bytes exactly, including invalid UTF-8', () => {
    const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]);
    const r = parseRawRequest(
      Buffer.concat([Buffer.from('POST /api/v1/x HTTP/1.1\r\nContent-Length: 4\r\n\r\n'), body]),
    );
    expect(r.body.equals(body)).toBe(true);
  });
  it('takes an absolute-form target apart, keeping the raw query', () => {
    const r = parseRawRequest('GET https://api.example.com:8443/api/v1/deposits?cursor=ab%2Bc HTTP/1.1\nHost: x\n\n');
    expect(r.path).toBe('/api/v1/deposits');
    expect(r.query).toBe('cursor=ab%2Bc');
    expect(r.body.length).toBe(0);
  });
  it('reads curl -v output: > lines, * and < lines skipped, HTTP/2 lowercase headers', () => {
    const text =
      '* Connected\n> GET /api/v1/cards HTTP/2\n> host: x\n> x-signature: abc=\n> \n* Request completely sent off\n< HTTP/2 401\n< content-type: application/json\n<\n{"message":"x"}\n';
    const r = parseRawRequest(text);
    expect(r.format).toBe('curl');
    expect(headerValue(r, 'X-Signature')).toBe('abc=');
    expect(r.body.length).toBe(0);
  });
  it('decodes a chunked body', () => {
    const r = parseRawRequest(
      'POST /api/v1/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{"a\r\n4\r\n":1}\r\n0\r\n\r\n',
    );
    expect(r.body.toString()).toBe('{"a":1}');
  });
  it('keeps # comment lines before the request line', () => {
    const r = parseRawRequest('# body_sha256: abc\n\nGET /api/v1/x HTTP/1.1\n\n');
    expect(r.comments).toEqual(['body_sha256: abc']);
  });
  it('refuses text that is not a request, saying what is expected', () => {
    expect(() => parseRawRequest('')).toThrow(RawRequestError);
    expect(() => parseRawRequest('hello world, how are you')).toThrow(/request line/);
    expect(() => parseRawRequest('GET cards HTTP/1.1\n\n')).toThrow(/must start with "\/"/);
    expect(() => parseRawRequest('GET /api/v1/x HTTP/1.1\nnot a header\n\n')).toThrow(/blank line/);
  });
});

const SECRET = 'sek';
function signed(body: string, fileBody = body, extra = ''): string {
  const hash = createHash('sha256').update(body).digest('hex');
  const canonical = ['POST', '/api/v1/cards', '', 'K', '1763800000', 'N', hash].join('\n');
  const sig = createHmac('sha256', SECRET).update(canonical).digest('base64');
  return `POST /api/v1/cards HTTP/1.1\nX-Api-Key: K\nX-Timestamp: 1763800000\nX-Nonce: N\nX-Signature: ${sig}\n${extra}\n${fileBody}`;
}

describe('diagnose, in process', () => {
  it('accepts a body whose file has an extra final newline (no Content-Length), with a warning', () => {
    const d = diagnose({ request: signed('{"a":1}', '{"a":1}\n'), secret: SECRET, now: 1763800000 });
    expect(d.valid).toBe(true);
    expect(d.warnings.join(' ')).toMatch(/final newline/);
  });
  it('reads the client canonical string from a comment when no known mistake explains it', () => {
    const canonical = [
      'POST',
      '/api/v1/cards',
      'weird',
      'K',
      '1763800000',
      'N',
      createHash('sha256').update('').digest('hex'),
    ].join('\n');
    const sig = createHmac('sha256', SECRET).update(canonical).digest('base64');
    const text = `# canonical: ${JSON.stringify(canonical)}\nPOST /api/v1/cards HTTP/1.1\nX-Api-Key: K\nX-Timestamp: 1763800000\nX-Nonce: N\nX-Signature: ${sig}\n\n`;
    const d = diagnose({ request: text, secret: SECRET });
    expect(d.found).toBe(true);
    expect(d.mistakes[0]!.id).toBe('canonical_differs');
    expect(d.mistakes[0]!.description).toContain('field 3 QUERY_STRING is "weird"');
  });
  it('warns when the request names another key than the secret belongs to', () => {
    const d = diagnose({ request: signed(''), secret: SECRET, keyId: 'OTHER' });
    expect(d.warnings.join(' ')).toMatch(/belongs to key OTHER/);
  });
  it('every known mistake has a description and a fix', () => {
    for (const [id, m] of Object.entries(KNOWN_MISTAKES)) {
      expect(m.description.length, id).toBeGreaterThan(10);
      expect(m.fix.length, id).toBeGreaterThan(10);
    }
  });
  it('makes invisible characters visible', () => {
    expect(visible('')).toBe('');
    expect(describeCanonical('GET\n/p\n\nk\n1\nn\nh')[2]).toBe('  3 QUERY_STRING (empty)');
    expect(describeCanonical('GET\n/p\n\nk\n1\nn\nh', { marks: true })[2]).toBe('  3 QUERY_STRING ||');
    expect(visible(' a\tb\r\u200b\u00a0 ')).toBe('␠a\\tb\\r\\u{200B}\\u{A0}␠');
  });
});
