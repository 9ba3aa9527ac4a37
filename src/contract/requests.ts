// Request bodies of the money and funding operations. Customer bodies are in customer.ts.
import { z } from 'zod';
import { MAX_INITIAL_LOAD_MINOR, TERMINATION_REASONS } from './money-bodies.js';
import { ULID_PATTERN } from './routes.js';

// zod-free, so the client can order and pre-check money bodies without importing zod
export { MAX_IDEMPOTENCY_KEY_LENGTH, MAX_INITIAL_LOAD_MINOR, TERMINATION_REASONS } from './money-bodies.js';

const MINOR_UNITS = 'must be an integer number of minor units.';
/** A missing value is "is required."; a present one of another type "must be ...". */
const requiredOr = (message: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? 'is required.' : message;

const int64 = z.number({ error: requiredOr(MINOR_UNITS) }).int(MINOR_UNITS);

export const IssueCardSchema = z.object({
  product_id: z.string({ error: 'must be a string.' }).length(26, 'must be exactly 26 characters.').optional(),
  customer_id: z.string({ error: requiredOr('must be a string.') }).length(26, 'must be exactly 26 characters.'),
  amount_minor: int64
    .min(0, 'must be at least 0.')
    .max(MAX_INITIAL_LOAD_MINOR, `must be at most ${MAX_INITIAL_LOAD_MINOR}.`),
});
export type IssueCardBody = z.infer<typeof IssueCardSchema>;

export const RechargeSchema = z.object({
  amount: int64.min(1, 'must be at least 1.').max(Number.MAX_SAFE_INTEGER, 'is too large.'),
});
export type RechargeBody = z.infer<typeof RechargeSchema>;

export const TerminateSchema = z.object({
  reason: z.enum(TERMINATION_REASONS, { error: `must be one of ${TERMINATION_REASONS.join(', ')}.` }).optional(),
});
export type TerminateBody = z.infer<typeof TerminateSchema>;

export const DepositAddressCreateSchema = z.object({
  network: z.string({ error: requiredOr('must be a string.') }).min(1, 'is required.'),
});

export function isUlid(value: string): boolean {
  return ULID_PATTERN.test(value);
}

/**
 * zod issues -> the spec's 422 `errors` map: field name -> human-readable messages.
 * A message that is a bare rule ("is required.") is prefixed with the field's name.
 */
export function validationErrors(error: z.ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const field = issue.path.length ? issue.path.map(String).join('.') : 'body';
    const text = /^[a-z]/.test(issue.message) ? `The ${field.replace(/_/g, ' ')} ${issue.message}` : issue.message;
    (out[field] ??= []).push(text);
  }
  return out;
}
