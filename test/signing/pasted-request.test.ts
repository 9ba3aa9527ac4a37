// The forms a failing request is pasted in (src/signing/pasted-request.ts): raw HTTP, a curl
// command line ("Copy as cURL", bash's quoting) and a HAR file. The parser alone, then `cardctl
// sign diagnose --request` naming the mistake of a request given in each new form.
import { createHash, createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RawRequestError } from '../../src/signing/raw-request.js';
import { parseCurl, parseHar, parsePastedRequests, pastedForm, shellWords } from '../../src/signing/pasted-request.js';
import { makeSandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

const SECRET = 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=';
const KEY = '01JD2Q7N8V3K4M5P6R7S8T9V0W';
const TS = String(Math.floor(Date.now() / 1000));
const NONCE = '6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f';
const sandbox = makeSandbox();
const run = inProcessRunner(sandbox);
afterAll(() => sandbox.cleanup());

/** A signature written here (independent of src/signing), over the body given. */
function sign(method: string, path: string, query: string, body: string): string {
  const hash = createHash('sha256').update(body).digest('hex');
  return createHmac('sha256', SECRET).update([method, path, query, KEY, TS, NONCE, hash].join('\n')).digest('base64');
}

describe('shell words of a curl command line', () => {
  it("reads '...', \"...\", $'...' with its escapes, backslashes and line continuations", () => {
    expect(shellWords(`curl 'a b' "c \\"d\\" \\$e" $'f\\ng\\x41\\u00e9\\'h' i\\ j \\\n  k`)).toEqual([
      'curl',
      'a b',
      'c "d" $e',
      "f\ngAé'h",
      'i j',
      'k',
    ]);
  });

  it('says which quote is not closed', () => {
    expect(() => shellWords("curl 'abc")).toThrow(RawRequestError);
    expect(() => shellWords("curl $'abc")).toThrow(/\$'...' quote is not closed/);
  });
});

describe('a curl command line', () => {
  it('takes the method, URL, headers and body, the path and query exactly as written', () => {
    const r = parseCurl(
      `curl 'https://api.example.com/api/v1/customers?b=2&a=1' -X PATCH -H 'X-Api-Key: k1' --header="X-Nonce: n" --data-raw '{"a":1}' --compressed -s`,
    );
    expect(r).toMatchObject({ method: 'PATCH', path: '/api/v1/customers', query: 'b=2&a=1' });
    expect(r.headers).toEqual([
      { name: 'X-Api-Key', value: 'k1' },
      { name: 'X-Nonce', value: 'n' },
    ]);
    expect(r.body.toString()).toBe('{"a":1}');
    expect(r.notes.join(' ')).toContain('--compressed');
  });

  it('posts with -d (several joined by &), GETs without; --url names the URL', () => {
    expect(parseCurl(`curl -d a=1 -d b=2 --url http://h/api/v1/x`)).toMatchObject({
      method: 'POST',
      path: '/api/v1/x',
    });
    expect(parseCurl(`curl -d a=1 -d b=2 http://h/api/v1/x`).body.toString()).toBe('a=1&b=2');
    expect(parseCurl(`curl http://h/api/v1/x`).method).toBe('GET');
  });

  it('refuses a body read from a file, and a command without a URL', () => {
    expect(() => parseCurl('curl --data-binary @body.json http://h/api/v1/x')).toThrow(/paste the body itself/);
    expect(() => parseCurl('curl -H "X: y"')).toThrow(/names no URL/);
  });
});

describe('a HAR file', () => {
  const har = (entries: unknown[]) => JSON.stringify({ log: { version: '1.2', entries } });
  it('gives every request to the API, none of the others', () => {
    const list = parseHar(
      har([
        { request: { method: 'GET', url: 'https://h/index.html', headers: [] } },
        {
          request: {
            method: 'GET',
            url: 'https://h/api/v1/cards?x=1',
            headers: [
              { name: 'X-Api-Key', value: 'k' },
              { name: ':authority', value: 'h' },
            ],
          },
        },
        {
          request: {
            method: 'POST',
            url: 'https://h/api/v1/customers',
            headers: [],
            postData: { mimeType: 'application/json', text: '{"a":1}' },
          },
        },
      ]),
    );
    expect(list.map((r) => `${r.method} ${r.path}?${r.query}`)).toEqual([
      'GET /api/v1/cards?x=1',
      'POST /api/v1/customers?',
    ]);
    expect(list[0]!.headers).toEqual([{ name: 'X-Api-Key', value: 'k' }]);
    expect(list[1]!.body.toString()).toBe('{"a":1}');
  });

  it('says what is wrong with JSON that is not a HAR file, or one without API requests', () => {
    expect(() => parseHar('{"a":')).toThrow(/not: a HAR file/);
    expect(() => parseHar('{"log":{}}')).toThrow(/no log.entries/);
    expect(() => parseHar(har([{ request: { method: 'GET', url: 'https://h/' } }]))).toThrow(/no request to the API/);
  });
});

it('tells the three forms apart', () => {
  expect(pastedForm('GET /api/v1/cards HTTP/1.1\n\n')).toBe('http');
  expect(pastedForm('  curl http://h/api/v1/x')).toBe('curl');
  expect(pastedForm('{"log":{"entries":[]}}')).toBe('har');
  expect(parsePastedRequests('GET /api/v1/cards HTTP/1.1\nX-Api-Key: k\n\n')[0]!.path).toBe('/api/v1/cards');
});

describe('sign diagnose --request learns the two new forms', () => {
  const compact = '{"first_name":"Ada"}';
  const pretty = JSON.stringify(JSON.parse(compact), null, 2);
  const env = { CARDCTL_API_SECRET: SECRET, CARDCTL_API_KEY: KEY };
  const headers = (sig: string) => ({ 'X-Api-Key': KEY, 'X-Timestamp': TS, 'X-Nonce': NONCE, 'X-Signature': sig });

  it("a curl command line (the body in $'...' quoting) signed over the pretty-printed body", async () => {
    const sig = sign('POST', '/api/v1/customers', '', pretty);
    const h = Object.entries(headers(sig))
      .map(([k, v]) => `-H '${k}: ${v}'`)
      .join(' \\\n  ');
    const file = join(sandbox.dir, 'copied.curl');
    writeFileSync(
      file,
      `curl 'http://127.0.0.1:4010/api/v1/customers' \\\n  ${h} \\\n  -H 'Content-Type: application/json' \\\n  --data-raw $'{"first_name":"Ad\\x61"}'\n`,
    );
    const r = await run(['sign', 'diagnose', '--request', file, '--json'], { env });
    expect(r.code, r.stderr).toBe(3);
    expect(JSON.parse(r.stdout).mistakes.map((m: { id: string }) => m.id)).toEqual(['body_pretty_printed']);
  });

  it('a HAR file: the first API request diagnosed, the others counted', async () => {
    const sig = sign('GET', '/api/v1/customers', 'a=1&b=2', '');
    const entry = (query: string) => ({
      request: {
        method: 'GET',
        url: `https://h/api/v1/customers?${query}`,
        headers: Object.entries(headers(sig)).map(([name, value]) => ({ name, value })),
      },
    });
    const file = join(sandbox.dir, 'export.har');
    writeFileSync(file, JSON.stringify({ log: { entries: [entry('b=2&a=1'), entry('a=1&b=2')] } }));
    const r = await run(['sign', 'diagnose', '--request', file, '--json'], { env });
    expect(r.code, r.stderr).toBe(0); // the query is sorted by the server too: this signature is right
    const d = JSON.parse(r.stdout);
    expect(d.valid).toBe(true);
    expect(d.warnings.join(' ')).toContain('the HAR file holds 2 requests to the API');
  });

  it('a text in no form says which forms it takes', async () => {
    const file = join(sandbox.dir, 'bad.txt');
    writeFileSync(file, 'curl -H "X: y"\n');
    const r = await run(['sign', 'diagnose', '--request', file], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the curl command names no URL');
    expect(r.stderr).toContain('a curl command line');
  });
});
