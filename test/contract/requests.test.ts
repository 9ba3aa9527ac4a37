// The request schemas' messages, and the number literals that JSON parsing would change.
import { describe, expect, it } from 'vitest';
import {
  DepositAddressCreateSchema,
  IssueCardSchema,
  RechargeSchema,
  validationErrors,
} from '../../src/contract/requests.js';
import { inexactNumberFields, inexactNumbers } from '../../src/contract/numbers.js';
import { inexactNumbers as fromClient } from '../../src/client/serialize.js';

function errors(
  schema: { safeParse(v: unknown): { success: boolean; error?: unknown } },
  body: unknown,
): Record<string, string[]> | null {
  const r = schema.safeParse(body);
  return r.success ? null : validationErrors(r.error as never);
}

describe('messages: "is required." for a missing field, what is expected for a present one', () => {
  it('recharge amount', () => {
    expect(errors(RechargeSchema, {})).toEqual({ amount: ['The amount is required.'] });
    expect(errors(RechargeSchema, { amount: '5' })).toEqual({
      amount: ['The amount must be an integer number of minor units.'],
    });
    expect(errors(RechargeSchema, { amount: 1.5 })).toEqual({
      amount: ['The amount must be an integer number of minor units.'],
    });
  });
  it('issue amount_minor and customer_id', () => {
    expect(errors(IssueCardSchema, {})).toEqual({
      customer_id: ['The customer id is required.'],
      amount_minor: ['The amount minor is required.'],
    });
    expect(errors(IssueCardSchema, { customer_id: 5, amount_minor: null })).toEqual({
      customer_id: ['The customer id must be a string.'],
      amount_minor: ['The amount minor must be an integer number of minor units.'],
    });
  });
  it('deposit address network', () => {
    expect(errors(DepositAddressCreateSchema, {})).toEqual({ network: ['The network is required.'] });
    expect(errors(DepositAddressCreateSchema, { network: 5 })).toEqual({ network: ['The network must be a string.'] });
    expect(errors(DepositAddressCreateSchema, { network: '' })).toEqual({ network: ['The network is required.'] });
  });
});

describe('inexact number literals', () => {
  it('the client re-exports the contract function', () => {
    expect(fromClient).toBe(inexactNumbers);
  });
  it('names the top-level member of each literal that JSON parsing changes; exact spellings pass', () => {
    expect(inexactNumberFields('{"amount_minor":0.99999999999999999,"customer_id":"1.00000000000000001"}')).toEqual([
      { field: 'amount_minor', literal: '0.99999999999999999', becomes: '1' },
    ]);
    expect(
      inexactNumberFields('{"a":{"b":[1e400]},"c":1.0,"d":1e2,"e":100000000.0,"f":4.9999999999999999,"g":-0}'),
    ).toEqual([
      { field: 'a', literal: '1e400', becomes: 'null' },
      { field: 'f', literal: '4.9999999999999999', becomes: '5' },
    ]);
    expect(inexactNumberFields('{"k\\"":{"x":1},"n":9007199254740993}')).toEqual([
      { field: 'n', literal: '9007199254740993', becomes: '9007199254740992' },
    ]);
    expect(inexactNumberFields('[9007199254740993]')).toEqual([
      { field: null, literal: '9007199254740993', becomes: '9007199254740992' },
    ]);
    expect(inexactNumberFields('{"amount":1e2,"b":100000000.0}')).toEqual([]);
  });
});
