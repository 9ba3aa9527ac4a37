// Webhook delivery (spec "Events", SIGNING.md "Webhook signature" and "delivery schedule"):
// headers, exact body, signature with the endpoint secret and the real time, retries on the
// simulated clock with the same delivery id, at most 7 requests, one copy per endpoint.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { verifyWebhook } from '../../src/signing/index.js';
import { advance, ctl, nowSeconds, type MockHandle } from '../helpers/api.js';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  method: string;
  at: number;
}

/** A loopback receiver answering each delivery with the next status of `plan` (then 200). */
async function receiver(plan: number[] = []) {
  const got: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks), method: req.method ?? '', at: nowSeconds() });
      const status = plan.shift() ?? 200;
      res.writeHead(status, status >= 300 && status < 400 ? { Location: 'http://127.0.0.1:1/' } : {});
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  return { got, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** Bounded wait for something asynchronous the mock does on its own (delivery happens off the request). */
async function until(cond: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (opened.length) await opened.pop()!.close();
});

describe('webhook delivery', () => {
  it('delivers each event to each endpoint: headers, exact body, a valid signature', async () => {
    const a = await receiver();
    const b = await receiver();
    const mock = (await startMock({
      port: 0,
      seed: 131,
      providerLatencyMs: 0,
      webhookUrls: [a.url],
    })) as unknown as MockHandle;
    opened.push(a, b, mock);
    await ctl(mock, 'POST', '/webhook-endpoints', { url: b.url });
    const ev = await ctl(mock, 'POST', '/events', {
      type: 'card.issued',
      data: { card_id: '01JD2QA1B2C3D4E5F6G7H8J9KM' },
    });
    await until(() => a.got.length >= 1 && b.got.length >= 1, 'a delivery to both endpoints');
    for (const r of [a, b]) {
      const d = r.got[0]!;
      expect(d.method).toBe('POST');
      expect(String(d.headers['content-type'])).toMatch(/^application\/json/);
      expect(d.headers['x-service-event']).toBe('card.issued');
      expect(d.headers['x-service-delivery']).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
      const header = String(d.headers['x-service-signature']);
      expect(header).toMatch(/^t=\d+, ?v1=[0-9a-f]{64}$/);
      expect(verifyWebhook({ secret: mock.webhookSecret, header, body: d.body, now: nowSeconds() })).toMatchObject({
        valid: true,
      });
      const body = JSON.parse(d.body.toString('utf8'));
      expect(Object.keys(body).sort()).toEqual(['data', 'occurred_at', 'type']);
      expect(body).toEqual({
        type: 'card.issued',
        occurred_at: ev.occurred_at,
        data: { card_id: '01JD2QA1B2C3D4E5F6G7H8J9KM' },
      });
    }
    expect(a.got[0]!.headers['x-service-delivery']).not.toBe(b.got[0]!.headers['x-service-delivery']);
  });

  it("a real operation's event is delivered (deposit.credited)", async () => {
    const a = await receiver();
    const mock = (await startMock({
      port: 0,
      seed: 132,
      providerLatencyMs: 0,
      webhookUrls: [a.url],
    })) as unknown as MockHandle;
    opened.push(a, mock);
    const dep = await ctl(mock, 'POST', '/deposits', {
      network: mock.networks[0],
      asset_amount: '5',
      status: 'credited',
    });
    await until(
      () => a.got.some((g) => g.headers['x-service-event'] === 'deposit.credited'),
      'deposit.credited delivery',
    );
    const body = JSON.parse(a.got.find((g) => g.headers['x-service-event'] === 'deposit.credited')!.body.toString());
    expect(body.data).toMatchObject({ deposit_id: dep.id, credited_amount_minor: dep.credited_amount_minor });
  });

  it('retries a failure (5xx, then a 3xx) on the simulated clock, same delivery id, signed afresh with the real time', async () => {
    const a = await receiver([500, 302]);
    const mock = (await startMock({
      port: 0,
      seed: 133,
      providerLatencyMs: 0,
      webhookUrls: [a.url],
    })) as unknown as MockHandle;
    opened.push(a, mock);
    await ctl(mock, 'POST', '/events', {
      type: 'withdrawal.requested',
      data: { withdrawal_id: '01JD2QA1B2C3D4E5F6G7H8J9KM', amount_minor: 10, fee_minor: 1 },
    });
    await until(() => a.got.length >= 1, 'the first attempt');
    await advance(mock, 50); // under the first 1-minute backoff
    await new Promise((r) => setTimeout(r, 200));
    expect(a.got).toHaveLength(1);
    await advance(mock, 30); // past 1 min + 20 %
    await until(() => a.got.length >= 2, 'the second attempt (after 1 min)');
    await advance(mock, 5 * 60 * 1.2 + 1);
    await until(() => a.got.length >= 3, 'the third attempt (after 5 min; the 302 counted as a failure)');
    const ids = new Set(a.got.map((g) => g.headers['x-service-delivery']));
    expect(ids.size).toBe(1);
    for (const g of a.got) {
      const v = verifyWebhook({
        secret: mock.webhookSecret,
        header: String(g.headers['x-service-signature']),
        body: g.body,
        now: nowSeconds(),
      });
      expect(v.valid).toBe(true);
      expect(Math.abs((v.timestamp ?? 0) - g.at)).toBeLessThanOrEqual(5); // real time, not the simulated clock
    }
    await advance(mock, 24 * 3600);
    await new Promise((r) => setTimeout(r, 200));
    expect(a.got).toHaveLength(3); // delivered: no more attempts
  });

  it('gives up after 7 requests in all', async () => {
    const a = await receiver(Array(20).fill(503));
    const mock = (await startMock({
      port: 0,
      seed: 134,
      providerLatencyMs: 0,
      webhookUrls: [a.url],
    })) as unknown as MockHandle;
    opened.push(a, mock);
    await ctl(mock, 'POST', '/events', {
      type: 'withdrawal.failed',
      data: { withdrawal_id: '01JD2QA1B2C3D4E5F6G7H8J9KM', amount_minor: 10 },
    });
    await until(() => a.got.length >= 1, 'the first attempt');
    for (const [n, wait] of [
      [2, 60],
      [3, 300],
      [4, 1800],
      [5, 7200],
      [6, 28800],
      [7, 86400],
    ] as const) {
      await advance(mock, Math.ceil(wait * 1.2) + 1);
      await until(() => a.got.length >= n, `attempt ${n}`);
    }
    await advance(mock, 3 * 86400);
    await new Promise((r) => setTimeout(r, 300));
    expect(a.got).toHaveLength(7);
  });
});
