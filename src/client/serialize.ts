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
  const known = order.filter((k) => keys.includes(k));
  const rest = keys.filter((k) => !order.includes(k)).sort();
  return `{${[...known, ...rest].map((k) => `${JSON.stringify(k)}:${write(obj[k], [])}`).join(',')}}`;
}

/** The field order of the contract's request schema for a money operation (loaded lazily: zod). */
export async function bodyFieldOrder(operation: OperationName | undefined): Promise<readonly string[]> {
  if (operation !== 'cards.issue' && operation !== 'cards.recharge' && operation !== 'cards.terminate') return [];
  const { IssueCardSchema, RechargeSchema, TerminateSchema } = await import('../contract/requests.js');
  const schema = operation === 'cards.issue' ? IssueCardSchema : operation === 'cards.recharge' ? RechargeSchema : TerminateSchema;
  return Object.keys(schema.shape);
}

/** The bytes of a money operation's body: schema order for known bodies, sorted keys otherwise. */
export async function serializeMoneyBody(operation: OperationName | undefined, value: unknown): Promise<Buffer> {
  return Buffer.from(serializeDeterministic(value, await bodyFieldOrder(operation)), 'utf8');
}

/** A number literal as sign, significant digits and exponent, so `1.0`, `1e0` and `1` compare equal. */
function decimalKey(literal: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (!m) return literal;
  const frac = m[3] ?? '';
  let digits = (m[2]! + frac).replace(/^0+/, '');
  if (digits === '') return '0';
  let exp = Number(m[4] ?? 0) - frac.length;
  const kept = digits.replace(/0+$/, '');
  exp += digits.length - kept.length;
  digits = kept;
  return `${m[1]}${digits}e${exp}`;
}

/**
 * The number literals of a JSON text that a JavaScript number cannot hold exactly (an integer
 * beyond 2^53, too many decimals, out of range), each with the value it would be sent as.
 * Re-serializing such a body would silently send a different amount.
 */
export function inexactNumbers(jsonText: string): Array<{ literal: string; becomes: string }> {
  const found: Array<{ literal: string; becomes: string }> = [];
  // strings first, so digits inside them are skipped; outside strings only numbers hold digits
  for (const [token] of jsonText.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    if (token.startsWith('"')) continue;
    const becomes = JSON.stringify(Number(token)); // "null" for a number out of range
    if (decimalKey(becomes) !== decimalKey(token)) found.push({ literal: token, becomes });
  }
  return found;
}
