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

/**
 * oclif's parse errors quote what was typed: `Nonexistent flag: --secret=VALUE`, `Unexpected
 * arguments: a, b`. A secret pasted as a flag value or a stray argument must not be printed
 * back (it may be one), so those values are left out; the flag name stays.
 */
export function redactParseMessage(message: string): string {
  return message
    .replace(
      /^(Nonexistent flags?: )(.*)$/gm,
      (_, head: string, list: string) =>
        head + list.replace(/(--[\w-]+)=\S*/g, '$1=…').replace(/(^|[\s,])-(\w)[^\s,]+/g, '$1-$2…'),
    )
    .replace(
      /^(Unexpected arguments?: )(.*)$/gm,
      (_, head: string, list: string) =>
        `${head}${list.split(', ').length} (not shown: a value typed here could be a secret)`,
    );
}

/**
 * An oclif parse error as one clean line: redacted as above, without oclif's "See more help with
 * --help" (the caller names the command's help), its "\n\t" layout and stray whitespace.
 */
export function cleanParseMessage(message: string): string {
  return redactParseMessage(message)
    .replace(/\n?See more help with --help\s*$/, '')
    .replace(/[ \t]*\n\t+/g, ': ')
    .replace(/\s*\n\s*/g, '; ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

/** The `--json` error object: `{"error": {status, message, errors, code}}`. */
export function errorJson(err: unknown): {
  error: {
    status: number | null;
    message: string;
    hint: string | null;
    errors: Record<string, unknown>;
    code: string | null;
    idempotency_key?: string;
    data?: unknown;
  };
} {
  if (err instanceof CardctlError) {
    return {
      error: {
        status: err.status ?? null,
        message: err.message,
        // what to do next, as the text prints it under the message
        hint: err.hint ?? null,
        errors: err.errors,
        code: err.code ?? null,
        ...(err.idempotencyKey ? { idempotency_key: err.idempotencyKey } : {}),
        ...(err.data !== undefined ? { data: err.data } : {}),
      },
    };
  }
  const message = cleanParseMessage(err instanceof Error ? err.message : String(err));
  return { error: { status: null, message, hint: null, errors: {}, code: null } };
}
