// What every answer of the console checks and carries: the Host it was asked under (an address of
// this mock, never a name an attacker's DNS points here: no DNS rebinding), the Origin of a
// request that changes something (this page only), and the headers that keep the page to itself
// (a CSP without inline script, nothing loaded from elsewhere; no framing; no referrer).
import { isIP } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/** The host and port of a Host header (`127.0.0.1:4010`, `[::1]:4010`, `localhost:4010`), or null. */
export function splitHost(value: string): { host: string; port: number | null } | null {
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!m) return null;
  const host = m[1]!.toLowerCase().replace(/^\[|\]$/g, '');
  return { host, port: m[2] === undefined ? null : Number(m[2]) };
}

/**
 * A Host the console answers under: `localhost`, an IP address (no DNS involved), or the name the
 * mock was told to listen on (`--host`), always with the mock's own port.
 */
export function hostAllowed(header: string | undefined, listenHost: string, port: number): boolean {
  if (!header) return false;
  const h = splitHost(header);
  if (!h || h.port !== port) return false;
  return h.host === 'localhost' || isIP(h.host) !== 0 || h.host === listenHost.toLowerCase();
}

/** A request that changes something comes from this page: its Origin is the address it was sent to. */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  return typeof origin === 'string' && origin === `http://${req.headers.host ?? ''}`;
}

/** The value of one cookie of the request, or undefined. */
export function cookie(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function sendText(
  res: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  extra: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    ...SECURITY_HEADERS,
    ...extra,
  });
  res.end(body);
}

export const sendJson = (res: ServerResponse, status: number, value: unknown): void =>
  sendText(res, status, 'application/json; charset=utf-8', JSON.stringify(value));

/** The console's refusals, in the mock's envelope. */
export const refuse = (res: ServerResponse, status: number, message: string): void =>
  sendJson(res, status, { success: false, message, errors: {} });
