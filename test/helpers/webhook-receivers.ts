// Webhook receivers for grading with `cardctl webhooks test`: one correct, and several wrong
// in ways merchants' receivers are wrong. Each is a real HTTP server on a loopback port 0.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { webhookSignature } from '../../src/signing/index.js';
import { safeEqual } from '../../src/signing/compare.js';

export type ReceiverKind =
  /** verifies the raw bytes, any v1, lowercase hex, |now - t| <= 300: 200, else 400 */
  | 'correct'
  /** answers 200 to anything */
  | 'no-verification'
  /** verifies JSON.stringify(JSON.parse(body)) instead of the raw bytes */
  | 'reserialized'
  /** verifies the signature but never looks at t */
  | 'no-tolerance'
  /** correct, but answers after `delayMs` */
  | 'slow'
  /** answers 302 to everything (a redirect to https, say) */
  | 'redirect';

export interface Receiver {
  url: string;
  /** delivery ids seen, in order */
  seen: string[];
  close(): Promise<void>;
}

function parseHeader(header: string): { t: string; v1: string[] } | null {
  let t: string | undefined;
  const v1: string[] = [];
  for (const item of header.split(',')) {
    const [k, ...rest] = item.trim().split('=');
    const v = rest.join('=');
    if (k === 't' && t === undefined) t = v;
    else if (k === 'v1') v1.push(v);
  }
  return t !== undefined && /^\d+$/.test(t) && v1.length ? { t, v1 } : null;
}

function verify(secret: string, header: string | undefined, bytes: Buffer | string, tolerance: number | null): boolean {
  const h = header ? parseHeader(header) : null;
  if (!h) return false;
  const expected = webhookSignature(secret, bytes, h.t);
  if (!h.v1.some((v) => safeEqual(expected, v))) return false;
  return tolerance === null || Math.abs(Math.floor(Date.now() / 1000) - Number(h.t)) <= tolerance;
}

export async function startReceiver(
  kind: ReceiverKind,
  secret: string,
  opts: { delayMs?: number } = {},
): Promise<Receiver> {
  const seen: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      seen.push(String(req.headers['x-service-delivery'] ?? ''));
      const sig = req.headers['x-service-signature'] as string | undefined;
      let ok: boolean;
      switch (kind) {
        case 'no-verification':
          ok = true;
          break;
        case 'reserialized': {
          let again: string;
          try {
            again = JSON.stringify(JSON.parse(raw.toString('utf8')));
          } catch {
            again = '';
          }
          ok = verify(secret, sig, again, 300);
          break;
        }
        case 'no-tolerance':
          ok = verify(secret, sig, raw, null);
          break;
        case 'redirect':
          res.writeHead(302, { Location: 'https://example.com/webhooks' }).end();
          return;
        default:
          ok = verify(secret, sig, raw, 300);
      }
      const answer = (): void =>
        void res
          .writeHead(ok ? 200 : 400, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ received: ok }));
      if (kind === 'slow') setTimeout(answer, opts.delayMs ?? 1_000);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
