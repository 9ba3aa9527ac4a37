// Funding: POST/GET /deposit-addresses and GET /deposits response rows, and the deposit states
// (pending, credited, flagged) with their effect on the live wallet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  apiCall,
  ctl,
  events,
  expectError,
  expectNotFound,
  expectOk,
  expectValidation,
  newMerchant,
  wallet,
  walletImbalance,
  type MockHandle,
} from '../helpers/api.js';

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 41, providerLatencyMs: 0 })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

describe('POST /deposit-addresses', () => {
  it('201 new DepositAddress, then 200 with the same one for the same network', async () => {
    const m = await newMerchant(mock);
    const network = mock.networks[0]!;
    const first = await apiCall(mock, { method: 'POST', path: '/deposit-addresses', body: { network }, key: m.live });
    const addr = expectOk(first, 201);
    expect(addr).toMatchObject({ network });
    expect(addr.id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(typeof addr.address).toBe('string');
    expect(typeof addr.asset).toBe('string');
    const again = expectOk(
      await apiCall(mock, { method: 'POST', path: '/deposit-addresses', body: { network }, key: m.live }),
      200,
    );
    expect(again).toEqual(addr);
  });
  it('403 for a test key, errors {} and a message saying live-only', async () => {
    const res = await apiCall(mock, {
      method: 'POST',
      path: '/deposit-addresses',
      body: { network: mock.networks[0] },
      mode: 'test',
    });
    expectError(res, 403);
    expect(res.body.errors).toEqual({});
    expect(res.body.message.toLowerCase()).toContain('live');
  });
  it('422 Validation failed naming the enabled networks for an unknown network', async () => {
    const res = await apiCall(mock, {
      method: 'POST',
      path: '/deposit-addresses',
      body: { network: 'dogecoin' },
      mode: 'live',
    });
    expectValidation(res, 'network');
    const text = res.body.errors.network.join(' ');
    for (const n of mock.networks) expect(text).toContain(n);
  });
  it('422 Validation failed when network is missing', async () => {
    const res = await apiCall(mock, { method: 'POST', path: '/deposit-addresses', body: {}, mode: 'live' });
    expectValidation(res, 'network');
    expect(res.body.errors.network[0]).toMatch(/^The network is required\./);
  });
  it('422 saying the network must be a string (not "is required") for a network that is not a string', async () => {
    for (const network of [5, true, ['trc20'], { name: 'trc20' }]) {
      const res = await apiCall(mock, { method: 'POST', path: '/deposit-addresses', body: { network }, mode: 'live' });
      expectValidation(res, 'network');
      expect(res.body.errors.network[0]).toMatch(/^The network must be a string\./);
    }
  });
  it('422 network not_enabled when the network was turned off meanwhile', async () => {
    const m = await newMerchant(mock);
    const [keep, off] = [mock.networks[0]!, mock.networks[1]!];
    expectOk(
      await apiCall(mock, { method: 'POST', path: '/deposit-addresses', body: { network: off }, key: m.live }),
      201,
    );
    try {
      expect(await ctl(mock, 'PUT', '/networks', { enabled: [keep] })).toMatchObject({ enabled: [keep] });
      const res = await apiCall(mock, {
        method: 'POST',
        path: '/deposit-addresses',
        body: { network: off },
        key: m.live,
      });
      expectError(res, 422, 'network', 'not_enabled');
    } finally {
      await ctl(mock, 'PUT', '/networks', { enabled: mock.networks });
    }
  });
});

describe('GET /deposit-addresses', () => {
  it('200 array ordered by network, one per network, no meta', async () => {
    const m = await newMerchant(mock);
    for (const n of [...mock.networks].reverse()) {
      expectOk(
        await apiCall(mock, { method: 'POST', path: '/deposit-addresses', body: { network: n }, key: m.live }),
        201,
      );
    }
    const res = await apiCall(mock, { method: 'GET', path: '/deposit-addresses', key: m.live });
    const list = expectOk(res);
    expect(list.map((a: any) => a.network)).toEqual([...mock.networks].sort());
    expect(res.body).not.toHaveProperty('meta');
  });
  it('403 for a test key', async () => {
    const res = await apiCall(mock, { method: 'GET', path: '/deposit-addresses', mode: 'test' });
    expectError(res, 403);
    expect(res.body.errors).toEqual({});
  });
});

describe('GET /deposits and deposit states', () => {
  it('credited: the live wallet grows by credited_amount_minor, event deposit.credited', async () => {
    const m = await newMerchant(mock);
    const before = await wallet(mock, 'live', m.merchantId);
    const dep = await ctl(mock, 'POST', '/deposits', {
      merchant_id: m.merchantId,
      network: mock.networks[0],
      asset_amount: '25.5',
      status: 'credited',
    });
    expect(dep).toMatchObject({ status: 'credited', asset_amount: '25.5', network: mock.networks[0] });
    expect(Number.isInteger(dep.credited_amount_minor)).toBe(true);
    expect(dep.credited_amount_minor).toBeGreaterThan(0);
    const after = await wallet(mock, 'live', m.merchantId);
    expect(after.balance_minor - before.balance_minor).toBe(dep.credited_amount_minor);
    expect(after.deposits_credited_minor - before.deposits_credited_minor).toBe(dep.credited_amount_minor);
    expect(walletImbalance(after)).toBe(0);
    const ev = (await events(mock, m.merchantId)).filter((e) => e.type === 'deposit.credited');
    expect(ev).toHaveLength(1);
    expect(ev[0]!.data).toMatchObject({ deposit_id: dep.id, credited_amount_minor: dep.credited_amount_minor });
    expect(ev[0]!.mode).toBe('live');
  });
  it('pending: seen, not credited: wallet unchanged, no deposit.credited event', async () => {
    const m = await newMerchant(mock);
    const before = await wallet(mock, 'live', m.merchantId);
    const dep = await ctl(mock, 'POST', '/deposits', {
      merchant_id: m.merchantId,
      network: mock.networks[0],
      asset_amount: '10',
      status: 'pending',
    });
    expect(dep.status).toBe('pending');
    expect(await wallet(mock, 'live', m.merchantId)).toEqual(before);
    expect((await events(mock, m.merchantId)).filter((e) => e.type === 'deposit.credited')).toHaveLength(0);
  });
  it('flagged: credited and marked for review: the wallet grows', async () => {
    const m = await newMerchant(mock);
    const before = await wallet(mock, 'live', m.merchantId);
    const dep = await ctl(mock, 'POST', '/deposits', {
      merchant_id: m.merchantId,
      network: mock.networks[0],
      asset_amount: '10',
      status: 'flagged',
    });
    expect(dep.status).toBe('flagged');
    const after = await wallet(mock, 'live', m.merchantId);
    expect(after.balance_minor - before.balance_minor).toBe(dep.credited_amount_minor);
    expect(walletImbalance(after)).toBe(0);
  });
  it('200 page of Deposit newest-first with meta; a test wallet is never credited', async () => {
    const m = await newMerchant(mock);
    const testBefore = await wallet(mock, 'test', m.merchantId);
    const ids: string[] = [];
    for (const amount of ['1', '2', '3']) {
      ids.push(
        (
          await ctl(mock, 'POST', '/deposits', {
            merchant_id: m.merchantId,
            network: mock.networks[0],
            asset_amount: amount,
            status: 'credited',
          })
        ).id,
      );
      await ctl(mock, 'POST', '/clock/advance', { seconds: 5 });
    }
    const res = await apiCall(mock, { method: 'GET', path: '/deposits', key: m.live });
    const page = expectOk(res);
    expect(page.map((d: any) => d.id)).toEqual([...ids].reverse());
    expect(res.body.meta).toMatchObject({ per_page: 20, has_more: false });
    expect(await wallet(mock, 'test', m.merchantId)).toEqual(testBefore);
  });
  it('a deposit of another merchant is not listed', async () => {
    const a = await newMerchant(mock);
    const b = await newMerchant(mock);
    await ctl(mock, 'POST', '/deposits', {
      merchant_id: a.merchantId,
      network: mock.networks[0],
      asset_amount: '1',
      status: 'credited',
    });
    expect(expectOk(await apiCall(mock, { method: 'GET', path: '/deposits', key: b.live }))).toEqual([]);
  });
  it('403 for a test key', async () => {
    const res = await apiCall(mock, { method: 'GET', path: '/deposits', mode: 'test' });
    expectError(res, 403);
    expect(res.body.errors).toEqual({});
  });
  it('deposit ids are not readable as another resource (404)', async () => {
    const dep = await ctl(mock, 'POST', '/deposits', {
      network: mock.networks[0],
      asset_amount: '1',
      status: 'credited',
    });
    expectNotFound(await apiCall(mock, { method: 'GET', path: `/deposits/${dep.id}`, mode: 'live' }));
  });
});
