// The zod-free pre-check of money bodies (src/contract/money-bodies.ts) may only let through
// what the contract's schemas accept, and the zod-free field order must be the schemas' order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MONEY_BODY_FIELDS, plainlyValid, type MoneyOperation } from '../../src/contract/money-bodies.js';
import { IssueCardSchema, RechargeSchema, TerminateSchema } from '../../src/contract/requests.js';

const SCHEMAS = {
  'cards.issue': IssueCardSchema,
  'cards.recharge': RechargeSchema,
  'cards.terminate': TerminateSchema,
} as const;
const OPS = Object.keys(SCHEMAS) as MoneyOperation[];

const value = fc.oneof(
  fc.integer({ min: -5, max: 5 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    0,
    1,
    100_000_000,
    100_000_001,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    Number.NaN,
    Infinity,
    -0,
  ),
  fc.string(),
  fc.string({ minLength: 26, maxLength: 26 }),
  fc.constantFrom('lost', 'stolen', 'fraud', 'no_longer_needed', 'other', 'LOST', ''),
  fc.constant(null),
  fc.constant(undefined),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
);
const body = fc.dictionary(
  fc.constantFrom('customer_id', 'product_id', 'amount_minor', 'amount', 'reason', 'extra'),
  value,
  { maxKeys: 4 },
);
const id = fc.oneof(fc.string({ minLength: 26, maxLength: 26 }), value);
const amount = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.integer({ min: 99_999_997, max: 100_000_003 }),
  fc.integer({ min: Number.MAX_SAFE_INTEGER - 2, max: Number.MAX_SAFE_INTEGER }).map((n) => n + 1),
  value,
);
// near-valid bodies: the boundaries are where a pre-check would go wrong
const nearValid = fc.oneof(
  fc.record(
    { customer_id: id, amount_minor: amount, product_id: id },
    { requiredKeys: ['customer_id', 'amount_minor'] },
  ),
  fc.record({ amount }),
  fc.record({ reason: value }, { requiredKeys: [] }),
);

describe('money bodies without zod', () => {
  it('plainlyValid never accepts a body the schema refuses (and accepts the usual ones)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...OPS), fc.oneof(nearValid, body, value), (op, b) => {
        if (plainlyValid(op, b)) expect(SCHEMAS[op].safeParse(b).success, JSON.stringify(b)).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(plainlyValid('cards.issue', { customer_id: '01JD2Q7N8V3K4M5P6R7S8T9V0W', amount_minor: 5000 })).toBe(true);
    expect(plainlyValid('cards.recharge', { amount: 1 })).toBe(true);
    expect(plainlyValid('cards.terminate', {})).toBe(true);
    expect(plainlyValid('cards.issue', { customer_id: 'short', amount_minor: 5000 })).toBe(false);
  });

  it("keeps the schemas' field order", () => {
    for (const op of OPS) expect(MONEY_BODY_FIELDS[op]).toEqual(Object.keys(SCHEMAS[op].shape));
  });
});
