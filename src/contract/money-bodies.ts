// The money request bodies without zod: their field order (the deterministic serialization of
// src/client/serialize.ts) and a quick acceptance test. zod costs more to import than node takes
// to start, and `cards issue` in a shell loop should not pay it for a body that is plainly valid:
// `plainlyValid` answers true only for bodies the schemas of ./requests.ts surely accept (a
// property test holds it to that); anything else is checked by the schemas, with their messages.

export const MAX_INITIAL_LOAD_MINOR = 100_000_000;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const TERMINATION_REASONS = ['lost', 'stolen', 'fraud', 'no_longer_needed', 'other'] as const;

export type MoneyOperation = 'cards.issue' | 'cards.recharge' | 'cards.terminate';

/** Field order of each money body: the order of the schema's shape in ./requests.ts. */
export const MONEY_BODY_FIELDS: Readonly<Record<MoneyOperation, readonly string[]>> = {
  'cards.issue': ['product_id', 'customer_id', 'amount_minor'],
  'cards.recharge': ['amount'],
  'cards.terminate': ['reason'],
};

export const isMoneyOperation = (op: string | undefined): op is MoneyOperation =>
  op === 'cards.issue' || op === 'cards.recharge' || op === 'cards.terminate';

const id26 = (v: unknown): boolean => typeof v === 'string' && v.length === 26;
const wholeIn = (v: unknown, min: number, max: number): boolean =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= min && v <= max;

/** True only when the money body is one the contract's schema accepts; false means "ask the schema". */
export function plainlyValid(op: MoneyOperation, body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body) || Object.getPrototypeOf(body) !== Object.prototype)
    return false;
  const b = body as Record<string, unknown>;
  const fields = MONEY_BODY_FIELDS[op];
  if (Object.keys(b).some((k) => !fields.includes(k))) return false;
  if (op === 'cards.issue')
    return (
      id26(b.customer_id) &&
      (b.product_id === undefined || id26(b.product_id)) &&
      wholeIn(b.amount_minor, 0, MAX_INITIAL_LOAD_MINOR)
    );
  if (op === 'cards.recharge') return wholeIn(b.amount, 1, Number.MAX_SAFE_INTEGER);
  return b.reason === undefined || (TERMINATION_REASONS as readonly unknown[]).includes(b.reason);
}
