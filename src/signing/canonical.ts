// The seven-field canonical string of SIGNING.md, one small function per step.
import { createHash } from 'node:crypto';
import { compareUtf8, decodeComponent, encodeComponent } from './encoding.js';

export const EMPTY_BODY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** Field 1: the method, uppercased. */
export function canonicalMethod(method: string): string {
  return method.toUpperCase();
}

/** Field 2: the path as sent, without query, one trailing `/` removed (`/` alone stays). */
export function canonicalPath(path: string): string {
  const q = path.indexOf('?');
  const bare = q >= 0 ? path.slice(0, q) : path;
  return bare.length > 1 && bare.endsWith('/') ? bare.slice(0, -1) : bare;
}

export interface QueryParam {
  key: string;
  value: string;
  /** the key was sent with a `[]` suffix */
  list: boolean;
}

/** Step 1 and 2 of QUERY_STRING: split, decode, and strip `[]` from list keys. */
export function parseQuery(raw: string): QueryParam[] {
  const query = raw.startsWith('?') ? raw.slice(1) : raw;
  const params: QueryParam[] = [];
  for (const piece of query.split('&')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    let key = decodeComponent(eq < 0 ? piece : piece.slice(0, eq));
    const value = eq < 0 ? '' : decodeComponent(piece.slice(eq + 1));
    const list = key.endsWith('[]');
    if (list) key = key.slice(0, -2);
    params.push({ key, value, list });
  }
  return params;
}

/** Field 3: steps 3 to 5 of QUERY_STRING. Throws QueryEncodingError for undecodable input. */
export function canonicalQuery(raw: string): string {
  const groups = new Map<string, { values: string[]; list: boolean }>();
  for (const p of parseQuery(raw)) {
    const g = groups.get(p.key);
    if (g) {
      g.values.push(p.value);
      g.list ||= p.list;
    } else {
      groups.set(p.key, { values: [p.value], list: p.list });
    }
  }
  const parts: string[] = [];
  for (const key of [...groups.keys()].sort(compareUtf8)) {
    const g = groups.get(key)!;
    const k = encodeComponent(key);
    if (g.values.length === 1 && !g.list) {
      parts.push(`${k}=${encodeComponent(g.values[0]!)}`);
    } else {
      for (const v of [...g.values].sort(compareUtf8)) parts.push(`${k}[]=${encodeComponent(v)}`);
    }
  }
  return parts.join('&');
}

/** Field 7: lowercase hex SHA-256 of the raw body bytes. */
export function bodySha256(body: Uint8Array | string | undefined): string {
  if (body === undefined || body.length === 0) return EMPTY_BODY_SHA256;
  return createHash('sha256').update(body).digest('hex');
}

export interface CanonicalInput {
  method: string;
  /** path as sent, may include a `?query` (which is then used when `query` is not given) */
  path: string;
  /** raw query string as sent, without `?` */
  query?: string;
  keyId: string;
  timestamp: string;
  nonce: string;
  /** raw body bytes, or the precomputed hex hash in `bodyHash` */
  body?: Uint8Array | string;
  bodyHash?: string;
}

/** Splits `path?query` into its two parts. */
export function splitPathAndQuery(pathWithQuery: string): { path: string; query: string } {
  const q = pathWithQuery.indexOf('?');
  return q < 0 ? { path: pathWithQuery, query: '' } : { path: pathWithQuery.slice(0, q), query: pathWithQuery.slice(q + 1) };
}

/** The seven fields joined by `\n`, no trailing newline. */
export function canonicalString(input: CanonicalInput): string {
  const split = splitPathAndQuery(input.path);
  const rawQuery = input.query ?? split.query;
  return [
    canonicalMethod(input.method),
    canonicalPath(split.path),
    canonicalQuery(rawQuery),
    input.keyId,
    input.timestamp,
    input.nonce,
    input.bodyHash ?? bodySha256(input.body),
  ].join('\n');
}
