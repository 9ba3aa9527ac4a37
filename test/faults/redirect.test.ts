// Issue 22, item 7: the API never redirects. A 3xx from the base URL is exit 8 naming the
// location's host (never its path or userinfo), "the API does not redirect: check the base URL";
// the redirect is not followed. A real loopback server answers every request with a redirect.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let server: Server;
let followed = 0;
let base: string;
let sb: Sandbox;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url?.startsWith('/elsewhere')) followed++;
    res.writeHead(req.url?.includes('cards') ? 307 : 302, {
      Location: 'https://user:hunter2@portal.example.com/login?next=%2Fsecret',
    });
    res.end('moved');
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
  CARDCTL_API_SECRET: 'BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc=',
  CARDCTL_MODE: 'test',
});

describe('a redirect from the API', () => {
  it('a read: exit 8, the location host, the advice, never the userinfo or path', async () => {
    const r = await sb.run(['customers', 'list'], { env: env() });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('portal.example.com');
    expect(r.stderr).toContain('the API does not redirect: check the base URL');
    expect(r.stderr).not.toContain('hunter2');
    expect(r.stderr).not.toContain('/login');
    expect(followed).toBe(0);
  });

  it('--json: the error object carries code redirect and status', async () => {
    const r = await sb.run(['customers', 'list', '--json'], { env: env() });
    expect(r.code, r.stderr).toBe(8);
    const e = JSON.parse(r.stdout).error;
    expect(e.status).toBe(302);
    expect(e.code).toBe('redirect');
    expect(r.stdout).not.toContain('hunter2');
  });
});
