// The mock keeps an idle connection open 30 s (src/mock/server.ts), not Node's 5 s: a client's
// keep-alive pool (Node's default agent since Node 19) that reuses a connection the server is
// closing as idle gets ECONNRESET for a request the server never read, and a test suite pausing
// a few seconds between calls hit it. A connection left idle 6 s is still the one reused.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { MockHandle } from '../helpers/api.js';

let mock: MockHandle;
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 5, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => {
  agent.destroy();
  await mock?.close();
});

/** GET /_mock/state with the control token; whether the request went on a connection used before. */
const get = (): Promise<{ status: number; reused: boolean }> =>
  new Promise((resolve, reject) => {
    const url = new URL(`${mock.controlUrl}/state`);
    const req = http.get(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        agent,
        headers: { Authorization: `Bearer ${mock.controlToken}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket }));
      },
    );
    req.on('error', reject);
  });

describe('an idle kept-alive connection to the mock', () => {
  it('is still open after 6 s idle: the next request reuses it', { timeout: 30_000 }, async () => {
    expect(await get()).toEqual({ status: 200, reused: false });
    await new Promise((r) => setTimeout(r, 6_000));
    expect(await get()).toEqual({ status: 200, reused: true });
  });
});
