// Resource and envelope shapes of spec "Resources and their fields", "Envelopes" and "Events",
// checked strictly (the client's schemas are tolerant on purpose; the mock must be exact).
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  advance,
  apiCall,
  createCustomer,
  ctl,
  customerInput,
  events,
  expectOk,
  fault,
  fundLive,
  issueCard,
  newIdemKey,
  approvedCustomer,
  TINY_IMAGE,
  UNKNOWN_ULID,
  type ApiResponse,
  type MockHandle,
} from '../helpers/api.js';

const ulid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/);
const isoWithOffset = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
const minor = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const Card = z.object({
  id: ulid,
  product_id: ulid,
  customer_id: ulid.nullable(),
  status: z.enum(['pending', 'active', 'frozen', 'terminated', 'expired', 'failed']),
  mode: z.enum(['test', 'live']),
  masked_pan: z.string(),
  last4: z.string(),
  expiry: z
    .string()
    .regex(/^(\d{2}\/\d{2})?$/)
    .nullable(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  balance_minor: minor,
  created_at: isoWithOffset.nullable(),
});
const Customer = z.object({
  id: ulid,
  customer_type: z.enum(['individual', 'business']),
  business_name: z.string().nullable().optional(),
  registration_number: z.string().nullable().optional(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  phone_number: z.string().regex(/^\d{4,15}$/),
  dial_code: z.string().regex(/^\+\d{1,4}$/),
  date_of_birth: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  id_type: z.string(),
  id_number_last4: z.string().max(4),
  country: z.string().regex(/^[A-Z]{3}$/),
  status: z.enum(['active', 'disabled']),
  kyc_status: z.enum(['unsubmitted', 'pending', 'approved', 'rejected']),
  kyc_failure_reason: z.string().nullable(),
  kyc_submitted_at: isoWithOffset.nullable(),
  kyc_resolved_at: isoWithOffset.nullable(),
  created_at: isoWithOffset.nullable(),
});
const CardTransaction = z.object({
  id: ulid,
  type: z.enum(['authorization', 'capture', 'refund', 'reversal', 'decline']),
  status: z.enum(['pending', 'completed', 'declined', 'reversed']),
  amount_minor: z.number().int().positive(),
  currency: z.string().regex(/^[A-Z]{3}$/),
  occurred_at: isoWithOffset.nullable(),
});
const DepositAddress = z.object({
  id: ulid,
  network: z.string(),
  asset: z.string().min(1),
  address: z.string().min(1),
  memo: z.string().nullable(),
  created_at: isoWithOffset.nullable(),
});
const Deposit = z.object({
  id: ulid,
  network: z.string(),
  asset: z.string(),
  asset_amount: z.string().regex(/^\d+(\.\d+)?$/),
  credited_amount_minor: minor,
  currency: z.string().regex(/^[A-Z]{3}$/),
  rate: z.string().regex(/^\d+(\.\d+)?$/),
  status: z.enum(['pending', 'credited', 'flagged']),
  tx_id: z.string().nullable(),
  confirmed_at: isoWithOffset.nullable(),
});
const Meta = z.strictObject({
  per_page: z.number().int().min(1).max(100),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  previous_cursor: z.string().nullable(),
});
const ErrorEnvelope = z.strictObject({
  success: z.literal(false),
  message: z.string().min(1),
  errors: z.record(z.string(), z.array(z.string())),
});

function shape<T extends z.ZodType>(schema: T, value: unknown, label: string): void {
  const r = schema.safeParse(value);
  expect(
    r.success,
    `${label}: ${r.success ? '' : JSON.stringify(r.error.issues.slice(0, 5))} in ${JSON.stringify(value).slice(0, 400)}`,
  ).toBe(true);
}
const FORBIDDEN_KEYS = [
  'pan',
  'card_number',
  'number',
  'cvv',
  'cvc',
  'security_code',
  'id_number',
  'id_front_image',
  'provider_id',
  'provider_reference',
];
function noSecrets(value: unknown, label: string): void {
  const walk = (v: unknown, path: string): void => {
    if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        expect(FORBIDDEN_KEYS, `${label}: ${path}.${k} must never be returned`).not.toContain(k);
        walk(x, `${path}.${k}`);
      }
    }
  };
  walk(value, '');
}
function jsonContentType(res: ApiResponse): void {
  expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
}

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 121, providerLatencyMs: 0 })) as unknown as MockHandle;
  await fundLive(mock, '100000');
});
afterAll(async () => mock?.close());

describe('resource shapes', () => {
  it('Card (active, frozen, pending, terminated): exact fields, no PAN or security code', async () => {
    const c = await approvedCustomer(mock);
    const res = await issueCard(mock, { customerId: c.id, amount: 100 });
    jsonContentType(res);
    const card = expectOk(res, 201);
    shape(Card, card, 'issued card');
    expect(card.last4).toMatch(/^\d{4}$/);
    expect(card.expiry).toMatch(/^(0[1-9]|1[0-2])\/\d{2}$/);
    expect(card.masked_pan.endsWith(card.last4)).toBe(true);
    noSecrets(card, 'card');
    shape(Card, expectOk(await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/freeze` })), 'frozen card');
    await fault(mock, 'issue', 'async_202', 1);
    const key = newIdemKey();
    const processing = await issueCard(mock, { customerId: c.id, idempotencyKey: key });
    expect(processing.status).toBe(202);
    expect(processing.body).toMatchObject({ success: true, message: expect.any(String), data: { status: 'pending' } });
    const pendingId = (await issueCard(mock, { customerId: c.id, idempotencyKey: key })).body.data.id;
    const pending = expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${pendingId}` }));
    shape(Card, pending, 'pending card');
    expect(pending.masked_pan).toBe('');
    expect(pending.expiry === '' || pending.expiry === null).toBe(true);
    await advance(mock, 3601);
    shape(
      Card,
      expectOk(
        await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/terminate`, idempotencyKey: newIdemKey() }),
      ),
      'terminated card',
    );
  });

  it('Customer: exact fields; the full id number and the document image are never returned', async () => {
    for (const overrides of [
      {},
      { id_type: 'passport', country: 'gbr', id_front_image: TINY_IMAGE, id_number: 'P1234567' },
    ]) {
      const res = await apiCall(mock, {
        method: 'POST',
        path: '/customers',
        body: customerInput(overrides),
        mode: 'live',
      });
      jsonContentType(res);
      const c = expectOk(res, 202);
      shape(Customer, c, 'created customer');
      noSecrets(c, 'customer');
      expect(res.raw.toString()).not.toContain(TINY_IMAGE);
      const read = expectOk(await apiCall(mock, { method: 'GET', path: `/customers/${c.id}`, mode: 'live' }));
      shape(Customer, read, 'read customer');
      noSecrets(read, 'customer');
    }
  });

  it('CardTransaction page with the four CursorMeta fields', async () => {
    const card = await activeCard(mock);
    await ctl(mock, 'POST', `/cards/${card.id}/transactions`, { type: 'refund', status: 'completed', amount_minor: 5 });
    const res = await apiCall(mock, { method: 'GET', path: `/cards/${card.id}/transactions` });
    expect(Object.keys(res.body).sort()).toEqual(['data', 'meta', 'success']);
    shape(Meta, res.body.meta, 'meta');
    for (const t of expectOk(res)) shape(CardTransaction, t, 'transaction');
  });

  it('DepositAddress and Deposit', async () => {
    const addr = expectOk(
      await apiCall(mock, {
        method: 'POST',
        path: '/deposit-addresses',
        body: { network: mock.networks[0] },
        mode: 'live',
      }),
      201,
    );
    shape(DepositAddress, addr, 'deposit address');
    for (const a of expectOk(await apiCall(mock, { method: 'GET', path: '/deposit-addresses', mode: 'live' })))
      shape(DepositAddress, a, 'listed address');
    const res = await apiCall(mock, { method: 'GET', path: '/deposits', mode: 'live' });
    shape(Meta, res.body.meta, 'meta');
    const list = expectOk(res);
    expect(list.length).toBeGreaterThan(0);
    for (const d of list) shape(Deposit, d, 'deposit');
  });

  it('Customer page meta; page size in effect', async () => {
    await createCustomer(mock);
    const res = await apiCall(mock, { method: 'GET', path: '/customers', query: { per_page: 2 } });
    shape(Meta, res.body.meta, 'meta');
    expect(res.body.meta.per_page).toBe(2);
    for (const c of expectOk(res)) shape(Customer, c, 'listed customer');
  });
});

describe('error envelope', () => {
  it('every error answer is exactly {success:false, message, errors} with lists of strings, as JSON', async () => {
    const samples: ApiResponse[] = [
      await apiCall(mock, { method: 'GET', path: `/cards/${UNKNOWN_ULID}` }),
      await apiCall(mock, { method: 'GET', path: '/customers', key: { keyId: UNKNOWN_ULID, secret: 'x' } }),
      await apiCall(mock, { method: 'POST', path: '/customers', body: {} }),
      await apiCall(mock, { method: 'GET', path: '/deposits', mode: 'test' }),
      await apiCall(mock, { method: 'POST', path: '/cards', body: { customer_id: UNKNOWN_ULID, amount_minor: 1 } }),
      await apiCall(mock, { method: 'GET', path: '/nope' }),
    ];
    for (const res of samples) {
      jsonContentType(res);
      shape(ErrorEnvelope, res.body, `error ${res.status}`);
    }
  });
});

describe('event payloads (ids and amounts only)', () => {
  it('each recorded event carries the fields of the event table and no cardholder details', async () => {
    const c = await createCustomer(mock, { mode: 'live' });
    await ctl(mock, 'POST', `/customers/${c.id}/kyc`, { verdict: 'rejected', reason: 'blurry_document' });
    await ctl(mock, 'POST', `/customers/${c.id}/kyc`, { verdict: 'approved' });
    const card = await activeCard(mock, { amount: 50 });
    await advance(mock, 3601);
    await apiCall(mock, { method: 'POST', path: `/cards/${card.id}/terminate`, idempotencyKey: newIdemKey() });
    await ctl(mock, 'POST', '/withdrawals', { amount_minor: 100, fee_minor: 3, outcome: 'completed' });
    const fields: Record<string, string[]> = {
      'customer.kyc.pending': ['customer_id', 'kyc_status'],
      'customer.kyc.approved': ['customer_id', 'kyc_status'],
      'customer.kyc.rejected': ['customer_id', 'kyc_status', 'reason'],
      'card.issued': ['card_id'],
      'card.terminated': ['card_id', 'refunded_amount_minor'],
      'deposit.credited': ['deposit_id', 'credited_amount_minor'],
      'withdrawal.requested': ['withdrawal_id', 'amount_minor', 'fee_minor'],
      'withdrawal.approved': ['withdrawal_id', 'amount_minor'],
      'withdrawal.completed': ['withdrawal_id', 'amount_minor', 'fee_minor', 'net_amount_minor'],
    };
    const all = await events(mock);
    const seen = new Set(all.map((e) => e.type));
    for (const type of Object.keys(fields)) expect(seen, type).toContain(type);
    for (const e of all) {
      shape(
        z.object({
          id: z.string(),
          merchant_id: ulid,
          mode: z.enum(['test', 'live']),
          type: z.string(),
          occurred_at: isoWithOffset,
          data: z.record(z.string(), z.unknown()),
        }),
        e,
        e.type,
      );
      const want = fields[e.type];
      if (want) expect(Object.keys(e.data), e.type).toEqual(expect.arrayContaining(want));
      for (const v of Object.values(e.data))
        expect(['string', 'number'], `${e.type} data holds ids and amounts only`).toContain(typeof v);
      const text = JSON.stringify(e.data);
      for (const secret of [c.first_name, c.last_name, c.email]) expect(text).not.toContain(secret);
    }
  });
});
