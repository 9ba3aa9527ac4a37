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
  if (raw === '' || raw === '?') return '';
  // Plain arrays and one Map instead of an object per parameter: this runs on every request.
  const index = new Map<string, number>();
  const keys: string[] = [];
  const values: string[][] = [];
  const lists: boolean[] = [];
  for (const p of parseQuery(raw)) {
    const i = index.get(p.key);
    if (i === undefined) {
      index.set(p.key, keys.length);
      keys.push(p.key);
      values.push([p.value]);
      lists.push(p.list);
    } else {
      values[i]!.push(p.value);
      if (p.list) lists[i] = true;
    }
  }
  const order = keys.map((_, i) => i).sort((a, b) => compareUtf8(keys[a]!, keys[b]!));
  let out = '';
  for (const i of order) {
    const k = encodeComponent(keys[i]!);
    const vs = values[i]!;
    if (vs.length === 1 && !lists[i]) {
      out += `${out ? '&' : ''}${k}=${encodeComponent(vs[0]!)}`;
    } else {
      for (const v of vs.sort(compareUtf8)) out += `${out ? '&' : ''}${k}[]=${encodeComponent(v)}`;
    }
  }
  return out;
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
  return q < 0
    ? { path: pathWithQuery, query: '' }
    : { path: pathWithQuery.slice(0, q), query: pathWithQuery.slice(q + 1) };
}

/** The seven fields joined by `\n`, no trailing newline. */
export function canonicalString(input: CanonicalInput): string {
  const q = input.path.indexOf('?');
  const path = q < 0 ? input.path : input.path.slice(0, q);
  const rawQuery = input.query ?? (q < 0 ? '' : input.path.slice(q + 1));
  // Plain concatenation: this runs for every request and every attempt.
  return (
    canonicalMethod(input.method) +
    '\n' +
    canonicalPath(path) +
    '\n' +
    canonicalQuery(rawQuery) +
    '\n' +
    input.keyId +
    '\n' +
    input.timestamp +
    '\n' +
    input.nonce +
    '\n' +
    (input.bodyHash ?? bodySha256(input.body))
  );
}
