// Faults reach every operation and more kinds (issue 11, item 4; PRODUCT.md control plane): a
// 500 on a call that moves no money is exit 8; 503, 500, drop and slow on any operation; a
// combination that cannot happen is a clear 422. The built CLI and signed requests against the mock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  apiCall,
  approvedCustomer,
  control,
  ctl,
  customerInput,
  wallet,
  type MockHandle,
} from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 51, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
    CARDCTL_MOCK_URL: mock.controlUrl,
    CARDCTL_MOCK_TOKEN: mock.controlToken,
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

const customersCount = async (): Promise<number> =>
  ((await ctl(mock, 'GET', '/state')) as { customers: number }).customers;

describe('faults on operations that move no money', () => {
  it('customers.get 500 (added with the CLI): exit 8, the service failed, retry later; the next call works', async () => {
    const c = await approvedCustomer(mock);
    const add = await sb.run(['mock', 'faults', 'add', '--operation', 'customers.get', '--kind', '500', '--json'], {
      env,
    });
    expect(add.code, add.stderr).toBe(0);
    expect(JSON.parse(add.stdout)).toMatchObject({ operation: 'customers.get', kind: '500', remaining: 1 });
    const r = await sb.run(['customers', 'get', c.id], { env });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('the service failed (500)');
    expect(r.stderr).not.toMatch(/report it/);
    expect((await sb.run(['customers', 'get', c.id], { env })).code).toBe(0);
  });

  it('503 on cards.get: exit 8', async () => {
    const card = await activeCard(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'cards.get', kind: '503' });
    const r = await sb.run(['cards', 'get', card.id, '--retries', '0'], { env });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('503');
  });

  it('drop on customers.create: the customer is created, the connection closes without an answer', async () => {
    const before = await customersCount();
    await ctl(mock, 'POST', '/faults', { operation: 'customers.create', kind: 'drop' });
    await expect(apiCall(mock, { method: 'POST', path: '/customers', body: customerInput() })).rejects.toThrow();
    expect(await customersCount()).toBe(before + 1);
  });

  it('slow on cards.get: answered later, past a client timeout shorter than the delay', async () => {
    const card = await activeCard(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'cards.get', kind: 'slow', ms: 3000 });
    const late = await sb.run(['cards', 'get', card.id, '--retries', '0'], {
      env: { ...env, CARDCTL_TIMEOUT_MS: '300' },
    });
    expect(late.code, late.stderr).toBe(8);
    expect(late.stderr).toContain('no answer');
    expect((await sb.run(['cards', 'get', card.id], { env })).code).toBe(0); // used up
  });
});

describe('the new kinds on money operations', () => {
  it('500 on recharge: nothing done (the wallet and the card do not move); exit 7 with the key', async () => {
    const card = await activeCard(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: '500' });
    const before = await wallet(mock);
    const r = await sb.run(
      ['cards', 'recharge', card.id, '--amount', '100', '--idempotency-key', 'f500-1', '--retries', '0'],
      { env },
    );
    expect(r.code, r.stderr).toBe(7);
    expect((await wallet(mock)).balance_minor).toBe(before.balance_minor);
    // the same key succeeds once, as the fault is used up and the 500 was not stored
    const again = await sb.run(
      ['cards', 'recharge', card.id, '--amount', '100', '--idempotency-key', 'f500-1', '--json'],
      { env },
    );
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).balance_minor).toBe(card.balance_minor + 100);
  });

  it('drop on cards.recharge (operation name): done, no answer; exit 7; the replay shows it done once', async () => {
    const card = await activeCard(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'cards.recharge', kind: 'drop' });
    const r = await sb.run(
      ['cards', 'recharge', card.id, '--amount', '40', '--idempotency-key', 'fdrop-1', '--retries', '0'],
      { env },
    );
    expect(r.code, r.stderr).toBe(7);
    const again = await sb.run(
      ['cards', 'recharge', card.id, '--amount', '40', '--idempotency-key', 'fdrop-1', '--json'],
      { env },
    );
    expect(JSON.parse(again.stdout).balance_minor).toBe(card.balance_minor + 40);
  });
});

describe('a combination that cannot happen is refused with 422', () => {
  it.each([
    [{ operation: 'recharge', kind: 'issue_failed' }, 'kind', /issue only/],
    [{ operation: 'customers.get', kind: 'async_202' }, 'kind', /money operations/],
    [{ operation: 'cards.get', kind: 'slow' }, 'ms', /required with the kind slow/],
    [{ operation: 'cards.get', kind: '503', ms: 10 }, 'ms', /slow only/],
    [{ operation: 'customers.nope', kind: '503' }, 'operation', /customers\.get/],
    [{ operation: 'any', kind: 'slow', ms: 0 }, 'ms', /from 1 to 60000/],
  ])('%j', async (body, field, message) => {
    const res = await control(mock, 'POST', '/faults', body);
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Validation failed.');
    expect(String(res.body.errors[field])).toMatch(message);
  });

  it('the CLI shows the refusal and exits 2', async () => {
    const r = await sb.run(['mock', 'faults', 'add', '--operation', 'customers.list', '--kind', 'issue_failed'], {
      env,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('issue only');
  });
});
