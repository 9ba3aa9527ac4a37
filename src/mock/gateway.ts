// The gateway: SIGNING.md's eight checks, in its order, with its codes. Steps 1 to 7 need no
// route; step 8 (scope) runs once the route is known.
import { canonicalString, verifyRequestSignature } from '../signing/index.js';
import { MESSAGES } from '../contract/errors.js';
import type { RouteDef } from '../contract/routes.js';
import { fail, type Reply } from './envelope.js';
import { isAllowed } from './allowlist.js';
import type { Runtime } from './runtime.js';
import type { KeyRec } from './state.js';
import type { FirstUse, GatewayInput, Refusal } from './refusal.js';

export const TIMESTAMP_WINDOW_S = 300;

export type { GatewayInput } from './refusal.js';

export type GatewayResult =
  | { ok: true; key: KeyRec; rateHeaders: Record<string, string> }
  | { ok: false; reply: Reply; why: Refusal; key?: KeyRec };

const deny = (
  status: number,
  message: string,
  code: string,
  why: Refusal,
  headers?: Record<string, string>,
  key?: KeyRec,
): { ok: false; reply: Reply; why: Refusal; key?: KeyRec } => ({
  ok: false,
  reply: fail(status, message, { gateway: [code] }, headers),
  why,
  key,
});

const SIGNATURE_HEADER_NAMES = ['X-Api-Key', 'X-Timestamp', 'X-Nonce', 'X-Signature'];

function header(headers: GatewayInput['headers'], name: string): string | undefined {
  const v = headers[name];
  const s = Array.isArray(v) ? v.join(', ') : v;
  return s === undefined || s === '' ? undefined : s;
}

export function rateHeaders(limit: number, remaining: number): Record<string, string> {
  return { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(remaining) };
}

/** Step 3's test: the key exists, is not revoked and has not expired (simulated clock). */
export function usableKey(rt: Runtime, keyId: string | undefined): KeyRec | undefined {
  if (!keyId) return undefined;
  const key = Object.prototype.hasOwnProperty.call(rt.state.keys, keyId) ? rt.state.keys[keyId] : undefined;
  if (!key || key.revoked) return undefined;
  if (key.expires_at !== undefined && key.expires_at !== null && rt.now() >= key.expires_at) return undefined;
  return key;
}

/**
 * The rate limit headers for a request naming a known key, read-only (nothing is counted), or
 * undefined. Lets the answers decided before step 3 (missing headers, timestamp, body too large)
 * carry them too: SIGNING.md puts them on every response to a known key.
 */
export function knownKeyRateHeaders(rt: Runtime, headers: GatewayInput['headers']): Record<string, string> | undefined {
  const key = usableKey(rt, header(headers, 'x-api-key'));
  if (!key) return undefined;
  const peek = rt.rate.peek(key.key_id, rt.options.realNow());
  return rateHeaders(peek.limit, peek.remaining);
}

/** `seq`: the request's id in the request log, remembered with its nonce (0 when the log is off). */
export function authenticate(rt: Runtime, input: GatewayInput, seq = 0): GatewayResult {
  const keyId = header(input.headers, 'x-api-key');
  const timestamp = header(input.headers, 'x-timestamp');
  const nonce = header(input.headers, 'x-nonce');
  const signature = header(input.headers, 'x-signature');
  // 1. all four headers
  if (!keyId || !timestamp || !nonce || !signature) {
    const missing = SIGNATURE_HEADER_NAMES.filter((_, i) => ![keyId, timestamp, nonce, signature][i]);
    const why: Refusal = { kind: 'missing_signature_headers', missing, sent: Object.keys(input.headers) };
    return deny(401, MESSAGES.unauthorized, 'missing_signature_headers', why, knownKeyRateHeaders(rt, input.headers));
  }
  // 2. timestamp shape and window, on the real clock
  const nowS = Math.floor(rt.options.realNow() / 1000);
  if (!/^\d{1,10}$/.test(timestamp) || Math.abs(nowS - Number(timestamp)) > TIMESTAMP_WINDOW_S) {
    return deny(
      401,
      MESSAGES.unauthorized,
      'timestamp_out_of_window',
      { kind: 'timestamp_out_of_window', timestamp },
      knownKeyRateHeaders(rt, input.headers),
    );
  }
  // 3. a key that exists, is not revoked and has not expired
  const key = usableKey(rt, keyId);
  if (!key) return deny(401, MESSAGES.unauthorized, 'invalid_api_key', { kind: 'invalid_api_key', keyId });
  // From here the key is known: every answer carries the rate limit headers (SIGNING.md).
  const realNow = rt.options.realNow();
  const peek = rt.rate.peek(key.key_id, realNow);
  const known = rateHeaders(peek.limit, peek.remaining);
  // 4. signature under the secret, or the previous one for 24 h after a roll
  const simNow = rt.now();
  const secrets = [key.secret];
  if (key.previous_secret && key.previous_secret_until !== null && simNow < key.previous_secret_until)
    secrets.push(key.previous_secret);
  let canonical: string;
  try {
    canonical = canonicalString({
      method: input.method,
      path: input.rawPath,
      query: input.rawQuery,
      keyId,
      timestamp,
      nonce,
      body: input.body,
    });
  } catch {
    // a query that does not decode to UTF-8 cannot be canonicalized (SIGNING.md)
    return deny(401, MESSAGES.unauthorized, 'invalid_signature', { kind: 'invalid_signature', key, input }, known, key);
  }
  if (!verifyRequestSignature(canonical, signature, secrets))
    return deny(
      401,
      MESSAGES.unauthorized,
      'invalid_signature',
      { kind: 'invalid_signature', key, input, canonical },
      known,
      key,
    );
  // 5. nonce, remembered only now that the signature verified, until 600 s passed on both clocks
  const both = { sim: simNow, real: realNow };
  const seen = rt.nonces.firstUse(key.key_id, nonce, both);
  if (seen) {
    const first: FirstUse | null = seen.seq ? { seq: seen.seq, at: seen.at } : null;
    return deny(409, MESSAGES.conflict, 'replay_detected', { kind: 'replay_detected', nonce, first }, known, key);
  }
  rt.nonces.remember(key.key_id, nonce, both, seq);
  // 6. rate limit
  const rate = rt.rate.take(key.key_id, realNow);
  const headers = rateHeaders(rate.limit, rate.remaining);
  if (!rate.allowed) {
    return {
      ok: false,
      reply: fail(
        429,
        MESSAGES.tooManyRequests,
        { rate_limit: ['exceeded'] },
        { ...headers, 'Retry-After': String(rate.retryAfter ?? 1) },
      ),
      why: {
        kind: 'rate_limited',
        limit: rate.limit,
        count: rate.limit - rate.remaining,
        retryAfter: rate.retryAfter ?? 1,
      },
      key,
    };
  }
  // 7. allowlist
  if (!isAllowed(key.ip_allowlist, input.remoteAddress)) {
    return deny(
      403,
      MESSAGES.forbidden,
      'ip_not_allowed',
      { kind: 'ip_not_allowed', address: input.remoteAddress, allowlist: key.ip_allowlist },
      headers,
      key,
    );
  }
  return { ok: true, key, rateHeaders: headers };
}

/** 8. the route's scope; a key without scopes has them all. */
export function checkScope(key: KeyRec, route: RouteDef): Reply | null {
  if (key.scopes.length === 0 || key.scopes.includes(route.scope)) return null;
  return fail(403, MESSAGES.forbidden, { gateway: ['out_of_scope'] });
}
