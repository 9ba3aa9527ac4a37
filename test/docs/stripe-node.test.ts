// docs/webhooks.md, "Verifying with stripe-node": the receiver of examples/stripe-receiver.mjs,
// built on the real `stripe` package (a devDependency), verifies real deliveries of the mock and
// passes `cardctl webhooks test` (every event accepted; forged, stale, future and re-serialized
// deliveries refused). And the pitfall it avoids, shown on the same delivery: stripe-node given
// the spec's header as it is (`t=..., v1=...`) finds no signature.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { startMock } from '../../src/mock/index.js';
import { ctl, type MockHandle } from '../helpers/api.js';
import { makeSandbox, ROOT, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let receiver: ChildProcess;
let url: string;
const lines: string[] = [];

beforeAll(async () => {
  sb = makeSandbox();
  // the mock, then the receiver with the mock's signing secret, registered as an endpoint
  mock = (await startMock({ port: 0, seed: 21, providerLatencyMs: 0 })) as unknown as MockHandle;
  const secret = mock.webhookSecret;
  receiver = spawn(process.execPath, [join(ROOT, 'examples', 'stripe-receiver.mjs'), '0'], {
    cwd: ROOT,
    env: { ...process.env, WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = createInterface({ input: receiver.stdout! });
  url = await new Promise<string>((resolve, reject) => {
    rl.on('line', (l) => {
      lines.push(l);
      const m = /^listening on (\S+)$/.exec(l);
      if (m) resolve(m[1]!);
    });
    receiver.once('exit', (c) => reject(new Error(`the receiver exited (${c})`)));
  });
  await ctl(mock, 'POST', '/webhook-endpoints', { url });
});
afterAll(async () => {
  await mock?.close();
  if (receiver && receiver.exitCode === null) {
    const gone = new Promise((r) => receiver.once('exit', r));
    receiver.kill('SIGTERM');
    await gone;
  }
  sb?.cleanup();
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('verifying with stripe-node', () => {
  it("the mock's delivery is verified by the example receiver", async () => {
    await ctl(mock, 'POST', '/events', { type: 'card.issued', data: { card_id: '01JD2QA1B2C3D4E5F6G7H8J9KM' } });
    await until(() => lines.includes('verified card.issued'), 'the verified delivery');
    expect(lines.filter((l) => l.startsWith('refused'))).toEqual([]);
  });

  it('the receiver passes `cardctl webhooks test`', async () => {
    const r = await sb.run(['webhooks', 'test', url, '--json'], {
      env: { CARDCTL_WEBHOOK_SECRET: mock.webhookSecret },
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { cases: Array<{ name: string; status: string }> };
    expect(report.cases.filter((c) => c.status === 'failed')).toEqual([]);
    expect(report.cases.some((c) => /future/.test(c.name) && c.status === 'passed')).toBe(true);
  });

  it("stripe-node given the spec's header untrimmed finds no signature (why the example trims)", async () => {
    const { webhookSignature } = await import('../../src/signing/index.js');
    const body = '{"type":"card.issued","occurred_at":"2026-12-01T00:00:00Z","data":{}}';
    const t = Math.floor(Date.now() / 1000);
    const header = `t=${t}, v1=${webhookSignature(mock.webhookSecret, body, t)}`;
    expect(() => Stripe.webhooks.constructEvent(body, header, mock.webhookSecret)).toThrow(/No signatures found/);
    const { verifyDelivery } = (await import(join(ROOT, 'examples', 'stripe-receiver.mjs'))) as {
      verifyDelivery: (b: string, h: string, s: string) => { type: string };
    };
    expect(verifyDelivery(body, header, mock.webhookSecret).type).toBe('card.issued');
  });
});
