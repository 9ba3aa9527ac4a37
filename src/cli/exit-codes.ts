// The one place where errors become exit codes (PRODUCT.md, "Output, errors, exit codes").
import { CardctlError, type ErrorKind } from '../errors.js';

export const EXIT = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  business: 5,
  rateLimited: 6,
  outcomeUnknown: 7,
  unavailable: 8,
  keyInUse: 9,
} as const;

const BY_KIND: Record<ErrorKind, number> = {
  usage: EXIT.usage,
  auth: EXIT.auth,
  signature_invalid: EXIT.auth,
  not_found: EXIT.notFound,
  business: EXIT.business,
  rate_limited: EXIT.rateLimited,
  outcome_unknown: EXIT.outcomeUnknown,
  unavailable: EXIT.unavailable,
  key_in_use: EXIT.keyInUse,
  unexpected: EXIT.unexpected,
};

/** Errors from libraries that mean "the input was wrong", recognised by name to avoid importing them. */
const USAGE_ERROR_NAMES = new Set(['QueryEncodingError', 'ZodError']);

/** The exit code of an error kind: the one mapping, for errors and for verdicts that are not errors. */
export function exitCodeForKind(kind: ErrorKind): number {
  return BY_KIND[kind] ?? EXIT.unexpected;
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof CardctlError) return exitCodeForKind(err.kind);
  if (err && typeof err === 'object') {
    const e = err as { name?: string; oclif?: { exit?: number } };
    if (typeof e.oclif?.exit === 'number') return e.oclif.exit; // oclif's own parse errors: 2
    if (e.name && USAGE_ERROR_NAMES.has(e.name)) return EXIT.usage;
  }
  return EXIT.unexpected;
}
