// The control plane's reads of the records (for the console and scripts): merchants with their
// keys and never a secret, customers, cards, card activity, deposits; and clearing faults
// (`DELETE /_mock/faults[/ID]`, `cardctl mock faults clear`). The real mock on port 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { MockHandle } from '../helpers/api.js';
import { makeSandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { signedCall } from '../helpers/independent-signer.js';

const sandbox = makeSandbox();
const run = inProcessRunner(sandbox);
let mock: MockHandle;
let env: Record<string, string>;

const control = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${mock.controlUrl}${path}`, {
    method,
    headers: { Authorization: `Bearer ${mock.controlToken}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, text: await res.text() };
};

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 41, providerLatencyMs: 0 })) as unknown as MockHandle;
  env = { CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken };
});
afterAll(async () => {
  await mock?.close();
  sandbox.cleanup();
});

describe('the records through the control plane', () => {
  it('merchants with their keys: ids, mode, scopes, never a secret', async () => {
    await control('POST', '/keys/' + mock.keys.test.keyId + '/roll');
    const r = await control('GET', '/merchants');
    expect(r.status).toBe(200);
    const merchants = JSON.parse(r.text).data;
    expect(merchants).toHaveLength(1);
    expect(merchants[0].keys.map((k: { mode: string }) => k.mode).sort()).toEqual(['live', 'test']);
    expect(merchants[0].keys.find((k: { key_id: string }) => k.key_id === mock.keys.test.keyId).rolled).toBe(true);
    for (const secret of [mock.keys.test.secret, mock.keys.live.secret, mock.webhookSecret, mock.controlToken])
      expect(r.text).not.toContain(secret);
    expect(r.text).not.toMatch(/secret/);
  });

  it('customers, cards, card activity and deposits, newest first, with the total', async () => {
    const key = mock.keys.test;
    const created = await signedCall({
      port: mock.port,
      method: 'GET',
      path: '/api/v1/customers',
      keyId: key.keyId,
      secret: key.secret,
    });
    expect(created.status).toBe(200);
    await control('POST', '/deposits', { network: 'trc20', asset_amount: '12.50' });
    await control('POST', '/deposits', { network: 'erc20', asset_amount: '1.00', status: 'pending' });
    const deposits = JSON.parse((await control('GET', '/deposits')).text);
    expect(deposits.meta).toEqual({ total: 2, shown: 2 });
    expect(
      deposits.data.map((d: { network: string; credited_amount_minor: number }) => [
        d.network,
        d.credited_amount_minor,
      ]),
    ).toEqual([
      ['erc20', 0],
      ['trc20', 1250],
    ]);
    for (const list of ['customers', 'cards', 'transactions']) {
      const r = await control('GET', `/${list}`);
      expect(r.status, list).toBe(200);
      expect(JSON.parse(r.text).meta.total, list).toBe(JSON.parse(r.text).data.length);
    }
  });
});

describe('clearing faults', () => {
  it('one by its id, or every one; an unknown id is a 404', async () => {
    const a = JSON.parse((await control('POST', '/faults', { operation: 'issue', kind: '503', count: 2 })).text).data;
    await control('POST', '/faults', { operation: 'recharge', kind: '500', count: 1 });
    const one = await run(['mock', 'faults', 'clear', a.id, '--json'], { env });
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout).data.map((f: { id: string }) => f.id)).toEqual([a.id]);
    expect(
      JSON.parse((await control('GET', '/faults')).text).data.map((f: { operation: string }) => f.operation),
    ).toEqual(['recharge']);
    expect((await run(['mock', 'faults', 'clear', a.id], { env })).code).toBe(4);
    const all = await run(['mock', 'faults', 'clear', '--json'], { env });
    expect(all.code, all.stderr).toBe(0);
    expect(JSON.parse((await control('GET', '/faults')).text).data).toEqual([]);
  });
});
