// Issue 22, item 5: a server's bytes never reach the terminal raw. A real loopback server answers
// every request with an error whose message holds NUL, BEL and ESC sequences (a title change, a
// colour): human output shows them escaped; JSON output keeps them exact.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

const HOSTILE = 'bad\u001b]0;pwned\u0007\u001b[31mred\u0000end';
let server: Server;
let base: string;
let sb: Sandbox;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(400, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ success: false, message: HOSTILE, errors: { field: [HOSTILE] } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  sb = makeSandbox();
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  sb?.cleanup();
});

const env = (): Record<string, string> => ({
  CARDCTL_BASE_URL: base,
  CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  CARDCTL_API_SECRET: Buffer.alloc(32, 3).toString('base64'),
  CARDCTL_MODE: 'test',
});
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000\u0007\u001b]/;

describe('control characters from a server', () => {
  it('an error for people: escaped, never raw', async () => {
    const r = await sb.run(['customers', 'list'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('bad\\x1b]0;pwned\\x07\\x1b[31mred\\x00end');
  });

  it('the same error with --json: exact', async () => {
    const r = await sb.run(['customers', 'list', '--json'], { env: env() });
    const e = JSON.parse(r.stdout).error;
    expect(e.message).toContain(HOSTILE);
    expect(e.errors.field[0]).toBe(HOSTILE);
  });

  it('the smoke report for people: no raw control character on stdout or stderr', async () => {
    const r = await sb.run(['smoke'], { env: env(), timeoutMs: 60_000 });
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).not.toMatch(RAW);
  });
});

// A server that answers 200 with hostile bytes in the values, a key, and a header (C1 CSI, which
// some terminals read as ESC [): tables, key-value blocks, `request` and --verbose escape them.
describe('control characters in answers that succeed', () => {
  const NAME = 'Ada\u001b[2J\u009b31m\u202eevil\u0007';
  const CUSTOMER = {
    id: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
    first_name: NAME,
    last_name: 'Line\nbreak',
    status: 'active',
    [`x\u001b[31mkey`]: 'v',
  };
  let ok: Server;
  let okBase: string;
  beforeAll(async () => {
    ok = createServer((req, res) => {
      req.resume();
      const list = (req.url ?? '').startsWith('/api/v1/customers?') || req.url === '/api/v1/customers';
      res.writeHead(200, {
        'Content-Type': 'application/json',
        'X-Note': Buffer.from('a\u009b31mb', 'latin1').toString('latin1'),
      });
      res.end(
        JSON.stringify(
          list ? { success: true, data: [CUSTOMER], meta: { has_more: false } } : { success: true, data: CUSTOMER },
        ),
      );
    });
    await new Promise<void>((r) => ok.listen(0, '127.0.0.1', r));
    okBase = `http://127.0.0.1:${(ok.address() as AddressInfo).port}/api/v1`;
  });
  afterAll(async () => {
    await new Promise((r) => ok?.close(r));
  });
  const okEnv = (): Record<string, string> => ({ ...env(), CARDCTL_BASE_URL: okBase });
  // C0 but newline, DEL, C1 and the bidi overrides
  // eslint-disable-next-line no-control-regex
  const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

  it('a table: every cell escaped, one line per row', async () => {
    const r = await sb.run(['customers', 'list'], { env: okEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stdout).toContain('Ada\\x1b[2J\\x9b31m\\u{202E}evil\\x07');
    expect(r.stdout.trim().split('\n')).toHaveLength(2); // the header and one row: "Line\nbreak" made no second row
  });

  it('a key-value block: values and keys escaped', async () => {
    const r = await sb.run(['customers', 'get', CUSTOMER.id], { env: okEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stdout).toMatch(/^first_name +Ada\\x1b\[2J\\x9b31m\\u\{202E\}evil\\x07$/m);
    expect(r.stdout).toMatch(/^last_name +Line\\nbreak$/m);
    expect(r.stdout).toContain('x\\x1b[31mkey');
  });

  it('--verbose and `request --include`: headers and body escaped; the body is still the same JSON', async () => {
    const r = await sb.run(['request', 'GET', '/customers', '--include', '--verbose'], { env: okEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(UNSAFE);
    expect(r.stderr).toMatch(/^< x-note: a\\x9b31mb$/m);
    expect(r.stdout).not.toMatch(UNSAFE);
    expect(r.stdout).toMatch(/^x-note: a\\x9b31mb$/m);
    const body = r.stdout.slice(r.stdout.indexOf('\n\n') + 2);
    expect(JSON.parse(body).data[0].first_name).toBe(NAME);
  });

  it('--json stays exact', async () => {
    const list = await sb.run(['customers', 'list', '--json'], { env: okEnv() });
    expect(JSON.parse(list.stdout).data[0].first_name).toBe(NAME);
    const get = await sb.run(['customers', 'get', CUSTOMER.id, '--json'], { env: okEnv() });
    expect(JSON.parse(get.stdout).first_name).toBe(NAME);
    expect(get.stdout).toContain('\u009b'); // JSON.stringify keeps C1 characters as they are
  });
});
