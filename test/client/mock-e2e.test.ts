// `cardctl request` and `cardctl ops` end to end against the embedded mock: real gateway,
// real idempotency, real faults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { approvedCustomer, ctl, wallet, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const run = (args: string[], extra: Record<string, string> = {}) => sb.run(args, { env: { ...env, ...extra } });

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 7, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('request against the mock', () => {
  it('issues a card; the same command retyped with reordered JSON replays instead of charging twice', async () => {
    const customer = await approvedCustomer(mock);
    const before = await wallet(mock, 'test');
    const first = await run([
      'request',
      'POST',
      '/cards',
      '--data',
      `{"amount_minor":1500,"customer_id":"${customer.id}"}`,
      '--idempotency-key',
      'e2e-issue-1',
      '--json',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const cardA = JSON.parse(first.stdout).data;
    expect(cardA).toMatchObject({ customer_id: customer.id, status: 'active' });
    const again = await run([
      'request',
      'POST',
      '/api/v1/cards',
      '--data',
      `{ "customer_id": "${customer.id}", "amount_minor": 1500 }`,
      '--idempotency-key',
      'e2e-issue-1',
      '--json',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).data.id).toBe(cardA.id);
    const after = await wallet(mock, 'test');
    expect(before.balance_minor - after.balance_minor).toBe(
      1500 + (mock.products.find((p) => p.default)?.issue_fee_minor ?? 0),
    );

    const got = await run(['request', 'GET', `/cards/${cardA.id}`]);
    expect(got.code).toBe(0);
    expect(JSON.parse(got.stdout).data.id).toBe(cardA.id);
  });

  it('a 500 after commit exits 7 and stays unresolved; `ops replay` reveals the outcome without a second charge', async () => {
    const customer = await approvedCustomer(mock);
    const issued = await run([
      'request',
      'POST',
      '/cards',
      '--data',
      `{"customer_id":"${customer.id}","amount_minor":1000}`,
      '--json',
    ]);
    const card = JSON.parse(issued.stdout).data;
    await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: '500_after_commit', count: 1 });
    const before = await wallet(mock, 'test');
    const r = await run([
      'request',
      'POST',
      `/cards/${card.id}/recharge`,
      '--data',
      '{"amount":250}',
      '--retries',
      '0',
    ]);
    expect(r.code, r.stderr).toBe(7);
    const key = /Idempotency-Key: (\S+)/.exec(r.stderr)![1]!;
    const unresolved = JSON.parse((await run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout)
      .data as Array<{ id: string; idempotency_key: string }>;
    const op = unresolved.find((e) => e.idempotency_key === key)!;
    expect(op).toBeDefined();

    const replay = await run(['ops', 'replay', op.id, '--json']);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).data).toMatchObject({ id: card.id, balance_minor: card.balance_minor + 250 });
    expect((await wallet(mock, 'test')).balance_minor).toBe(before.balance_minor - 250);
    const shown = JSON.parse((await run(['ops', 'show', op.id, '--json'])).stdout);
    expect(shown).toMatchObject({ outcome: 'resolved', status: 200 });
  });

  it('a failed replay (401) leaves a lost answer unknown; resending with the same key, as the hint says, resolves it, charged once', async () => {
    const customer = await approvedCustomer(mock);
    const issued = await run([
      'request',
      'POST',
      '/cards',
      '--data',
      `{"customer_id":"${customer.id}","amount_minor":1000}`,
      '--json',
    ]);
    const card = JSON.parse(issued.stdout).data;
    await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: '500_after_commit', count: 1 });
    const before = await wallet(mock, 'test');
    const command = [
      'request',
      'POST',
      `/cards/${card.id}/recharge`,
      '--data',
      '{"amount":300}',
      '--idempotency-key',
      'e2e-resend-1',
    ];
    const lost = await run([...command, '--retries', '0']);
    expect(lost.code, lost.stderr).toBe(7);
    const id = /`cardctl ops replay (op_\w+)`/.exec(lost.stderr)?.[1];
    expect(id).toBeDefined();

    // a replay the gateway refuses (a secret that does not belong to the key) tells nothing
    expect((await run(['ops', 'replay', id!], { CARDCTL_API_SECRET: mock.keys.live.secret })).code).toBe(3);
    const stillUnknown = JSON.parse((await run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout)
      .data as Array<{ id: string }>;
    expect(stillUnknown.map((e) => e.id)).toContain(id);

    const resent = await run([...command, '--json']);
    expect(resent.code, resent.stderr).toBe(0);
    expect(JSON.parse(resent.stdout).data.balance_minor).toBe(card.balance_minor + 300);
    expect((await wallet(mock, 'test')).balance_minor).toBe(before.balance_minor - 300);
    const after = JSON.parse((await run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout).data as Array<{
      idempotency_key: string;
    }>;
    expect(after.map((e) => e.idempotency_key)).not.toContain('e2e-resend-1');
    expect(JSON.parse((await run(['ops', 'show', id!, '--json'])).stdout)).toMatchObject({
      outcome: 'resolved',
      status: 200,
    });
  });

  it("maps the mock's refusals to exit codes: 404, 422 validation, wrong secret", async () => {
    expect((await run(['request', 'GET', '/cards/01J0000000000000000000NONE'])).code).toBe(4);
    const bad = await run(['request', 'POST', '/cards/01J0000000000000000000NONE/recharge', '--data', '{"amount":0}']);
    expect(bad.code).toBe(2); // spec: validation is evaluated before the operation (404)
    expect(bad.stderr).toMatch(/Validation failed/);
    const wrong = await run(['request', 'GET', '/customers'], { CARDCTL_API_SECRET: mock.keys.live.secret });
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(/invalid_signature/);
  });
});
