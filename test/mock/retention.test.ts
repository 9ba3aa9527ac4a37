// Retention on the simulated clock, with --state: stored idempotent replies are forgotten after
// 24 h, webhook delivery records and payloads after 30 days, and the forgetting is saved (a
// restart does not bring them back). Under a steady load the stored replies stay bounded.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMock, type MockServer } from '../../src/mock/index.js';
import { advance, apiCall, approvedCustomer, ctl, expectOk, issueCard, newIdemKey } from '../helpers/api.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-retention-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3600;
const DAY = 24 * HOUR;
const counts = async (mock: MockServer) =>
  (await ctl(mock, 'GET', '/state')) as { idempotency_keys: number; webhook_deliveries: number };

describe('retention on the simulated clock', () => {
  it('stored replies: kept until 24 h, then forgotten (the same key runs again), also after a restart', async () => {
    const stateFile = join(dir, 'idem', 'state.json');
    let mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0 });
    try {
      const card = expectOk(
        await issueCard(mock, { customerId: (await approvedCustomer(mock)).id, amount: 1000 }),
        201,
      );
      const recharge = () =>
        apiCall(mock, {
          method: 'POST',
          path: `/cards/${card.id}/recharge`,
          body: { amount: 10 },
          idempotencyKey: 'kept-a-day',
        });
      expect(expectOk(await recharge()).balance_minor).toBe(1010);
      const stored = (await counts(mock)).idempotency_keys;
      expect(stored).toBeGreaterThanOrEqual(2); // the issue and the recharge

      await advance(mock, DAY - 60);
      expect((await counts(mock)).idempotency_keys).toBe(stored);
      expect(expectOk(await recharge()).balance_minor).toBe(1010); // a replay

      await advance(mock, 120);
      expect((await counts(mock)).idempotency_keys).toBe(0);
      await mock.close();
      mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0 });
      expect((await counts(mock)).idempotency_keys).toBe(0);
      expect(expectOk(await recharge()).balance_minor).toBe(1020); // forgotten: it runs again
    } finally {
      await mock.close();
    }
  });

  it('webhook delivery records and payloads: kept 30 days after the last attempt, then gone, also after a restart', async () => {
    const server = http.createServer((req, res) => req.resume().on('end', () => res.end()));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
    const stateFile = join(dir, 'hooks', 'state.json');
    let mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0, webhookUrls: [url] });
    try {
      await ctl(mock, 'POST', '/events', { type: 'card.issued' });
      const end = Date.now() + 10_000;
      for (;;) {
        const log = (await ctl(mock, 'GET', '/webhook-deliveries')) as Array<{ state: string }>;
        if (log.length === 1 && log[0]!.state === 'succeeded') break;
        if (Date.now() > end) throw new Error(`no successful delivery: ${JSON.stringify(log)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await advance(mock, 30 * DAY - HOUR);
      expect((await counts(mock)).webhook_deliveries).toBe(1);
      await advance(mock, 2 * HOUR);
      expect((await counts(mock)).webhook_deliveries).toBe(0);
      await mock.close();
      mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0 });
      expect((await counts(mock)).webhook_deliveries).toBe(0);
    } finally {
      await mock.close();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('under a steady load the stored replies stay bounded (a day of them at most)', async () => {
    const stateFile = join(dir, 'steady', 'state.json');
    const mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0, rateLimit: 1_000_000 });
    try {
      const card = expectOk(
        await issueCard(mock, { customerId: (await approvedCustomer(mock)).id, amount: 1000 }),
        201,
      );
      const seen: number[] = [];
      // 12 rounds of 10 recharges, 6 simulated hours apart: a day holds at most 4 or 5 rounds
      for (let round = 0; round < 12; round++) {
        for (let i = 0; i < 10; i++)
          expectOk(
            await apiCall(mock, {
              method: 'POST',
              path: `/cards/${card.id}/recharge`,
              body: { amount: 1 },
              idempotencyKey: newIdemKey(),
            }),
          );
        await advance(mock, 6 * HOUR);
        seen.push((await counts(mock)).idempotency_keys);
      }
      expect(Math.max(...seen), seen.join(',')).toBeLessThanOrEqual(50);
      expect(seen.at(-1), seen.join(',')).toBeLessThanOrEqual(40);
    } finally {
      await mock.close();
    }
  });
});
