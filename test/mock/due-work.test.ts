// What falls due on the simulated clock (a KYC step, a delivery's 30 days of history) is found from
// indexes, not by scanning the state on every tick (bench/mock-state.mjs measures the cost). These
// tests check that the indexes stay right across the ways a state is replaced: a snapshot restore,
// a reset, and a restart from a --state file, and across a delivery ended by removing its endpoint.
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMock, type MockServer } from '../../src/mock/index.js';
import { advance, control, createCustomer, ctl, events } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-due-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR = 3600;
const DAY = 24 * HOUR;
const deliveryCount = async (mock: MockServer) =>
  ((await ctl(mock, 'GET', '/state')) as { webhook_deliveries: number }).webhook_deliveries;
const kycEvents = async (mock: MockServer, customerId: string) =>
  (await events(mock))
    .filter(
      (e) => e.type.startsWith('customer.kyc.') && (e.data as { customer_id?: string }).customer_id === customerId,
    )
    .map((e) => e.type);

type Delivery = { endpoint_id: string; event_id: string; state: string; attempts: unknown[] };
async function waitForDeliveries(mock: MockServer, done: (log: Delivery[]) => boolean): Promise<Delivery[]> {
  const end = Date.now() + 10_000;
  for (;;) {
    const log = (await ctl(mock, 'GET', '/webhook-deliveries')) as Delivery[];
    if (done(log)) return log;
    if (Date.now() > end) throw new Error(`deliveries never settled: ${JSON.stringify(log)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('work that falls due, after the state was replaced', () => {
  it('a live customer left unread gets its verdict from the clock alone: as it runs, after a snapshot restore, after a restart', async () => {
    const stateFile = join(dir, 'kyc', 'state.json');
    let mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0 });
    const verdictByClock = async (customerId: string) => {
      await advance(mock, 60); // submitted
      await advance(mock, 60); // decided (bvn: 5 s after submission)
      return kycEvents(mock, customerId);
    };
    try {
      await advance(mock, 1); // the mock has been running a while
      const running = await createCustomer(mock, { mode: 'live' });
      expect(await verdictByClock(running.id)).toEqual(['customer.kyc.pending', 'customer.kyc.approved']);

      const restored = await createCustomer(mock, { mode: 'live' });
      await mock.saveSnapshot('one-waiting');
      await ctl(mock, 'POST', '/reset');
      await mock.restoreSnapshot('one-waiting');
      expect(await verdictByClock(restored.id)).toEqual(['customer.kyc.pending', 'customer.kyc.approved']);

      const restarted = await createCustomer(mock, { mode: 'live' });
      await mock.close();
      mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0 });
      expect(await verdictByClock(restarted.id)).toEqual(['customer.kyc.pending', 'customer.kyc.approved']);
    } finally {
      await mock.close();
    }
  });

  it('delivery history runs out 30 days after each delivery last moved, also for one ended by removing its endpoint, and after a restore', async () => {
    const sink = http.createServer((req, res) => req.resume().on('end', () => res.end()));
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const refused = http.createServer();
    await new Promise<void>((r) => refused.listen(0, '127.0.0.1', r));
    const refusedPort = (refused.address() as { port: number }).port;
    await new Promise<void>((r) => refused.close(() => r())); // nothing listens there now
    const mock = await startMock({
      port: 0,
      providerLatencyMs: 0,
      webhookConnectTimeoutMs: 1000,
      webhookUrls: [`http://127.0.0.1:${(sink.address() as { port: number }).port}/a`],
    });
    try {
      await ctl(mock, 'POST', '/events', { type: 'card.issued' }); // day 0: one delivery, succeeds
      await waitForDeliveries(mock, (log) => log.length === 1 && log[0]!.state === 'succeeded');

      await advance(mock, 10 * DAY);
      const dead = (await ctl(mock, 'POST', '/webhook-endpoints', { url: `http://127.0.0.1:${refusedPort}/b` })) as {
        id: string;
      };
      await ctl(mock, 'POST', '/events', { type: 'card.issued' }); // day 10: succeeds on the sink, fails on the other
      await waitForDeliveries(mock, (log) => log.length === 3 && log.filter((d) => d.attempts.length > 0).length === 3);

      await mock.saveSnapshot('three');
      await ctl(mock, 'POST', '/reset');
      expect(await deliveryCount(mock)).toBe(0);
      await mock.restoreSnapshot('three');
      expect(await deliveryCount(mock)).toBe(3);

      await ctl(mock, 'DELETE', `/webhook-endpoints/${dead.id}`); // its pending delivery (retry not due yet) ends as dead
      const log = (await ctl(mock, 'GET', '/webhook-deliveries')) as Delivery[];
      expect(log.map((d) => d.state).sort()).toEqual(['dead', 'succeeded', 'succeeded']);

      // the log narrowed, as `webhooks trigger` counts an event's deliveries and a user looks for the dead ones
      const secondEvent = log.find((d) => d.endpoint_id === dead.id)!.event_id;
      expect(
        ((await ctl(mock, 'GET', `/webhook-deliveries?event_id=${secondEvent}`)) as Delivery[]).map((d) => d.event_id),
      ).toEqual([secondEvent, secondEvent]);
      expect(
        ((await ctl(mock, 'GET', '/webhook-deliveries?state=dead')) as Delivery[]).map((d) => d.endpoint_id),
      ).toEqual([dead.id]);
      expect(
        (await ctl(mock, 'GET', `/webhook-deliveries?endpoint_id=${dead.id}&state=succeeded`)) as Delivery[],
      ).toEqual([]);
      const wrong = await control(mock, 'GET', '/webhook-deliveries?state=failed');
      expect(wrong.status).toBe(422);
      expect(JSON.stringify(wrong.body)).toContain('pending, succeeded, dead');
      const cli = await runCli(
        ['mock', 'webhook-deliveries', '--state', 'dead', '--json', '--control-url', mock.controlUrl],
        { env: { CARDCTL_MOCK_TOKEN: mock.controlToken } },
      );
      expect(cli.code, cli.stderr).toBe(0);
      expect((JSON.parse(cli.stdout).data as Delivery[]).map((d) => [d.endpoint_id, d.state])).toEqual([
        [dead.id, 'dead'],
      ]);

      await advance(mock, 20 * DAY + HOUR); // day 30 + 1 h: the first one's history ran out
      expect(await deliveryCount(mock)).toBe(2);
      await advance(mock, 10 * DAY - 2 * HOUR); // day 40 - 1 h: the others still have an hour
      expect(await deliveryCount(mock)).toBe(2);
      await advance(mock, 2 * HOUR);
      expect(await deliveryCount(mock)).toBe(0);
    } finally {
      await mock.close();
      await new Promise<void>((r) => sink.close(() => r()));
    }
  });
});
