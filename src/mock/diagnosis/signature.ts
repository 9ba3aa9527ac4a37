// The diagnosis of 401 invalid_signature: the engine of `sign diagnose` (same mistake ids) run
// with the key's secret on the request as received; else "signed with another key's secret"
// (the other mode's key, a rolled secret past its 24 hours, a revoked key); and always the
// canonical string the mock built, invisible characters made visible. Never a secret and never
// the signature the mock expected. Bounded work (issue 29): a body past REWRITTEN_BODY_BYTES or
// nested past REWRITTEN_BODY_DEPTH is not parsed and re-serialized (that took 1.5 s of the event
// loop for 5 MB, and overflowed the stack for 100,000 nested arrays); every other check runs and
// the diagnosis says which were skipped.
import { canonicalString, signCanonical } from '../../signing/index.js';
import { safeEqual } from '../../signing/compare.js';
import { diagnoseReceived } from '../../signing/diagnose.js';
import { visible } from '../../signing/visible.js';
import type { GatewayInput } from '../gateway.js';
import { jsonNestingDepth } from '../json-limits.js';
import type { Diagnosis } from '../request-log.js';
import type { Runtime } from '../runtime.js';
import type { KeyRec } from '../state.js';

const header = (input: GatewayInput, name: string): string => {
  const v = input.headers[name];
  return Array.isArray(v) ? v.join(', ') : (v ?? '');
};

/** The secret (of any key but the one named, or this key's old one) that verifies the request, described. */
function otherSecret(
  rt: Runtime,
  key: KeyRec,
  canonical: string,
  signature: string,
): { keyId: string; why: string } | undefined {
  const verifies = (secret: string | null): boolean =>
    secret !== null && safeEqual(signCanonical(secret, canonical), signature);
  if (verifies(key.previous_secret)) {
    const until = key.previous_secret_until ? new Date(key.previous_secret_until).toISOString() : 'the end of its 24 h';
    return {
      keyId: key.key_id,
      why: `this key's previous secret, accepted for 24 h after the roll, until ${until} (simulated clock): use the key's current secret`,
    };
  }
  for (const other of Object.values(rt.state.keys)) {
    if (other.key_id === key.key_id) continue;
    if (verifies(other.secret) || verifies(other.previous_secret)) {
      const what = other.revoked
        ? `revoked key ${other.key_id}`
        : other.merchant_id === key.merchant_id && other.mode !== key.mode
          ? `the ${other.mode} key ${other.key_id} (the other mode)`
          : `key ${other.key_id}${other.merchant_id !== key.merchant_id ? ' of another merchant' : ''}`;
      return {
        keyId: other.key_id,
        why: `the secret of ${what}: sign with the secret of ${key.key_id}, the key named in X-Api-Key, or send ${other.key_id} in X-Api-Key`,
      };
    }
  }
  return undefined;
}

/** Bodies up to this size (and nesting) are also checked for having been signed in another JSON form. */
export const REWRITTEN_BODY_BYTES = 64 * 1024;
export const REWRITTEN_BODY_DEPTH = 64;

/** Why the re-serialization checks are skipped for this body, or null when they run. */
function bodyTooBig(body: Buffer): string | null {
  if (body.length > REWRITTEN_BODY_BYTES) return `the body is ${body.length} bytes, over ${REWRITTEN_BODY_BYTES}`;
  if (jsonNestingDepth(body, REWRITTEN_BODY_DEPTH) > REWRITTEN_BODY_DEPTH)
    return `the body nests more than ${REWRITTEN_BODY_DEPTH} levels`;
  return null;
}

export function invalidSignature(rt: Runtime, key: KeyRec, input: GatewayInput, built?: string): Diagnosis {
  let canonical: string | null = built ?? null;
  try {
    canonical ??= canonicalString({
      method: input.method,
      path: input.rawPath,
      query: input.rawQuery,
      keyId: key.key_id,
      timestamp: header(input, 'x-timestamp'),
      nonce: header(input, 'x-nonce'),
      body: input.body,
    });
  } catch {
    canonical = null;
  }
  // a secret sent as the nonce, in the path or the query is never shown (the record is redacted again)
  const shownCanonical = canonical === null ? null : canonical.split('\n').map((f) => visible(rt.redactor.redact(f)));
  const skipped = bodyTooBig(input.body);
  const bounded = skipped
    ? {
        body_checks_skipped: `${skipped}: not checked for having been signed as re-serialized JSON (pretty-printed, keys reordered)`,
      }
    : {};
  const signature = header(input, 'x-signature');
  const other = canonical === null ? undefined : otherSecret(rt, key, canonical, signature);
  if (other) {
    return {
      id: 'signed_with_other_secret',
      message: `Signed with ${other.why}.`,
      details: { signed_with_key_id: other.keyId, canonical: shownCanonical },
    };
  }
  const found = diagnoseReceived(
    { method: input.method, path: input.rawPath, query: input.rawQuery, headers: input.headers, body: input.body },
    key.secret,
    { reserializeBody: !skipped },
  );
  const mistakes = found.mistakes.map((m) => ({ id: m.id, description: m.description, fix: m.fix }));
  // what the client signed, as the mistakes reproduce it: the console shows it beside the mock's
  const received =
    found.client_canonical === undefined
      ? {}
      : { received_canonical: found.client_canonical.split('\n').map((f) => visible(rt.redactor.redact(f))) };
  if (mistakes.length) {
    return {
      id: mistakes[0]!.id,
      message: mistakes.map((m) => `${m.description}: ${m.fix}`).join('; ') + '.',
      details: { mistakes, canonical: shownCanonical, ...received, ...bounded },
    };
  }
  return {
    id: 'signature_unexplained',
    message:
      `The signature matches none of the usual mistakes under the secret of ${key.key_id} (nor another key's secret): compare your canonical string with the mock's (details.canonical), ` +
      'field by field, and check that the secret is the one of this key' +
      (skipped
        ? ` (${skipped}: the mock did not check whether it was signed as re-serialized JSON; hash the exact bytes you send).`
        : '.'),
    details: { mistakes: [], canonical: shownCanonical, ...bounded },
  };
}
