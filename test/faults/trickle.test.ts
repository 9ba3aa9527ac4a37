// Issue 22, item 3: one deadline per attempt covers the whole body. A real loopback server sends
// the headers, then a chunked body one byte at a time, never ending: the body timer of old
// restarted on every chunk and held commands forever. With CARDCTL_TIMEOUT=1 a read ends exit 8,
// a money command exit 7 (outcome unknown: the request was sent) with the key to replay.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let server: Server;
let base: string;
let sb: Sandbox;
const open = new Set<ServerResponse>();
const timers = new Set<NodeJS.Timeout>();

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    open.add(res);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.write('{');
    const t = setInterval(() => res.write(' '), 100);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
      open.delete(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
  sb = makeSandbox();
});
afterAll(async () => {
  for (const t of timers) clearInterval(t);
  for (const res of open) res.destroy();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  sb?.cleanup();
});

const env = (): Record<string, string> => ({
  CARDCTL_BASE_URL: base,
  CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  CARDCTL_API_SECRET: Buffer.alloc(32, 9).toString('base64'),
  CARDCTL_MODE: 'test',
  CARDCTL_TIMEOUT: '1',
});

describe('a server that trickles its body forever', () => {
  it('a read ends at the deadline: exit 8, "no answer ... in time"', async () => {
    const r = await sb.run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--retries', '0'], {
      env: env(),
      timeoutMs: 25_000,
    });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toMatch(/in time|BODY_TIMEOUT/);
  });

  it('a money command ends at the deadline: exit 7, the idempotency key to replay', async () => {
    // --yes: this server cannot tell the key's mode either (its answer to the mode question trickles too), so the key counts as live
    const r = await sb.run(
      [
        'cards',
        'recharge',
        '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        '--amount',
        '100',
        '--idempotency-key',
        'trickle-1',
        '--retries',
        '0',
        '--yes',
      ],
      { env: env(), timeoutMs: 25_000 },
    );
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toContain('trickle-1');
  });

  it('smoke still writes its JUnit file, the failure in it', async () => {
    const junit = join(sb.dir, 'smoke.xml');
    const r = await sb.run(['smoke', '--junit', junit], { env: env(), timeoutMs: 90_000 });
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.code).not.toBe(128);
    expect(existsSync(junit), r.stderr).toBe(true);
    expect(readFileSync(junit, 'utf8')).toContain('<failure');
  });

  it('webhooks test against a receiver that answers 200 and trickles its body: every case ends at --timeout, the JUnit file is written', async () => {
    const junit = join(sb.dir, 'webhooks.xml');
    const receiver = base.replace(/\/api\/v1$/, '/hooks');
    const r = await sb.run(['webhooks', 'test', receiver, '--timeout', '1', '--junit', junit], {
      env: { CARDCTL_WEBHOOK_SECRET: 'whsec_trickle_0123456789' },
      timeoutMs: 90_000,
    });
    expect(r.code, r.stderr).not.toBe(0);
    expect(r.code).not.toBe(128);
    expect(existsSync(junit), r.stderr).toBe(true);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuite[^>]* tests="\d+"/);
    expect(xml).toContain('<failure');
    expect(xml + r.stdout + r.stderr).not.toContain('whsec_trickle_0123456789');
  });
});
