// Request signatures: compute and verify. The secret is used as its UTF-8 text, never
// base64-decoded (SIGNING.md).
import { createHmac } from 'node:crypto';
import { bodySha256, canonicalString, type CanonicalInput } from './canonical.js';
import { safeEqual } from './compare.js';

/** base64(HMAC-SHA256(secret as UTF-8, canonical)). */
export function signCanonical(secret: string, canonical: string): string {
  return createHmac('sha256', secret).update(canonical).digest('base64'); // string key and message: their UTF-8 bytes;
}

export interface SignInput extends Omit<CanonicalInput, 'keyId' | 'timestamp' | 'nonce' | 'bodyHash'> {
  keyId: string;
  secret: string;
  /** Unix seconds; injected so that signing stays pure */
  timestamp: number | string;
  nonce: string;
}

export interface SignedRequest {
  canonical: string;
  body_sha256: string;
  signature: string;
  headers: {
    'X-Api-Key': string;
    'X-Timestamp': string;
    'X-Nonce': string;
    'X-Signature': string;
  };
}

/** What is signed, without the signature: the canonical string and the headers but X-Signature (`--dry-run` shows this, never a signature). */
export function requestToSign(
  input: Omit<SignInput, 'secret'>,
): Omit<SignedRequest, 'signature' | 'headers'> & { headers: Omit<SignedRequest['headers'], 'X-Signature'> } {
  const timestamp = String(input.timestamp);
  const hash = bodySha256(input.body);
  const canonical = canonicalString({
    method: input.method,
    path: input.path,
    query: input.query,
    keyId: input.keyId,
    timestamp,
    nonce: input.nonce,
    bodyHash: hash,
  });
  return {
    canonical,
    body_sha256: hash,
    headers: { 'X-Api-Key': input.keyId, 'X-Timestamp': timestamp, 'X-Nonce': input.nonce },
  };
}

/** Everything a client needs to send a signed request. */
export function signRequest(input: SignInput): SignedRequest {
  const unsigned = requestToSign(input);
  const signature = signCanonical(input.secret, unsigned.canonical);
  return { ...unsigned, signature, headers: { ...unsigned.headers, 'X-Signature': signature } };
}

/** Constant-time check of a received X-Signature against each candidate secret (a rolled key has two). */
export function verifyRequestSignature(canonical: string, signature: string, secrets: readonly string[]): boolean {
  let ok = false;
  for (const secret of secrets) ok = safeEqual(signCanonical(secret, canonical), signature) || ok;
  return ok;
}
