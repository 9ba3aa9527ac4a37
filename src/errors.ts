// One error type for everything cardctl reports on purpose. `kind` decides the exit code
// (src/cli/exit-codes.ts is the only place that maps kinds to numbers).

export type ErrorKind =
  | 'usage' // bad flags, a body or id refused locally, or the API's 422 `Validation failed.`
  | 'auth' // 401, 403
  | 'signature_invalid' // a webhook signature that does not verify
  | 'not_found' // 404
  | 'business' // 409 and 422 refusals with a code
  | 'rate_limited' // 429 after the allowed retries
  | 'outcome_unknown' // 202, a 5xx other than 503 or a dropped connection on a money operation, a dropped connection after any other write
  | 'unavailable' // 503, a 5xx on a call that moves no money, connection refused, timeout
  | 'key_in_use' // another cardctl process is sending the same idempotency key: nothing sent
  | 'unexpected';

export interface CardctlErrorOptions {
  kind: ErrorKind;
  /** what to do next, shown after the message */
  hint?: string;
  /** HTTP status of the API answer, when there was one */
  status?: number;
  /** the API's `errors` map, or local validation messages per field */
  errors?: Record<string, unknown>;
  /** the precise code (`invalid_signature`, `insufficient_funds`, ...) */
  code?: string;
  /** for money operations: the key that replays the request */
  idempotencyKey?: string;
  /** a resource the API answered with the error (the pending card of a 202), shown with --json */
  data?: unknown;
  cause?: unknown;
}

export class CardctlError extends Error {
  readonly kind: ErrorKind;
  readonly hint?: string;
  readonly status?: number;
  readonly errors: Record<string, unknown>;
  readonly code?: string;
  readonly idempotencyKey?: string;
  readonly data?: unknown;

  constructor(message: string, options: CardctlErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'CardctlError';
    this.kind = options.kind;
    this.hint = options.hint;
    this.status = options.status;
    this.errors = options.errors ?? {};
    this.code = options.code;
    this.idempotencyKey = options.idempotencyKey;
    this.data = options.data;
  }
}

/**
 * The same error said better: another hint (and, when given, another message), everything else
 * kept (kind, status, errors, code, key, data); the error it replaces is its cause (or `cause`).
 * One place for the hints that explain a refusal from what was read after it
 * (src/client/card-state-hint.ts, kyc-hint.ts) and the mock's diagnosis (src/client/errors.ts).
 */
export function withHint(
  err: CardctlError,
  hint: string,
  opts: { message?: string; cause?: unknown } = {},
): CardctlError {
  return new CardctlError(opts.message ?? err.message, {
    kind: err.kind,
    hint,
    status: err.status,
    errors: err.errors,
    code: err.code,
    idempotencyKey: err.idempotencyKey,
    data: err.data,
    cause: 'cause' in opts ? opts.cause : err,
  });
}

export const usageError = (message: string, hint?: string, errors?: Record<string, unknown>): CardctlError =>
  new CardctlError(message, { kind: 'usage', hint, errors });
