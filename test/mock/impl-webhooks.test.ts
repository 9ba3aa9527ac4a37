// Webhook delivery, the parts spec-webhooks.test.ts leaves out: a 3xx is a failure and is not
// followed, refused connections and timeouts fail, jitter stays within 0-20 %, 7 requests then
// dead with the endpoint disabled (and re-enabled by the control plane), one copy per endpoint,
// a slow endpoint delays nobody, registration rules, close() aborts an attempt which a
// `--state` restart then makes again with the same delivery id.
import http from 'node:http';
import { promises as dns } from 'node:dns';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startMock, type StartMockOptions } from '../../src/mock/index.js';
import { BACKOFF_MS, backoffMs, jitterFraction } from '../../src/mock/webhooks.js';
import { verifyWebhook } from '../../src/signing/index.js';
import { advance, control, ctl, newMerchant, nowSeconds, type MockHandle } from '../helpers/api.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** Loopback receiver: answers with the next status of `plan` (then 200); `hang` never answers. */
async function receiver(plan: number[] = [], opts: { hang?: boolean; location?: string } = {}) {
  const got: Received[] = [];
  let aborted = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      if (opts.hang) {
        res.on('close', () => (aborted += 1));
        return;
      }
      const status = plan.shift() ?? 200;
      res.writeHead(status, opts.location ? { Location: opts.location } : {});
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  return {
    got,
    url,
    aborted: () => aborted,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seconds = (iso: string) => Date.parse(iso) / 1000;

interface Delivery {
  id: string;
  endpoint_id: string;
  url: string;
  event_id: string;
  event_type: string;
  state: 'pending' | 'succeeded' | 'dead';
  attempts: Array<{ at: string; sent_at: string; status: number | null; error: string | null; duration_ms: number }>;
  next_attempt_at: string | null;
}

const deliveries = (mock: MockHandle) => ctl<Delivery[]>(mock, 'GET', '/webhook-deliveries');

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (opened.length) await opened.pop()!.close();
});
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function mockWith(urls: string[], extra: Partial<StartMockOptions> = {}): Promise<MockHandle> {
  const mock = (await startMock({
    port: 0,
    providerLatencyMs: 0,
    webhookUrls: urls,
    ...extra,
  })) as unknown as MockHandle;
  opened.push(mock);
  return mock;
}

const emit = (mock: MockHandle, body: Record<string, unknown> = {}) =>
  ctl(mock, 'POST', '/events', {
    type: 'withdrawal.failed',
    data: { withdrawal_id: '01JD2QA1B2C3D4E5F6G7H8J9KM', amount_minor: 10 },
    ...body,
  });

describe('webhook delivery: failures', () => {
  it('a 3xx is a failed attempt and the redirect is not followed', async () => {
    const target = await receiver();
    const a = await receiver([301], { location: target.url });
    opened.push(target, a);
    const mock = await mockWith([a.url]);
    await emit(mock);
    await until(async () => (await deliveries(mock))[0]?.attempts.length === 1, 'the first attempt in the log');
    const [d] = await deliveries(mock);
    expect(d).toMatchObject({ state: 'pending', url: a.url, event_type: 'withdrawal.failed' });
    expect(d!.attempts[0]).toMatchObject({ status: 301, error: 'redirect not followed' });
    expect(seconds(d!.next_attempt_at!) - seconds(d!.attempts[0]!.at)).toBeGreaterThanOrEqual(59);
    await sleep(200);
    expect(target.got).toHaveLength(0);
  });

  it('a refused connection and a timeout are failed attempts, retried later', async () => {
    const gone = http.createServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const refusedUrl = `http://127.0.0.1:${(gone.address() as { port: number }).port}/hooks`;
    await new Promise<void>((r) => gone.close(() => r()));
    const slow = await receiver([], { hang: true });
    opened.push(slow);
    const mock = await mockWith([refusedUrl, slow.url], { webhookTimeoutMs: 300 });
    await emit(mock);
    await until(
      async () =>
        (await deliveries(mock)).every((d) => d.attempts.length === 1) && (await deliveries(mock)).length === 2,
      'both attempts',
    );
    const log = await deliveries(mock);
    const refused = log.find((d) => d.url === refusedUrl)!;
    const timedOut = log.find((d) => d.url === slow.url)!;
    expect(refused.attempts[0]).toMatchObject({ status: null, error: 'connection refused' });
    expect(timedOut.attempts[0]!.status).toBeNull();
    expect(timedOut.attempts[0]!.error).toMatch(/timeout/);
    for (const d of [refused, timedOut]) {
      expect(d.state).toBe('pending');
      expect(d.next_attempt_at).not.toBeNull();
    }
    await advance(mock, 73);
    const after = await deliveries(mock); // advance answers once the attempts it brought due finished
    for (const d of after) expect(d.attempts, d.url).toHaveLength(2);
  });

  it('7 requests in all, then dead and the endpoint disabled; re-enabling it resumes delivery', async () => {
    const a = await receiver(Array(7).fill(500));
    opened.push(a);
    const mock = await mockWith([a.url]);
    await emit(mock);
    await until(() => a.got.length === 1, 'the first attempt');
    // one jump past the whole schedule: the attempts that fell due inside it go out one after another
    await advance(mock, 4 * 86400);
    expect(a.got).toHaveLength(7);
    expect(new Set(a.got.map((g) => g.headers['x-service-delivery'])).size).toBe(1);
    const [d] = await deliveries(mock);
    expect(d).toMatchObject({ state: 'dead', next_attempt_at: null });
    expect(d!.attempts.map((t) => t.status)).toEqual(Array(7).fill(500));
    // recorded at their scheduled (simulated) times: each wait is its backoff plus 0-20 % jitter
    const at = d!.attempts.map((t) => seconds(t.at));
    for (let i = 1; i < at.length; i++) {
      const base = BACKOFF_MS[i - 1]! / 1000;
      expect(at[i]! - at[i - 1]!, `wait ${i}`).toBeGreaterThanOrEqual(base - 1);
      expect(at[i]! - at[i - 1]!, `wait ${i}`).toBeLessThanOrEqual(base * 1.2 + 1);
    }
    const [ep] = await ctl(mock, 'GET', '/webhook-endpoints');
    expect(ep).toMatchObject({ url: a.url, enabled: false });
    expect(typeof ep.disabled_at).toBe('string');

    await emit(mock);
    await sleep(200);
    expect(a.got).toHaveLength(7); // a disabled endpoint receives nothing
    expect(await deliveries(mock)).toHaveLength(1);

    expect(await ctl(mock, 'POST', `/webhook-endpoints/${ep.id}/enable`)).toMatchObject({
      enabled: true,
      disabled_at: null,
    });
    await emit(mock);
    await until(() => a.got.length === 8, 'a delivery after re-enabling');
    expect((await control(mock, 'POST', '/webhook-endpoints/01JD2QA1B2C3D4E5F6G7H8J9KM/enable')).status).toBe(404);
  });

  it('DELETE /_mock/webhook-endpoints/{id} removes it: no new deliveries, its pending ones end dead, the log keeps them', async () => {
    const a = await receiver(Array(3).fill(500));
    opened.push(a);
    const mock = await mockWith([a.url]);
    await emit(mock);
    await until(() => a.got.length === 1, 'the first attempt');
    const [ep] = await ctl(mock, 'GET', '/webhook-endpoints');
    expect(await ctl(mock, 'DELETE', `/webhook-endpoints/${ep.id}`)).toMatchObject({ id: ep.id, url: a.url });
    expect(await ctl(mock, 'GET', '/webhook-endpoints')).toEqual([]);
    const [d] = await deliveries(mock);
    expect(d).toMatchObject({ state: 'dead', next_attempt_at: null, endpoint_id: ep.id });
    await advance(mock, 86400); // its retries would all be due by now
    await emit(mock);
    await sleep(200);
    expect(a.got).toHaveLength(1);
    expect(await deliveries(mock)).toHaveLength(1);
    expect((await control(mock, 'DELETE', `/webhook-endpoints/${ep.id}`)).status).toBe(404);
  });
});

describe('webhook delivery: schedule', () => {
  it('jitter is 0-20 % of each wait, deterministic for a seed and a delivery', () => {
    const fractions: number[] = [];
    for (let i = 0; i < 300; i++) {
      const id = `01JD2QA1B2C3D4E5F6G7H8J${String(i).padStart(3, '0')}`;
      for (let n = 1; n <= 6; n++) {
        const wait = backoffMs(7, id, n); // simulated wait computed from the seed, not a measured time
        expect(wait).toBeGreaterThanOrEqual(BACKOFF_MS[n - 1]!);
        expect(wait).toBeLessThanOrEqual(BACKOFF_MS[n - 1]! * 1.2);
        expect(backoffMs(7, id, n)).toBe(wait);
        fractions.push(jitterFraction(7, id, n));
      }
    }
    // spread over the whole range, not a constant
    expect(Math.min(...fractions)).toBeLessThan(0.02);
    expect(Math.max(...fractions)).toBeGreaterThan(0.18);
    expect(jitterFraction(8, '01JD2QA1B2C3D4E5F6G7H8J000', 1)).not.toBe(
      jitterFraction(7, '01JD2QA1B2C3D4E5F6G7H8J000', 1),
    );
  });

  it('each delivery waits 1 min plus its own 0-20 % jitter after a first failure', async () => {
    const a = await receiver(Array(6).fill(500));
    opened.push(a);
    const mock = await mockWith([a.url]);
    for (let i = 0; i < 6; i++) await emit(mock);
    await until(async () => {
      const log = await deliveries(mock);
      return log.length === 6 && log.every((d) => d.attempts.length === 1);
    }, 'six first attempts');
    for (const d of await deliveries(mock)) {
      const wait = seconds(d.next_attempt_at!) - seconds(d.attempts[0]!.at);
      expect(wait).toBeGreaterThanOrEqual(59);
      expect(wait).toBeLessThanOrEqual(73);
    }
  });
});

describe('webhook delivery: endpoints', () => {
  it("each endpoint gets its own copy and schedule; other merchants' endpoints get nothing", async () => {
    const a = await receiver([500]);
    const b = await receiver();
    const c = await receiver();
    opened.push(a, b, c);
    const mock = await mockWith([a.url, b.url]);
    const other = await newMerchant(mock);
    await ctl(mock, 'POST', '/webhook-endpoints', { url: c.url, merchant_id: other.merchantId });
    const ev = await emit(mock);
    await until(() => a.got.length === 1 && b.got.length === 1, 'one copy each');
    const log = await deliveries(mock);
    expect(log).toHaveLength(2);
    expect(log.every((d) => d.event_id === ev.id)).toBe(true);
    expect(new Set(log.map((d) => d.endpoint_id)).size).toBe(2);
    expect(a.got[0]!.headers['x-service-delivery']).not.toBe(b.got[0]!.headers['x-service-delivery']);
    expect(log.find((d) => d.url === b.url)!.state).toBe('succeeded');
    await advance(mock, 73);
    expect(a.got).toHaveLength(2);
    expect(b.got).toHaveLength(1);
    expect(c.got).toHaveLength(0);
    // the other merchant's event goes to its endpoint only, signed with its own secret
    await emit(mock, { merchant_id: other.merchantId });
    await until(() => c.got.length === 1, "the other merchant's delivery");
    const g = c.got[0]!;
    expect(
      verifyWebhook({
        secret: other.webhookSecret,
        header: String(g.headers['x-service-signature']),
        body: g.body,
        now: nowSeconds(),
      }).valid,
    ).toBe(true);
    expect(
      verifyWebhook({
        secret: mock.webhookSecret,
        header: String(g.headers['x-service-signature']),
        body: g.body,
        now: nowSeconds(),
      }).valid,
    ).toBe(false);
    await sleep(100);
    expect(a.got).toHaveLength(2);
    expect(b.got).toHaveLength(1);
  });

  it('a slow endpoint delays neither another endpoint nor API calls', async () => {
    const slow = await receiver([], { hang: true });
    const fast = await receiver();
    opened.push(slow, fast);
    const mock = await mockWith([slow.url, fast.url]);
    await emit(mock);
    await until(() => slow.got.length === 1 && fast.got.length === 1, 'both requests');
    expect((await ctl(mock, 'GET', '/state')).webhook_deliveries).toBe(2);
  });

  it('registration: loopback http(s) on any port; elsewhere https on 443 to a public host, no userinfo', async () => {
    // hooks.example.com stands for a public host: this resolver answers a public address for it
    const mock = await mockWith([], {
      lookup: async (host) =>
        host === 'hooks.example.com' ? [{ address: '93.184.215.14', family: 4 }] : dns.lookup(host, { all: true }),
    });
    for (const url of [
      'http://127.0.0.1:9/x',
      'https://localhost:8443/x',
      'http://[::1]:9/x',
      'https://hooks.example.com/x',
      'https://hooks.example.com:443/x',
    ]) {
      expect((await control(mock, 'POST', '/webhook-endpoints', { url })).status, url).toBe(201);
    }
    const refused: Array<[string, RegExp]> = [
      ['http://hooks.example.com/x', /https/],
      ['https://hooks.example.com:8443/x', /port 443/],
      ['https://10.1.2.3/x', /private or reserved/],
      ['https://192.168.0.10/x', /private or reserved/],
      ['https://[fd00::1]/x', /private or reserved/],
      ['https://169.254.169.254/latest', /private or reserved/],
      ['https://intranet/x', /public host/],
      ['https://u:p@hooks.example.com/x', /user name or password/],
      ['http://u@127.0.0.1:9/x', /user name or password/],
      ['ftp://hooks.example.com/x', /https/],
    ];
    for (const [url, why] of refused) {
      const res = await control(mock, 'POST', '/webhook-endpoints', { url });
      expect(res.status, url).toBe(422);
      expect(JSON.stringify(res.body.errors.url), url).toMatch(why);
    }
  });
});

describe('webhook delivery: stopping', () => {
  it('close() aborts an attempt in flight at once; after a --state restart it is made again, same delivery id', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-webhooks-'));
    dirs.push(dir);
    const stateFile = join(dir, 'state.json');
    const slow = await receiver([], { hang: true });
    opened.push(slow);
    const first = (await startMock({
      port: 0,
      providerLatencyMs: 0,
      stateFile,
      webhookUrls: [slow.url],
    })) as unknown as MockHandle;
    await emit(first);
    await until(() => slow.got.length === 1, 'the attempt in flight');
    await first.close();
    // aborted well before the 15 s total timeout
    await until(() => slow.aborted() === 1, 'the receiver to see the request aborted', 3000);

    // the same endpoint URL now answers; the restarted mock finds the delivery pending and due
    const sameUrl = new URL(slow.url);
    await slow.close();
    opened.pop();
    const got: Received[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (ch: Buffer) => chunks.push(ch));
      req.on('end', () => {
        got.push({ headers: req.headers, body: Buffer.concat(chunks) });
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(Number(sameUrl.port), '127.0.0.1', r));
    opened.push({ close: () => new Promise<void>((r) => server.close(() => r())) });
    const second = (await startMock({
      port: 0,
      providerLatencyMs: 0,
      stateFile,
      webhookUrls: [slow.url],
    })) as unknown as MockHandle;
    opened.push(second);
    await until(() => got.length === 1, 'the attempt made again after the restart');
    expect(got[0]!.headers['x-service-delivery']).toBe(slow.got[0]!.headers['x-service-delivery']);
    expect(got[0]!.body.equals(slow.got[0]!.body)).toBe(true);
    await until(async () => (await deliveries(second))[0]?.state === 'succeeded', 'the delivery to succeed');
    const [d] = await deliveries(second);
    expect(d!.attempts).toHaveLength(1); // the aborted attempt left no trace
  });
});
