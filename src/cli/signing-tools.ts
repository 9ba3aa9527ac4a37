// The local signature tools behind `cardctl sign`, `sign diagnose`, `webhooks sign` and
// `webhooks verify`: read inputs, find the secret, call the pure signing core, render.
// Lives outside src/commands because oclif treats every file there as a command.
// Only node built-ins and light project modules here; the secret is never printed.
import { shellQuote } from '../shell-quote.js';
import { randomUUID } from 'node:crypto';
import { CardctlError, usageError } from '../errors.js';
import { readInputFile, readInputStream } from '../client/bounded-read.js';
import { API_PREFIX, matchRoute } from '../contract/routes.js';
import { wireQuery } from '../signing/encoding.js';
import { DEFAULT_BASE_URL } from '../profiles/types.js';
import type { Diagnosis } from '../signing/diagnose.js';
import { describeCanonical } from '../signing/visible.js';
import { splitTarget, type RawRequest } from '../signing/raw-request.js';
import { parsePastedRequests } from '../signing/pasted-request.js';
import {
  QueryEncodingError,
  canonicalQuery,
  signRequest,
  signWebhook,
  verifyWebhook,
  webhookSignature,
  type SignedRequest,
  type WebhookVerdict,
} from '../signing/index.js';

// ---------------------------------------------------------------------------------------
// Secrets: src/profiles/resolve.ts decides the precedence (loaded lazily: it pulls in conf
// only when a profile is actually read).

export interface SigningSecret {
  secret: string;
  keyId?: string;
  baseUrl?: string;
  /** why the secret does not look like an API secret (still used: reproducing bad signatures is the point) */
  warning?: string;
}

export async function loadSigningSecret(opts: { profile?: string; env?: NodeJS.ProcessEnv }): Promise<SigningSecret> {
  const { resolveSigningSecret } = await import('../profiles/resolve.js');
  const r = await resolveSigningSecret({ profile: opts.profile, env: opts.env ?? process.env });
  return { secret: r.secret, keyId: r.keyId, baseUrl: r.baseUrl, warning: r.warning };
}

export async function loadWebhookSecret(opts: { profile?: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  const { resolveWebhookSecret } = await import('../profiles/resolve.js');
  return (await resolveWebhookSecret({ profile: opts.profile, env: opts.env ?? process.env })).secret;
}

// ---------------------------------------------------------------------------------------
// Inputs: raw bytes, never re-encoded.

/** Reads FILE or `-` (stdin) as raw bytes, at most 8 MiB (a larger input is exit 2, naming the flag and the file). */
export async function readFileOrStdin(source: string, flag: string): Promise<Buffer> {
  if (source === '-') return readInputStream(process.stdin, flag);
  try {
    return readInputFile(source, flag);
  } catch (err) {
    if (err instanceof CardctlError) throw err;
    const code = (err as { code?: string }).code;
    throw usageError(
      `cannot read ${flag} ${source}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : String((err as Error).message)}.`,
      `Pass a readable file, or - to read stdin.`,
    );
  }
}

export type DataSource =
  | { kind: 'none' }
  | { kind: 'inline'; text: string }
  | { kind: 'file'; file: string }
  | { kind: 'stdin' };

/** `--data JSON|@FILE|-`: the bytes and where they came from (for the curl command). */
export async function readData(data: string | undefined): Promise<{ body?: Buffer; source: DataSource }> {
  if (data === undefined) return { source: { kind: 'none' } };
  if (data === '-') return { body: await readInputStream(process.stdin, '--data'), source: { kind: 'stdin' } };
  if (data.startsWith('@')) {
    const file = data.slice(1);
    if (file === '') throw usageError('--data @ needs a file name: --data @body.json.');
    return { body: await readFileOrStdin(file, '--data'), source: { kind: 'file', file } };
  }
  return { body: Buffer.from(data, 'utf8'), source: { kind: 'inline', text: data } };
}

/** Unix seconds from a flag: digits only. */
export function parseUnixSeconds(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,12}$/.test(value))
    throw usageError(
      `${flag} must be Unix seconds (digits only), not "${value}".`,
      `For example ${flag} ${Math.floor(Date.now() / 1000)}.`,
    );
  return Number(value);
}

// ---------------------------------------------------------------------------------------
// Shell quoting and the curl command.

function isPlainText(body: Buffer): boolean {
  return Buffer.from(body.toString('utf8'), 'utf8').equals(body) && !body.includes(0);
}

export function curlCommand(opts: {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
  source: DataSource;
}): { command: string; notes: string[] } {
  const notes: string[] = [];
  // one option (with its value) per line
  const first = ['curl'];
  // [] and {} in a URL are curl globs; dot segments would be squashed without --path-as-is
  if (/[[\]{}]/.test(opts.url)) first.push('--globoff');
  if (/\/\.\.?(\/|$|\?)/.test(opts.url)) first.push('--path-as-is');
  first.push('-X', shellQuote(opts.method), shellQuote(opts.url));
  const parts = [first.join(' ')];
  for (const [k, v] of Object.entries(opts.headers)) parts.push(`-H ${shellQuote(`${k}: ${v}`)}`);
  if (opts.body !== undefined && opts.source.kind !== 'none') {
    if (opts.source.kind === 'file') parts.push(`--data-binary @${shellQuote(opts.source.file)}`);
    else if (isPlainText(opts.body)) parts.push(`--data-binary ${shellQuote(opts.body.toString('utf8'))}`);
    else {
      parts.push('--data-binary @-');
      notes.push('the body read from stdin is not plain text: pipe the same bytes into the curl command.');
    }
  }
  return { command: parts.join(' \\\n  '), notes };
}

// ---------------------------------------------------------------------------------------
// `cardctl sign`

export interface SignOptions {
  method: string;
  path: string;
  query?: string;
  data?: string;
  keyId?: string;
  timestamp?: string;
  nonce?: string;
  /** Idempotency-Key header (not signed): generated on a money route when not given */
  idempotencyKey?: string;
  profile?: string;
  env?: NodeJS.ProcessEnv;
  /** injected for tests of the pure parts; defaults to the real clock */
  now?: () => number;
}

export interface SignResult extends SignedRequest {
  method: string;
  path: string;
  query: string;
  url: string;
  curl: string;
  /** remarks for stderr */
  notes: string[];
}

export async function runSign(opts: SignOptions): Promise<SignResult> {
  const env = opts.env ?? process.env;
  const notes: string[] = [];
  if (!/^[A-Za-z]+$/.test(opts.method))
    throw usageError(`--method must be an HTTP method like GET or POST, not "${opts.method}".`);
  const method = opts.method.toUpperCase();
  if (method !== opts.method)
    notes.push(`note: the method is uppercased to ${method} in the canonical string and the request.`);

  const {
    secret,
    keyId: profileKeyId,
    baseUrl: profileBaseUrl,
    warning,
  } = await loadSigningSecret({ profile: opts.profile, env });
  if (warning) notes.push(`note: ${warning}`);
  const keyId = opts.keyId ?? profileKeyId ?? (env.CARDCTL_API_KEY || undefined);
  if (!keyId) throw usageError('no key id: pass --key-id ID, or use a profile (--profile NAME) or CARDCTL_API_KEY.');
  const baseText = profileBaseUrl ?? (env.CARDCTL_BASE_URL || DEFAULT_BASE_URL);
  let base: URL;
  try {
    base = new URL(baseText);
  } catch {
    // not quoted: it came from the environment or the store, not from this command line
    throw usageError(
      'the base URL is not a URL.',
      'Fix CARDCTL_BASE_URL or the profile (`cardctl profiles show NAME`).',
    );
  }

  // --path: relative to the base URL, starting with /api/v1, or a full URL; may carry ?query
  let origin = base.origin;
  let rawPath = opts.path;
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(rawPath)) {
    try {
      origin = new URL(rawPath).origin;
    } catch {
      throw usageError(`--path "${opts.path}" is not a valid URL.`);
    }
  } else if (!rawPath.startsWith('/')) {
    rawPath = '/' + rawPath;
  }
  const split = splitTarget(rawPath);
  if (split.query !== '' && opts.query !== undefined) {
    throw usageError('the query is given twice: in --path after "?" and with --query.', 'Keep one of them.');
  }
  const query = (opts.query ?? split.query).replace(/^\?/, '');
  const prefix = base.pathname.replace(/\/+$/, '');
  let path = split.path;
  const under = (p: string, pre: string): boolean => pre !== '' && (p === pre || p.startsWith(pre + '/'));
  if (!under(path, API_PREFIX) && !under(path, prefix)) {
    path = prefix + path;
    notes.push(
      `note: signing ${path}: --path is taken relative to the base URL ${base.origin}${prefix} (the signature covers the full path).`,
    );
  }
  try {
    canonicalQuery(query);
  } catch (err) {
    if (err instanceof QueryEncodingError) {
      throw usageError(
        `--query cannot be signed: ${err.message}.`,
        'Percent-encode non-ASCII text as UTF-8 bytes (é is %C3%A9) and write a literal % as %25.',
      );
    }
    throw err;
  }

  const timestamp = opts.timestamp ?? String(Math.floor((opts.now ?? Date.now)() / 1000));
  if (!/^\d+$/.test(timestamp)) throw usageError(`--timestamp must be Unix seconds (digits only), not "${timestamp}".`);
  if (timestamp.length > 10)
    notes.push('note: --timestamp has more than 10 digits; the gateway expects Unix seconds and will refuse it.');
  const nonce = opts.nonce ?? randomUUID();
  if (nonce === '') throw usageError('--nonce must not be empty.');

  const { body, source } = await readData(opts.data);
  const signed = signRequest({ method, path, query, keyId, timestamp, nonce, secret, body });
  // the query as it can travel in a URL: bytes outside printable ASCII (a space, é) and `#` are
  // percent-encoded; the server decodes before canonicalizing (SIGNING.md), so the signature holds
  const url = `${origin}${path}${query ? '?' + wireQuery(query) : ''}`;
  const headers: Record<string, string> = { ...signed.headers };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const idempotencyKey = idempotencyKeyFor(method, path, opts.idempotencyKey, notes);
  if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
  const curl = curlCommand({ method, url, headers, body, source });
  const shownHeaders =
    idempotencyKey !== undefined ? { ...signed.headers, 'Idempotency-Key': idempotencyKey } : signed.headers;
  return {
    ...signed,
    headers: shownHeaders,
    method,
    path,
    query,
    url,
    curl: curl.command,
    notes: [...notes, ...curl.notes],
  };
}

/**
 * The Idempotency-Key for the curl command: the one given, else a generated one on a money route
 * (issue, recharge, terminate), which the API refuses without one. Not part of the signature.
 */
function idempotencyKeyFor(
  method: string,
  path: string,
  given: string | undefined,
  notes: string[],
): string | undefined {
  if (given !== undefined) {
    if (given === '' || given.length > 255 || /[^\u0020-\u007e]/u.test(given)) {
      throw usageError(
        '--idempotency-key must be 1 to 255 printable ASCII characters.',
        'Pass another key, or leave it out on a money route to get a generated one.',
      );
    }
    return given;
  }
  const match = path.startsWith(API_PREFIX + '/') ? matchRoute(method, path.slice(API_PREFIX.length)) : null;
  if (!match?.route.money) return undefined;
  const key = randomUUID();
  notes.push(
    `note: ${method} ${path} moves money and needs an Idempotency-Key: generated ${key} (not signed; send the same key to replay, or pass --idempotency-key K).`,
  );
  return key;
}

export function formatSign(r: SignResult): string {
  const lines = [
    'Canonical string (7 fields joined by "\\n", no trailing newline):',
    describeCanonical(r.canonical).join('\n'),
    '',
    `Body SHA-256:  ${r.body_sha256}`,
    `Signature:     ${r.signature}`,
    '',
    'Headers:',
    ...Object.entries(r.headers).map(([k, v]) => `  ${k}: ${v}`),
    '',
    'curl:',
    r.curl,
  ];
  return lines.join('\n') + '\n';
}

// ---------------------------------------------------------------------------------------
// `cardctl sign diagnose`

export interface DiagnoseOptions {
  request: string;
  profile?: string;
  now?: number;
  /** also try the profiles whose secret comes from a command (it may prompt) */
  trySecretCommands?: boolean;
  env?: NodeJS.ProcessEnv;
}

export async function runDiagnose(opts: DiagnoseOptions): Promise<Diagnosis> {
  const env = opts.env ?? process.env;
  const bytes = await readFileOrStdin(opts.request, '--request');
  let all: RawRequest[];
  try {
    all = parsePastedRequests(bytes);
  } catch (err) {
    throw usageError(
      `cannot read the request in ${opts.request === '-' ? 'stdin' : opts.request}: ${(err as Error).message}.`,
      'Give it as raw HTTP (as a proxy or `curl -v` shows it: the request line, the headers, a blank line, then the body), as a curl command line ("Copy as cURL"), or as a HAR file.',
    );
  }
  const parsed = all[0]!;
  const { secret, keyId, warning } = await loadSigningSecret({ profile: opts.profile, env });
  const { diagnose } = await import('../signing/diagnose.js'); // only here: `sign` does not load the diagnosis (4 modules)
  let d = diagnose({ request: parsed, secret, keyId, now: opts.now ?? Math.floor(Date.now() / 1000) });
  if (warning) d.warnings.push(warning);
  if (all.length > 1)
    d.warnings.push(
      `the HAR file holds ${all.length} requests to the API: this is the first (${parsed.method} ${parsed.target}); the mock console's diagnosis box (\`cardctl mock start --console\`) diagnoses each.`,
    );
  if (!d.valid && !d.found && d.received_signature !== null)
    d = await tryOtherProfiles(d, parsed, secret, opts.trySecretCommands === true, env);
  return d;
}

/** When nothing else explains the signature: the secrets of the other stored profiles (named, never shown). */
async function tryOtherProfiles(
  d: Diagnosis,
  request: RawRequest,
  used: string,
  runCommands: boolean,
  env: NodeJS.ProcessEnv,
): Promise<Diagnosis> {
  const [{ otherProfileSecrets }, { explainWithOtherSecrets }] = await Promise.all([
    import('../profiles/resolve.js'),
    import('../signing/diagnose-other-secret.js'),
  ]);
  let others;
  try {
    others = await otherProfileSecrets(used, runCommands, env);
  } catch {
    d.warnings.push(
      'the secrets of the other profiles were not tried: the profile store cannot be read (`cardctl profiles list` says why).',
    );
    return d;
  }
  const { candidates, notTried } = others;
  const explained = explainWithOtherSecrets(d, request, candidates);
  if (!explained.found && notTried.length > 0)
    explained.warnings.push(`the secrets of other profiles were tried, except ${notTried.join(', ')}.`);
  return explained;
}

// ---------------------------------------------------------------------------------------
// `cardctl webhooks verify` / `webhooks sign`

export interface WebhookVerifyResult {
  valid: boolean;
  reason: WebhookVerdict;
  timestamp?: number;
  now: number;
  tolerance: number;
  /** when the payload looks re-serialized: the serialization that would have verified */
  reserializedAs?: string;
}

/** Tries the usual serializations of the same JSON (only after a mismatch, only for the hint; never trusted). */
function findReserialization(secret: string, header: string, payload: Buffer): string | undefined {
  const t = /(?:^|,)\s*t=(\d{1,15})\s*(?:,|$)/.exec(header)?.[1];
  const sigs = [...header.matchAll(/(?:^|,)\s*v1=([0-9a-fA-F]+)\s*(?=,|$)/g)].map((m) => m[1]);
  if (!t || sigs.length === 0 || payload.length > 5_000_000) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return undefined;
  }
  const candidates: Array<[string, string]> = [
    ['compact JSON', JSON.stringify(value)],
    ['JSON pretty-printed with 2 spaces', JSON.stringify(value, null, 2)],
    ['JSON pretty-printed with 4 spaces', JSON.stringify(value, null, 4)],
  ];
  for (const [label, text] of candidates) {
    for (const variant of [text, text + '\n']) {
      if (Buffer.from(variant, 'utf8').equals(payload)) continue;
      if (sigs.includes(webhookSignature(secret, variant, t)))
        return label + (variant.endsWith('\n') ? ' with a final newline' : '');
    }
  }
  return undefined;
}

export async function runWebhookVerify(opts: {
  header: string;
  payload: string;
  tolerance?: number;
  now?: number;
  profile?: string;
  env?: NodeJS.ProcessEnv;
}): Promise<WebhookVerifyResult> {
  const payload = await readFileOrStdin(opts.payload, '--payload');
  const secret = await loadWebhookSecret({ profile: opts.profile, env: opts.env });
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.tolerance ?? 300;
  const v = verifyWebhook({ secret, header: opts.header, body: payload, now, tolerance });
  const result: WebhookVerifyResult = { valid: v.valid, reason: v.reason, timestamp: v.timestamp, now, tolerance };
  if (v.reason === 'signature_mismatch') result.reserializedAs = findReserialization(secret, opts.header, payload);
  return result;
}

/** The error that `webhooks verify` exits with (kind signature_invalid: exit 3). */
export function webhookVerifyError(r: WebhookVerifyResult): CardctlError {
  switch (r.reason) {
    case 'malformed_header':
      return new CardctlError(
        'the signature header is malformed: expected "t=<unix seconds>, v1=<hex>" with a numeric t and at least one v1.',
        {
          kind: 'signature_invalid',
          code: r.reason,
          hint: "Pass the X-Service-Signature header value exactly as received, quoted: --header 't=1763800000, v1=...'.",
        },
      );
    case 'timestamp_out_of_tolerance': {
      const age = r.now - (r.timestamp ?? 0);
      return new CardctlError(
        `the signature matches but its timestamp is ${Math.abs(age)} s ${age >= 0 ? 'old' : 'in the future'} (tolerance ${r.tolerance} s).`,
        {
          kind: 'signature_invalid',
          code: r.reason,
          hint: 'A replayed or delayed delivery, or a wrong clock. To check an old delivery pass --now with the time it arrived, or raise --tolerance.',
        },
      );
    }
    default:
      return new CardctlError('the webhook signature does not match this payload.', {
        kind: 'signature_invalid',
        code: r.reason,
        hint: r.reserializedAs
          ? `The payload was re-serialized: the signature matches the same JSON written as ${r.reserializedAs}. Pass the raw body bytes exactly as received, before any JSON parsing.`
          : 'The usual cause is a body that was parsed and re-serialized (JSON.parse + JSON.stringify, a framework body parser, a pretty-printer): pass the raw body bytes exactly as received. ' +
            "Otherwise check that the secret is this endpoint's signing secret (CARDCTL_WEBHOOK_SECRET or the profile's).",
      });
  }
}

export interface WebhookSignResult {
  header: string;
  timestamp: number;
  headers: Record<string, string>;
  notes: string[];
}

export async function runWebhookSign(opts: {
  payload: string;
  timestamp?: number;
  profile?: string;
  env?: NodeJS.ProcessEnv;
}): Promise<WebhookSignResult> {
  const payload = await readFileOrStdin(opts.payload, '--payload');
  const secret = await loadWebhookSecret({ profile: opts.profile, env: opts.env });
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  const header = signWebhook(secret, payload, timestamp);
  // The event type is read only after signing, from a copy; the signed bytes stay untouched.
  const notes: string[] = [];
  let type: string | undefined;
  try {
    const parsed: unknown = JSON.parse(payload.toString('utf8'));
    const t = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>).type : undefined;
    if (typeof t === 'string') type = t;
  } catch {
    /* not JSON: no event header */
  }
  if (type === undefined)
    notes.push('note: the payload has no JSON "type" field, so there is no X-Service-Event header.');
  const { ulid } = await import('ulid');
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (type !== undefined) headers['X-Service-Event'] = type;
  headers['X-Service-Delivery'] = ulid();
  headers['X-Service-Signature'] = header;
  return { header, timestamp, headers, notes };
}
