// Byte-level helpers shared by the canonicalization steps. Everything works on UTF-8 bytes,
// because SIGNING.md defines ordering and escaping on bytes, not on JS string code units.

const UNRESERVED = new Uint8Array(256);
for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.') {
  UNRESERVED[ch.charCodeAt(0)] = 1;
}
const HEX = '0123456789ABCDEF';

/** Thrown when a query does not percent-decode to valid UTF-8 (or has a broken `%` escape). */
export class QueryEncodingError extends Error {
  constructor(
    readonly piece: string,
    reason: string,
  ) {
    super(`query parameter ${JSON.stringify(piece)} cannot be canonicalized: ${reason}`);
    this.name = 'QueryEncodingError';
  }
}

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true });

/** enc() of SIGNING.md: every byte but A-Z a-z 0-9 - _ . percent-encoded (uppercase hex), space as `+`. */
const ALL_UNRESERVED = /^[A-Za-z0-9\-_.]*$/;

export function encodeComponent(value: string): string {
  if (ALL_UNRESERVED.test(value)) return value; // the common case: ids, numbers, cursors
  const bytes = Buffer.from(value, 'utf8');
  let out = '';
  for (const b of bytes) {
    if (UNRESERVED[b]) out += String.fromCharCode(b);
    else if (b === 0x20) out += '+';
    else out += '%' + HEX[b >> 4] + HEX[b & 15];
  }
  return out;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 65 && code <= 70) return code - 55;
  if (code >= 97 && code <= 102) return code - 87;
  return -1;
}

/**
 * Percent-decodes one query component: `+` and `%20` both become a space. Characters that are
 * not escapes are taken as their UTF-8 bytes. The result must be valid UTF-8.
 */
export function decodeComponent(raw: string): string {
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x2b) {
      bytes.push(0x20);
    } else if (c === 0x25) {
      const hi = hexValue(raw.charCodeAt(i + 1));
      const lo = hexValue(raw.charCodeAt(i + 2));
      if (hi < 0 || lo < 0) throw new QueryEncodingError(raw, 'a "%" is not followed by two hex digits');
      bytes.push(hi * 16 + lo);
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      // A raw non-ASCII character: take its UTF-8 bytes (surrogate pairs together).
      const cp = raw.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of Buffer.from(ch, 'utf8')) bytes.push(b);
      if (cp > 0xffff) i++;
    }
  }
  try {
    return fatalUtf8.decode(Uint8Array.from(bytes));
  } catch {
    throw new QueryEncodingError(raw, 'it does not decode to valid UTF-8');
  }
}

/** Orders strings by their UTF-8 bytes (SIGNING.md: `A` < `B` < `_` < `a`). */
const SURROGATE = /[\uD800-\uDFFF]/;

export function compareUtf8(a: string, b: string): number {
  // Without surrogates, UTF-16 code unit order is code point order, which is UTF-8 byte order.
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * A query as it can travel on the request line: bytes outside printable ASCII (a space, é) and `#`
 * are percent-encoded; the server decodes before canonicalizing (SIGNING.md), so the signature holds.
 * The one definition: the client and `cardctl sign` both use it.
 */
export function wireQuery(raw: string): string {
  return raw.replace(/[^\u0021-\u007e]|#/gu, (ch) => encodeURIComponent(ch));
}
