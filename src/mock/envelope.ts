// Answers in the spec's envelopes. Handlers return a Reply; only the pipeline writes to the socket.
import { MESSAGES, VALIDATION_MESSAGE, OPERATION_CODES, type OperationCode } from '../contract/errors.js';

export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type ErrorMap = Record<string, string[]>;

export const ok = (data: unknown, status = 200): Reply => ({ status, body: { success: true, data } });

export const page = (data: unknown[], meta: unknown): Reply => ({ status: 200, body: { success: true, data, meta } });

export const processing = (): Reply => ({
  status: 202,
  body: { success: true, message: MESSAGES.processing, data: { status: 'pending' } },
});

export const fail = (
  status: number,
  message: string,
  errors: ErrorMap = {},
  headers?: Record<string, string>,
): Reply => ({
  status,
  body: { success: false, message, errors },
  ...(headers ? { headers } : {}),
});

export const validation = (errors: ErrorMap): Reply => fail(422, VALIDATION_MESSAGE, errors);

export const notFound = (): Reply => fail(404, MESSAGES.notFound);
export const endpointNotFound = (): Reply => fail(404, MESSAGES.endpointNotFound);
export const serverError = (): Reply => fail(500, MESSAGES.serverError);
export const unavailable = (): Reply => fail(503, MESSAGES.unavailable);

/** Human messages of the operation codes; clients branch on the code, never on these. */
const CODE_MESSAGES: Record<OperationCode, string> = {
  in_flight: 'A request with this idempotency key is still being processed. Retry shortly.',
  payload_mismatch: 'This idempotency key was used with a different request.',
  kyc_not_approved: 'The customer is not verified yet.',
  insufficient_funds: 'The wallet balance cannot cover the amount and fees.',
  no_default: 'No product was named and there is no default product.',
  unavailable: 'The product is not available for issuing.',
  issue_failed: 'The card could not be issued. Nothing was charged.',
  invalid_state: 'The operation does not apply to the card in its current state.',
  termination_blocked: 'The card was issued too recently to be terminated. Freeze it and retry later.',
  invalid: 'The customer cannot be used for this operation.',
  kyc_incomplete: 'The customer is missing fields required for verification.',
  below_minimum: 'The initial load is below the product minimum.',
  not_enabled: 'The network is not enabled.',
  exceeded: MESSAGES.tooManyRequests,
};

const CODE_STATUS: Partial<Record<OperationCode, number>> = { in_flight: 409, kyc_not_approved: 409, exceeded: 429 };

/** `field: [code]` error of the spec's operation table, with its HTTP status. */
export function codeError(code: OperationCode): Reply {
  return fail(CODE_STATUS[code] ?? 422, CODE_MESSAGES[code], { [OPERATION_CODES[code]]: [code] });
}
