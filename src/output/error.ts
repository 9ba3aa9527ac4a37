// How an error looks (issue 30: errors go through the one renderer like every other output): on
// stderr for people, as `{"error": ...}` on stdout with --json. What exit code it gives is decided
// in one place, src/cli/exit-codes.ts; which words explain a parse error, in src/cli/usage-errors.ts.
import { CardctlError } from '../errors.js';
import type { Io } from '../io.js';
import { terminalSafe } from '../terminal-text.js';

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

/** The `--json` error object: `{"error": {status, message, hint, errors, code}}`. */
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

export interface ErrorView {
  /** `--json`: the error object on stdout instead of text on stderr */
  json: boolean;
  /** a parse error of oclif's (exit 2, not a CardctlError): its message cleaned, then the command's help named */
  parseError: boolean;
  /** the command the error came from (`cards:get`), named in the help line of a parse error */
  commandId?: string;
  /** CARDCTL_DEBUG: an unexpected error's stack after its message */
  debug: boolean;
}

/** The error as people read it: message, each field's messages, the hint; everything escaped. */
export function errorText(err: unknown, view: Omit<ErrorView, 'json'>): string {
  if (err instanceof CardctlError) {
    let text = `Error: ${terminalSafe(err.message)}\n`;
    for (const [field, messages] of Object.entries(err.errors))
      if (Array.isArray(messages)) for (const m of messages) text += terminalSafe(`  ${field}: ${String(m)}`) + '\n';
    return err.hint ? `${text}${terminalSafe(err.hint)}\n` : text;
  }
  const e = err instanceof Error ? err : new Error(String(err));
  if (view.parseError) {
    // oclif's own "See more help with --help" goes: the line below names the command
    const command = view.commandId ? view.commandId.replaceAll(':', ' ') + ' ' : '';
    return `Error: ${terminalSafe(cleanParseMessage(e.message))}\nSee \`cardctl ${command}--help\`.\n`;
  }
  return `Error: ${terminalSafe(e.message)}\n${view.debug ? `${e.stack ?? ''}\n` : ''}`;
}

/** Prints the error where it belongs: `{"error": ...}` on stdout with --json, text on stderr. */
export function writeError(io: Io, err: unknown, view: ErrorView): void {
  if (view.json) io.stdout.write(JSON.stringify(errorJson(err)) + '\n');
  else io.stderr.write(errorText(err, view));
}
