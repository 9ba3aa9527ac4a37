// Issue 30: every string from outside (server answers, request bodies, webhook payloads) passes
// one escaping step (src/terminal-text.ts) before a terminal, in each command family: the list
// hint quoting a server's `next_cursor`, doctor's lines quoting the server's error messages,
// `webhooks listen` printing a delivery's data, `mock requests` and `mock requests show` printing
// an unauthenticated request's body, and errors. JSON output keeps the same bytes exact.
// The commands run in this process (test/helpers/in-process.ts); `webhooks listen`, which waits
// for a delivery, is a child process.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { rawRequest, type MockHandle } from '../helpers/api.js';
import { BIN, ROOT, makeSandbox, type CliOptions, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

/** A title change and a screen clear (OSC, CSI), a C1 CSI, a bidi override and NUL. */
const HOSTILE = 'x\u001b]0;X\u0007\u001b[2J\u009b31m\u202Eevil\u0000';
// every control character but newline and tab, the C1 range and the bidi controls
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let server: Server;
let base: string;
let mock: MockHandle;
let sb: Sandbox;

beforeAll(async () => {
  // answers a list page whose cursor is hostile, and every other request with a hostile error
  server = createServer((req, res) => {
    req.resume();
    res.setHeader('Content-Type', 'application/json');
    if (req.method === 'GET' && req.url?.startsWith('/api/v1/customers')) {
      res.writeHead(200);
      res.end(
        JSON.stringify({
          success: true,
          data: [{ id: '01JD2Q7N8V3K4M5P6R7S8T9V0W', email: 'a@example.com' }],
          meta: { has_more: true, next_cursor: HOSTILE },
        }),
      );
      return;
    }
    res.writeHead(403);
    res.end(JSON.stringify({ success: false, message: HOSTILE, errors: { scope: [HOSTILE] } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  mock = (await startMock({ port: 0, seed: 30, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
});
afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await mock?.close();
  sb?.cleanup();
});

/** The built CLI in this process, in the sandbox. */
const run = (args: string[], options?: CliOptions) => inProcessRunner(sb)(args, options);

const serverEnv = (): Record<string, string> => ({
  CARDCTL_BASE_URL: base,
  CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  CARDCTL_API_SECRET: Buffer.alloc(32, 3).toString('base64'),
  CARDCTL_MODE: 'test',
});
const mockEnv = (): Record<string, string> => ({
  CARDCTL_MOCK_URL: mock.controlUrl,
  CARDCTL_MOCK_TOKEN: mock.controlToken,
  CARDCTL_WEBHOOK_SECRET: mock.webhookSecret,
});

describe('text from outside never reaches a terminal raw', () => {
  it("the list hint quoting the server's next_cursor: escaped; --json keeps the cursor exact", async () => {
    const r = await run(['customers', 'list'], { env: serverEnv() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('More customers: add --cursor x\\x1b]0;X\\x07\\x1b[2J');
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    const json = await run(['customers', 'list', '--json'], { env: serverEnv() });
    expect(JSON.parse(json.stdout).meta.next_cursor).toBe(HOSTILE);
  });

  it("doctor's lines quoting the server's error messages: escaped", async () => {
    const r = await run(['doctor'], { env: serverEnv(), timeoutMs: 60_000 });
    expect(r.stdout).toContain('x\\x1b]0;X\\x07');
    expect(r.stdout + r.stderr).not.toMatch(RAW);
  });

  it('an error quoting the server: escaped on stderr, exact with --json', async () => {
    const r = await run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W'], { env: serverEnv() });
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('\\u{202E}evil\\x00');
    expect(r.stdout + r.stderr).not.toMatch(RAW);
    const json = await run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--json'], { env: serverEnv() });
    expect(JSON.parse(json.stdout).error.message).toContain(HOSTILE);
  });

  it("mock requests and mock requests show: an unauthenticated request's body and path escaped", async () => {
    const body = `{"customer_id":"${HOSTILE}"}\nline2 ${HOSTILE}`; // raw bytes, not JSON's escapes
    const sent = await rawRequest({
      method: 'POST',
      path: `/api/v1/cards?q=${encodeURIComponent(HOSTILE)}`,
      port: mock.port,
      headers: { 'Content-Type': 'application/json' },
      body,
    });
    expect(sent.status).toBe(401);
    const list = await run(['mock', 'requests', '--failed', '--limit', '1'], { env: mockEnv() });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout + list.stderr).not.toMatch(RAW);
    const json = await run(['mock', 'requests', '--failed', '--limit', '1', '--json'], { env: mockEnv() });
    const record = JSON.parse(json.stdout).data[0];
    expect(record.body.text).toBe(body); // exact in JSON
    const show = await run(['mock', 'requests', 'show', record.id], { env: mockEnv() });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('x\\x1b]0;X\\x07\\x1b[2J');
    expect(show.stdout + show.stderr).not.toMatch(RAW);
  });

  it("webhooks listen: a delivery's data escaped on its line; --json keeps it exact", async () => {
    for (const json of [false, true]) {
      const child = spawn(
        process.execPath,
        [BIN, 'webhooks', 'listen', '--mock', '--max-events', '1', ...(json ? ['--json'] : [])],
        {
          cwd: ROOT,
          env: { ...process.env, ...sb.env, ...mockEnv(), NO_COLOR: '1' },
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      const listening = new Promise<void>((resolve) =>
        child.stderr.on(
          'data',
          (d: Buffer) => ((stderr += d.toString()), stderr.includes('Listening on') && resolve()),
        ),
      );
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await listening;
      const trig = await run(['webhooks', 'trigger', 'card.issued', '--data', JSON.stringify({ card_id: HOSTILE })], {
        env: mockEnv(),
      });
      expect(trig.code, trig.stderr).toBe(0);
      expect(await exited, stderr).toBe(0);
      if (json) {
        expect(JSON.parse(stdout.trim().split('\n').at(-1)!).data.card_id).toBe(HOSTILE);
      } else {
        expect(stdout).toContain('card_id=x\\x1b]0;X\\x07\\x1b[2J');
        expect(stdout + stderr).not.toMatch(RAW);
      }
    }
  }, 60_000);
});
