// Webhook signatures (`X-Service-Signature: t=<unix>, v1=<hex>`), as SIGNING.md settles them.
import { createHmac } from 'node:crypto';
import { safeEqual } from './compare.js';

export const DEFAULT_WEBHOOK_TOLERANCE = 300;

export type WebhookVerdict = 'ok' | 'malformed_header' | 'signature_mismatch' | 'timestamp_out_of_tolerance';

export interface WebhookVerification {
  valid: boolean;
  reason: WebhookVerdict;
  /** the header's `t`, when it parsed */
  timestamp?: number;
}

function payloadBytes(body: Uint8Array | string): Buffer {
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** lowercase hex HMAC-SHA256(secret, `${t}.` + raw body). */
export function webhookSignature(secret: string, body: Uint8Array | string, timestamp: number | string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`, 'utf8')
    .update(payloadBytes(body))
    .digest('hex');
}

/** The `X-Service-Signature` header value for a body sent at `timestamp` (Unix seconds). */
export function signWebhook(secret: string, body: Uint8Array | string, timestamp: number): string {
  return `t=${timestamp}, v1=${webhookSignature(secret, body, timestamp)}`;
}

export interface ParsedWebhookHeader {
  t: string;
  v1: string[];
}

/** Splits on `,`, trims each `k=v`; unknown items ignored. Null when `t` or every `v1` is missing, or `t` is not numeric. */
export function parseWebhookHeader(header: string): ParsedWebhookHeader | null {
  let t: string | undefined;
  const v1: string[] = [];
  for (const item of header.split(',')) {
    const trimmed = item.trim();
    const eq = trimmed.indexOf('=');
    if (eq < 0) continue;
    const k = trimmed.slice(0, eq).trim();
    const v = trimmed.slice(eq + 1).trim();
    if (k === 't' && t === undefined) t = v;
    else if (k === 'v1') v1.push(v);
  }
  if (t === undefined || !/^\d{1,15}$/.test(t) || v1.length === 0) return null;
  return { t, v1 };
}

export interface VerifyWebhookInput {
  secret: string;
  header: string;
  /** raw body bytes exactly as received; never parsed before the signature matches */
  body: Uint8Array | string;
  /** Unix seconds, injected */
  now: number;
  tolerance?: number;
}

export function verifyWebhook(input: VerifyWebhookInput): WebhookVerification {
  const parsed = parseWebhookHeader(input.header);
  if (!parsed) return { valid: false, reason: 'malformed_header' };
  const expected = webhookSignature(input.secret, input.body, parsed.t);
  let matched = false;
  for (const candidate of parsed.v1) matched = safeEqual(expected, candidate) || matched;
  const timestamp = Number(parsed.t);
  if (!matched) return { valid: false, reason: 'signature_mismatch', timestamp };
  const tolerance = input.tolerance ?? DEFAULT_WEBHOOK_TOLERANCE;
  if (Math.abs(input.now - timestamp) > tolerance)
    return { valid: false, reason: 'timestamp_out_of_tolerance', timestamp };
  return { valid: true, reason: 'ok', timestamp };
}
