// Error codes and messages of spec v1. Clients branch on codes, never on messages.

export const GATEWAY_CODES = [
  'missing_signature_headers',
  'timestamp_out_of_window',
  'invalid_api_key',
  'invalid_signature',
  'replay_detected',
  'ip_not_allowed',
  'out_of_scope',
] as const;
export type GatewayCode = (typeof GATEWAY_CODES)[number];

/** Operation error codes as `field: [code]` pairs of the spec's Errors section. */
export const OPERATION_CODES = {
  in_flight: 'idempotency',
  payload_mismatch: 'idempotency',
  kyc_not_approved: 'customer',
  insufficient_funds: 'balance',
  no_default: 'product',
  unavailable: 'product',
  issue_failed: 'card',
  invalid_state: 'card',
  termination_blocked: 'card',
  invalid: 'customer',
  kyc_incomplete: 'customer',
  below_minimum: 'amount_minor',
  not_enabled: 'network',
  exceeded: 'rate_limit',
} as const;
export type OperationCode = keyof typeof OPERATION_CODES;

export const VALIDATION_MESSAGE = 'Validation failed.';

/** Terse gateway messages (spec: "a generic unauthorized or conflict text"). */
export const MESSAGES = {
  unauthorized: 'Unauthorized.',
  forbidden: 'Forbidden.',
  conflict: 'Conflict.',
  tooManyRequests: 'Too many requests.',
  notFound: 'Resource not found.',
  endpointNotFound: 'Endpoint not found.',
  liveOnlyDeposits: 'Deposits are available to live keys only.',
  liveOnlyDepositAddresses: 'Deposit addresses are available to live keys only.',
  unavailable: 'The card provider is temporarily unavailable. Retry shortly.',
  serverError: 'Server error.',
  processing: 'The request is being processed.',
  unprocessable: 'The request could not be completed.',
} as const;

export type ErrorMap = Record<string, string[]>;

/** The first code found in an `errors` map, e.g. `{gateway: ['invalid_signature']}` -> `invalid_signature`. */
export function firstErrorCode(errors: ErrorMap | undefined): string | undefined {
  if (!errors) return undefined;
  for (const list of Object.values(errors)) {
    if (Array.isArray(list) && typeof list[0] === 'string') return list[0];
  }
  return undefined;
}
