// An independent request signer written from SIGNING.md for the request-log tests (issue 18
// item 5): it does not import the project's signing core, so a diagnosis is checked against
// requests the mock's own code did not build. Each part of the canonical string can be
// overridden to make one deliberate mistake.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { rawRequest, type ApiResponse } from './api.js';

const enc = (s: string): string =>
  [...Buffer.from(s, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-_.]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : b === 0x20
          ? '+'
          : '%' + b.toString(16).toUpperCase().padStart(2, '0'),
    )
    .join('');

/** QUERY_STRING of SIGNING.md for plain `k=v&k2=v2` queries (decoded, sorted by bytes, list keys as key[]). */
export function canonicalQueryOf(raw: string): string {
  const pairs = raw
    .split('&')
    .filter(Boolean)
    .map((p) => {
      const i = p.indexOf('=');
      const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
      return i < 0 ? [dec(p), ''] : [dec(p.slice(0, i)), dec(p.slice(i + 1))];
    })
    .map(([k, v]) =>
      k!.endsWith('[]') ? { key: k!.slice(0, -2), value: v!, list: true } : { key: k!, value: v!, list: false },
    );
  const count = new Map<string, number>();
  for (const p of pairs) count.set(p.key, (count.get(p.key) ?? 0) + (p.list ? 2 : 1));
  const cmp = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  pairs.sort((a, b) => cmp(a.key, b.key) || cmp(a.value, b.value));
  return pairs.map((p) => `${enc(p.key)}${count.get(p.key)! > 1 ? '[]' : ''}=${enc(p.value)}`).join('&');
}

export interface SignedCall {
  port: number;
  method: string;
  /** full path, /api/v1/... */
  path: string;
  query?: string;
  body?: string;
  keyId: string;
  secret: string;
  nonce?: string;
  timestamp?: string;
  headers?: Record<string, string>;
  /** deliberate mistakes: what is signed instead of the correct field */
  signed?: {
    method?: string;
    path?: string;
    query?: string;
    timestamp?: string;
    bodySha256?: string;
    secret?: string;
    keyId?: string;
  };
}

export const nowS = (): string => String(Math.floor(Date.now() / 1000));
export const sha256hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

export function independentSignature(secret: string, fields: string[]): string {
  return createHmac('sha256', secret).update(fields.join('\n'), 'utf8').digest('base64');
}

/** Sends one request signed by this file's signer; returns the answer. */
export function signedCall(c: SignedCall): Promise<ApiResponse> {
  const nonce = c.nonce ?? randomUUID();
  const timestamp = c.timestamp ?? nowS();
  const body = c.body ?? '';
  const s = c.signed ?? {};
  const fields = [
    s.method ?? c.method.toUpperCase(),
    s.path ?? (c.path.length > 1 ? c.path.replace(/\/$/, '') : c.path),
    s.query ?? canonicalQueryOf(c.query ?? ''),
    s.keyId ?? c.keyId,
    s.timestamp ?? timestamp,
    nonce,
    s.bodySha256 ?? sha256hex(body),
  ];
  const headers: Record<string, string> = {
    'X-Api-Key': c.keyId,
    'X-Timestamp': timestamp,
    'X-Nonce': nonce,
    'X-Signature': independentSignature(s.secret ?? c.secret, fields),
    ...(body ? { 'Content-Type': 'application/json' } : {}),
    ...(c.headers ?? {}),
  };
  return rawRequest({
    port: c.port,
    method: c.method,
    path: c.query ? `${c.path}?${c.query}` : c.path,
    headers,
    body: body || undefined,
  });
}
