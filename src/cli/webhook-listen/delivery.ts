// One delivery as received: its raw body read (up to the limit), its signature checked over
// those bytes, and the line that reports it. Nothing in a body is parsed before its signature matched.
import type http from 'node:http';
import { verifyWebhook, type WebhookVerdict } from '../../signing/index.js';

/** Largest delivery body read (the mock's own request limit). */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

export type ListenReason = WebhookVerdict | 'body_too_large';

/** One NDJSON line (--json) per delivery. */
export interface DeliveryLine {
  received_at: string;
  delivery_id: string | null;
  /** the X-Service-Event header as sent */
  event: string | null;
  valid: boolean;
  reason: ListenReason;
  /** from the body, only once the signature matched; null otherwise */
  type: string | null;
  occurred_at: string | null;
  data: Record<string, unknown> | null;
  /** the status this listener answered the sender with */
  status: number;
  /** with --forward-to, for a verified delivery: the target's status (null when unreachable) */
  forwarded_status?: number | null;
  forward_error?: string;
}

export interface Verification {
  secret: string;
  /** seconds */
  tolerance: number;
  /** Unix ms */
  now: () => number;
}

export interface ReceivedDelivery {
  /** status 200 when verified; else 400 or 413, the answer owed to the sender */
  line: DeliveryLine;
  /** the raw bytes, when verified */
  body?: Buffer;
}

export const header = (req: http.IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
};

/** Reads and verifies one POST. */
export async function receiveDelivery(req: http.IncomingMessage, check: Verification): Promise<ReceivedDelivery> {
  const base: Pick<DeliveryLine, 'received_at' | 'delivery_id' | 'event'> = {
    received_at: new Date(check.now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    delivery_id: header(req, 'X-Service-Delivery') ?? null,
    event: header(req, 'X-Service-Event') ?? null,
  };
  const refused = { type: null, occurred_at: null, data: null } as const;
  const body = await readBody(req);
  if (body === null) return { line: { ...base, valid: false, reason: 'body_too_large', ...refused, status: 413 } };
  // The signature over the raw bytes first; nothing in the body is read before it matches.
  const verdict = verifyWebhook({
    secret: check.secret,
    header: header(req, 'X-Service-Signature') ?? '',
    body,
    now: Math.floor(check.now() / 1000),
    tolerance: check.tolerance,
  });
  if (!verdict.valid) return { line: { ...base, valid: false, reason: verdict.reason, ...refused, status: 400 } };
  return { line: { ...base, valid: true, reason: 'ok', ...eventFields(body), status: 200 }, body };
}

/** Reads the raw body; null when it is over the limit (the rest is drained). */
function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** type, occurred_at and data of a verified body; nulls where it is not a JSON object with them. */
function eventFields(body: Buffer): Pick<DeliveryLine, 'type' | 'occurred_at' | 'data'> {
  let parsed: Record<string, unknown> = {};
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    if (v && typeof v === 'object' && !Array.isArray(v)) parsed = v as Record<string, unknown>;
  } catch {
    // signed but not JSON: still a verified delivery, shown without fields
  }
  return {
    type: typeof parsed.type === 'string' ? parsed.type : null,
    occurred_at: typeof parsed.occurred_at === 'string' ? parsed.occurred_at : null,
    data:
      parsed.data && typeof parsed.data === 'object' && !Array.isArray(parsed.data)
        ? (parsed.data as Record<string, unknown>)
        : null,
  };
}

/** A JSON answer (or an empty one); nothing when an answer already went out. */
export function send(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent) return;
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...(text ? { 'Content-Type': 'application/json' } : {}),
    'Content-Length': String(Buffer.byteLength(text)),
    ...extra,
  });
  res.end(text);
}
