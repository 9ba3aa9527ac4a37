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
    res.end(JSON.stringify({ message: HOSTILE, errors: { field: [HOSTILE] } }));
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
