// Deterministic JSON for money operations: the same input, however its keys were ordered or
// spaced, gives the same bytes, so the same command with the same Idempotency-Key replays
// instead of answering `payload_mismatch` (the server compares a SHA-256 of the raw bytes).
import type { OperationName } from '../contract/routes.js';

/**
 * Compact JSON (no whitespace). Top-level keys named in `fieldOrder` come first, in that order;
 * every other key, at any depth, is sorted by code unit order.
 */
export function serializeDeterministic(value: unknown, fieldOrder: readonly string[] = []): string {
  return write(value, fieldOrder);
}

function write(value: unknown, order: readonly string[]): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('a number in the body is not finite');
    const text = JSON.stringify(value);
    // undefined and functions have no JSON form; the caller drops such object members
    return text === undefined ? 'null' : text;
  }
  if (Array.isArray(value)) return `[${value.map((v) => write(v, [])).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).filter((k) => obj[k] !== undefined && typeof obj[k] !== 'function');
  // the named fields first, in their order, then the others sorted (a --batch writes a million bodies: no arrays joined)
  let out = '';
  for (const k of order) if (keys.includes(k)) out += `,${JSON.stringify(k)}:${write(obj[k], [])}`;
  const rest = order.length === 0 ? keys : keys.filter((k) => !order.includes(k));
  for (const k of rest.sort()) out += `,${JSON.stringify(k)}:${write(obj[k], [])}`;
  return `{${out.slice(1)}}`;
}

/** The field order of the contract's request schema for a money operation (without zod: contract/money-bodies.ts). */
export async function bodyFieldOrder(operation: OperationName | undefined): Promise<readonly string[]> {
  const { MONEY_BODY_FIELDS, isMoneyOperation } = (moneyBodies ??= await import('../contract/money-bodies.js'));
  return isMoneyOperation(operation) ? MONEY_BODY_FIELDS[operation] : [];
}

/** Loaded on the first money body (a --batch serializes a million). */
let moneyBodies: typeof import('../contract/money-bodies.js') | undefined;

/** The bytes of a money operation's body: schema order for known bodies, sorted keys otherwise. */
export async function serializeMoneyBody(operation: OperationName | undefined, value: unknown): Promise<Buffer> {
  return Buffer.from(serializeDeterministic(value, await bodyFieldOrder(operation)), 'utf8');
}

// moved to the contract, so the mock refuses the same bodies the client refuses to send
export { inexactNumbers } from '../contract/numbers.js';
