// --forward-to: a verified delivery goes on to the user's app as it came (raw bytes, the four
// delivery headers), and the sender gets the app's answer (502 when the app cannot be reached).
import http from 'node:http';
import https from 'node:https';
import { header, send, type DeliveryLine } from './delivery.js';

/** Spec "Delivery behavior": 15 s total, the same budget for the forward. */
export const FORWARD_TIMEOUT_MS = 15_000;
/** Largest forward answer body relayed to the sender. */
const MAX_RELAY_BYTES = 1024 * 1024;

const DELIVERY_HEADERS = ['Content-Type', 'X-Service-Event', 'X-Service-Delivery', 'X-Service-Signature'] as const;

interface ForwardResult {
  status: number | null;
  error?: string;
  body?: Buffer;
  contentType?: string;
}

/**
 * Forwards a verified delivery and answers the sender with the target's status and body;
 * fills in the line's status, forwarded_status and forward_error. `inFlight` holds the abort of
 * a forward under way, so that stopping the listener cuts it short.
 */
export async function forwardAndAnswer(
  target: URL,
  req: http.IncomingMessage,
  body: Buffer,
  res: http.ServerResponse,
  line: DeliveryLine,
  inFlight: Set<() => void>,
): Promise<void> {
  const headers: Record<string, string> = {};
  for (const name of DELIVERY_HEADERS) {
    const v = header(req, name);
    if (v !== undefined) headers[name] = v;
  }
  const fwd = forwardDelivery(target, body, headers);
  inFlight.add(fwd.abort);
  const r = await fwd.result;
  inFlight.delete(fwd.abort);
  if (r.status === null) {
    line.status = 502;
    line.forwarded_status = null;
    line.forward_error = r.error ?? 'unreachable';
    send(res, 502, { received: false, reason: 'forward_failed', error: line.forward_error });
    return;
  }
  line.status = r.status;
  line.forwarded_status = r.status;
  if (res.headersSent) return;
  const relay = r.body ?? Buffer.alloc(0);
  res.writeHead(r.status, {
    ...(r.contentType && relay.length ? { 'Content-Type': r.contentType } : {}),
    'Content-Length': String(relay.length),
  });
  res.end(relay);
}

/** POSTs the raw body with the four delivery headers, unchanged; never throws. */
export function forwardDelivery(
  target: URL,
  body: Buffer,
  headers: Record<string, string>,
  timeoutMs = FORWARD_TIMEOUT_MS,
): { result: Promise<ForwardResult>; abort: () => void } {
  let req: http.ClientRequest | undefined;
  const result = new Promise<ForwardResult>((resolve) => {
    let settled = false;
    const finish = (r: ForwardResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      finish({ status: null, error: `no answer within ${timeoutMs / 1000} s` });
      req?.destroy();
    }, timeoutMs);
    const lib = target.protocol === 'https:' ? https : http;
    try {
      req = lib.request(
        target,
        {
          method: 'POST',
          agent: false,
          headers: { ...headers, 'Content-Length': String(body.length), Connection: 'close' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= MAX_RELAY_BYTES) chunks.push(c);
          });
          res.on('end', () =>
            finish({
              status: res.statusCode ?? 502,
              body: Buffer.concat(chunks),
              contentType: res.headers['content-type'],
            }),
          );
          res.on('error', () => finish({ status: res.statusCode ?? null, body: Buffer.concat(chunks) }));
        },
      );
    } catch (err) {
      finish({ status: null, error: (err as Error).message });
      return;
    }
    req.on('error', (err: NodeJS.ErrnoException) => finish({ status: null, error: err.code ?? err.message }));
    req.end(body);
  });
  return { result, abort: () => req?.destroy() };
}
