// Checks for every profile field. Each returns a problem sentence (saying what is expected)
// or undefined; callers decide how to report it. Never echo a secret in a message.
import type { Mode } from './types.js';

export const PROFILE_NAME_RE = /^[A-Za-z0-9._-]{1,64}$/;
// Crockford base32 without I, L, O, U; a ULID's first character is 0-7 (48-bit timestamp).
const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const BASE64_44_RE = /^[A-Za-z0-9+/]{43}=$/;

/**
 * A name as messages may quote it: a valid profile name as is; anything else is not quoted (a
 * secret pasted where a name goes, `-p SECRET`, must not be printed back).
 */
export function shownName(name: string): string {
  return checkName(name) === undefined
    ? name
    : `(a name of ${name.length} characters that is not a valid profile name, not shown)`;
}

export function checkName(name: string): string | undefined {
  if (PROFILE_NAME_RE.test(name)) return undefined;
  return `profile name ${JSON.stringify(name)} is not valid: use 1 to 64 characters among letters, digits, ".", "_" and "-"`;
}

/** Key ids are ULIDs, case-insensitive; stored upper-case (their canonical form). */
export function normalizeKeyId(keyId: string): string {
  return keyId.trim().toUpperCase();
}

/**
 * `keyId` normalized; `original` is what the user typed, quoted in the message, or null when the
 * value did not come from the command line (an environment variable: a secret put there by mistake
 * must not be printed back).
 */
export function checkKeyId(keyId: string, original: string | null = keyId): string | undefined {
  if (ULID_RE.test(keyId)) return undefined;
  const shown =
    original === null ? '' : ` ${JSON.stringify(original.length > 40 ? `${original.slice(0, 40)}…` : original)}`;
  return `key id${shown} is not a ULID: expected 26 characters of Crockford base32 (0-9 and A-Z without I, L, O, U), e.g. 01JD2Q7N8V3K4M5P6R7S8T9V0W`;
}

export function checkSecret(secret: string): string | undefined {
  // Canonical base64 of exactly 32 bytes: the last character's two spare bits must be zero.
  if (BASE64_44_RE.test(secret) && Buffer.from(secret, 'base64').toString('base64') === secret) return undefined;
  const extra = /\s/.test(secret)
    ? ' (it contains whitespace: check for a stray space or newline)'
    : ` (got ${secret.length} characters)`;
  return `the API secret must be exactly 44 base64 characters (32 bytes), as shown once when the key was created${extra}`;
}

export function checkWebhookSecret(secret: string): string | undefined {
  if (secret.length >= 1 && secret.length <= 512 && /^[\x21-\x7e]+$/.test(secret)) return undefined;
  return 'the webhook secret must be 1 to 512 printable ASCII characters without spaces (e.g. whsec_...), as shown when the endpoint was registered';
}

export function checkMode(mode: string): mode is Mode {
  return mode === 'test' || mode === 'live';
}

export const MODE_PROBLEM = (mode: string): string => `mode ${JSON.stringify(mode)} is not valid: use test or live`;

/**
 * http(s) only, no credentials, query or fragment; a trailing slash is dropped. The path is the
 * API's version prefix: a bare host gets `/api/v1`, any other path must end with it (a gateway
 * may put the API under a path of its own, e.g. `/cards/api/v1`).
 */
export function normalizeBaseUrl(raw: string, quote = true): { url?: string; problem?: string } {
  const expected =
    'expected an http:// or https:// URL including the /api/v1 prefix, e.g. https://api.example.com/api/v1';
  if (!quote) {
    // from the environment: the problem without the value (it may be a secret put there by mistake)
    const r = normalizeBaseUrl(raw, true);
    return r.problem ? { problem: `the base URL is not valid: ${expected}` } : r;
  }
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return { problem: `base URL ${JSON.stringify(raw)} is not a URL: ${expected}` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    return { problem: `base URL ${JSON.stringify(raw)} uses ${u.protocol.replace(/:$/, '')}: ${expected}` };
  }
  if (u.username || u.password) return { problem: `base URL must not contain a user name or password: ${expected}` };
  if (u.search || u.hash)
    return { problem: `base URL ${JSON.stringify(raw)} must not have a query or fragment: ${expected}` };
  const path = u.pathname.replace(/\/+$/, '');
  if (path !== '' && !path.endsWith('/api/v1')) {
    return {
      problem: `base URL ${JSON.stringify(raw)} has the path ${path}, not the API's /api/v1 prefix: ${expected}`,
    };
  }
  return { url: `${u.protocol}//${u.host}${path || '/api/v1'}` };
}

export const MAX_SECRET_COMMAND_TIMEOUT_S = 600;

/** A command as a profile may hold it: one line, not empty. Returns the problem or undefined. */
export function checkSecretCommand(command: string): string | undefined {
  if (command.trim() === '')
    return "the secret command is empty: give the shell command that prints the secret, e.g. 'pass show cardctl/ci'";
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(command))
    return 'the secret command must be one line without control characters (put a longer script in a file and name that file)';
  if (command.length > 4096)
    return 'the secret command is longer than 4096 characters (put it in a script and name that script)';
  return undefined;
}

export function checkSecretCommandTimeout(seconds: number): string | undefined {
  if (Number.isInteger(seconds) && seconds >= 1 && seconds <= MAX_SECRET_COMMAND_TIMEOUT_S) return undefined;
  return `the secret command timeout must be a whole number of seconds from 1 to ${MAX_SECRET_COMMAND_TIMEOUT_S}`;
}
