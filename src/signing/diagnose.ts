// `sign diagnose`: recompute a failing request's signature and, when it differs, find the
// client mistake that reproduces the signature the client sent. Pure: the secret and the
// clock are passed in.
//
// The search models the client's signer as independent stages (method, path, query,
// timestamp, body hash, how the fields are joined, the HMAC key, how the digest is encoded).
// Each stage has the correct value plus the usual wrong ones. Every single wrong stage is
// tried, then every pair of wrong stages; the digest encoding is checked for free on each
// try (the received signature is decoded once in every plausible encoding). The answer with
// the fewest mistakes wins. Roughly 10^4 HMACs at most (the millisecond-timestamp stage has
// 1000 candidates), well under a second.
import { createHash, createHmac } from 'node:crypto';
import { CANONICAL_FIELD_NAMES } from './visible.js';
import { bodySha256, canonicalPath, canonicalQuery, EMPTY_BODY_SHA256, parseQuery, type QueryParam } from './canonical.js';
import { safeEqual } from './compare.js';
import { compareUtf8 } from './encoding.js';
import { headerValue, parseRawRequest, type RawRequest } from './raw-request.js';
import { signCanonical } from './request.js';

export const SIGNATURE_HEADERS = ['X-Api-Key', 'X-Timestamp', 'X-Nonce', 'X-Signature'] as const;
export const TIMESTAMP_WINDOW = 300;
// src/contract/routes.ts holds the project's API_PREFIX; signing imports nothing of the project
// (PRODUCT.md, Architecture), so this pure module names the same constant locally.
const API_PREFIX = '/api/v1';

export interface MistakeInfo {
  description: string;
  fix: string;
}

/** Every mistake diagnose can name. Tests and `sign diagnose` list them from here. */
export const KNOWN_MISTAKES = {
  method_not_uppercased: {
    description: 'the method was signed as written, not uppercased',
    fix: 'uppercase the method in the canonical string (GET, POST, ...)',
  },
  trailing_slash_kept: {
    description: 'the path was signed with its trailing slash',
    fix: 'remove one trailing "/" from the path before signing (or do not send it)',
  },
  path_without_prefix: {
    description: 'the path was signed without the /api/v1 prefix',
    fix: 'sign the full request path including /api/v1',
  },
  path_includes_query: {
    description: 'the PATH field included the ?query',
    fix: 'put only the path in field 2 and the canonical query in field 3',
  },
  query_not_sorted: {
    description: 'the query parameters were signed in the order they were sent, not sorted',
    fix: 'sort the parameters by key (UTF-8 byte order) and write repeated keys as key[]=value with sorted values',
  },
  query_space_as_percent20: {
    description: 'a space in the query was signed as %20 instead of +',
    fix: 'encode a space as "+" in the canonical query',
  },
  query_brackets_encoded: {
    description: 'list keys were signed as key%5B%5D= instead of key[]=',
    fix: 'write the [] of list keys literally in the canonical query',
  },
  query_unreserved_not_encoded: {
    description: 'the query was encoded like encodeURIComponent/RFC 3986 (~ * ! \' ( ) left as is)',
    fix: 'percent-encode every byte except A-Z a-z 0-9 - _ . (so ~ is %7E and * is %2A)',
  },
  query_lowercase_hex: {
    description: 'percent escapes in the query were signed with lowercase hex',
    fix: 'use uppercase hex in percent escapes (%2F, not %2f)',
  },
  query_as_sent: {
    description: 'the query string was signed exactly as sent instead of canonicalized',
    fix: 'decode the query, sort it and re-encode it as SIGNING.md says',
  },
  query_omitted: {
    description: 'the query string was left out of the canonical string',
    fix: 'put the canonical query in field 3 (empty only when the request has no query)',
  },
  timestamp_milliseconds: {
    description: 'the timestamp was in milliseconds, not seconds',
    fix: 'use Unix seconds for X-Timestamp and sign the same value you send (Math.floor(Date.now() / 1000))',
  },
  timestamp_malformed: {
    description: 'X-Timestamp is not 1 to 10 decimal digits',
    fix: 'send X-Timestamp as decimal Unix seconds',
  },
  body_pretty_printed: {
    description: 'the body was signed pretty-printed but sent compact',
    fix: 'sign the exact bytes you send: serialize the body once and use that string for both',
  },
  body_reserialized: {
    description: 'the body was signed with a different JSON serialization than the bytes sent',
    fix: 'sign the exact bytes you send: serialize the body once and use that string for both',
  },
  body_keys_reordered: {
    description: 'the body was signed with its keys in a different order than sent',
    fix: 'sign the exact bytes you send: serialize the body once and use that string for both',
  },
  body_trailing_newline_added: {
    description: 'the body was signed with a trailing newline that was not sent',
    fix: 'hash exactly the bytes you send (drop the newline, or send it too)',
  },
  body_trailing_newline_removed: {
    description: 'the body was sent with a trailing newline that was not signed',
    fix: 'hash exactly the bytes you send (a file read with a final newline, or a tool that appends one)',
  },
  body_not_signed: {
    description: 'the hash of an empty body was signed although the request has a body',
    fix: 'compute BODY_SHA256 over the raw body bytes after the body is set',
  },
  body_hash_encoding: {
    description: 'the body hash was not written as lowercase hex',
    fix: 'write BODY_SHA256 as lowercase hex',
  },
  body_changed_after_signing: {
    description: 'the client signed the body hash it declared, but the body sent has different bytes',
    fix: 'hash and send the same bytes: do not re-serialize or re-encode the body after signing',
  },
  secret_base64_decoded: {
    description: 'the secret was base64-decoded before use as the HMAC key',
    fix: 'use the secret text exactly as shown (its UTF-8 bytes) as the HMAC key, without base64-decoding it',
  },
  secret_trailing_newline: {
    description: 'the HMAC key had a trailing newline (a secret read from a file or `echo`)',
    fix: 'strip the newline from the secret before using it',
  },
  signature_hex: {
    description: 'the signature was encoded as hex instead of base64',
    fix: 'base64-encode the raw HMAC digest (not its hex string)',
  },
  signature_base64url: {
    description: 'the signature was encoded as url-safe base64 (- and _)',
    fix: 'use standard base64 (+ and /, with = padding)',
  },
  signature_base64url_unpadded: {
    description: 'the signature was encoded as url-safe base64 without padding',
    fix: 'use standard base64 (+ and /, with = padding)',
  },
  signature_base64_unpadded: {
    description: 'the signature was base64 without its = padding',
    fix: 'keep the = padding of the base64 signature',
  },
  canonical_trailing_newline: {
    description: 'the canonical string was signed with a trailing newline',
    fix: 'join the seven fields with "\\n" and add no newline at the end',
  },
  canonical_crlf: {
    description: 'the canonical fields were joined with CRLF',
    fix: 'join the seven fields with a single "\\n"',
  },
  missing_headers: {
    description: 'a signature header is missing',
    fix: 'send all four headers: X-Api-Key, X-Timestamp, X-Nonce, X-Signature',
  },
  query_invalid_encoding: {
    description: 'the query does not percent-decode to valid UTF-8, so it cannot be canonicalized',
    fix: 'percent-encode query values as UTF-8 bytes',
  },
  canonical_differs: {
    description: 'the client signed a different canonical string',
    fix: 'build the canonical string as SIGNING.md says',
  },
} as const satisfies Record<string, MistakeInfo>;

export type MistakeId = keyof typeof KNOWN_MISTAKES;

export interface DiagnosedMistake {
  id: MistakeId;
  description: string;
  fix: string;
}

export interface DiagnoseInput {
  /** the request as raw HTTP text (string or bytes) or already parsed */
  request: RawRequest | string | Uint8Array;
  secret: string;
  /** Unix seconds, for the stale-timestamp check; omitted: no check */
  now?: number;
  /** the key id the secret belongs to, to warn when the request names another key */
  keyId?: string;
}

export interface Diagnosis {
  valid: boolean;
  expected_signature: string;
  received_signature: string | null;
  mistakes: DiagnosedMistake[];
  warnings: string[];
  /** true when the signature is valid or the mistakes found reproduce the received signature */
  found: boolean;
  /** the mistakes tried (ids), alone and in pairs */
  checked: MistakeId[];
  canonical: string;
  body_sha256: string;
  request: { method: string; path: string; query: string; body_bytes: number };
}

// ---------------------------------------------------------------------------------------
// Query styles: the usual wrong ways to build QUERY_STRING.

interface QueryStyle {
  sort: boolean;
  spacePercent20: boolean;
  bracketsEncoded: boolean;
  /** extra characters left unencoded: '' (spec), '~' (RFC 3986), "~!*'()" (encodeURIComponent) */
  keep: string;
  lowerHex: boolean;
}

function encodeStyled(value: string, style: QueryStyle): string {
  let out = '';
  for (const b of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.]/.test(ch) || (b < 0x80 && style.keep.includes(ch))) out += ch;
    else if (b === 0x20) out += style.spacePercent20 ? '%20' : '+';
    else {
      const hex = b.toString(16).padStart(2, '0');
      out += '%' + (style.lowerHex ? hex : hex.toUpperCase());
    }
  }
  return out;
}

function styledQuery(params: QueryParam[], style: QueryStyle): string {
  const brackets = style.bracketsEncoded ? '%5B%5D' : '[]';
  const counts = new Map<string, { n: number; list: boolean }>();
  for (const p of params) {
    const c = counts.get(p.key) ?? { n: 0, list: false };
    c.n++;
    c.list ||= p.list;
    counts.set(p.key, c);
  }
  const isList = (key: string): boolean => counts.get(key)!.n > 1 || counts.get(key)!.list;
  let ordered: QueryParam[];
  if (style.sort) {
    // grouped by key, keys and values sorted by bytes (as the correct rule does)
    ordered = [...params].sort((a, b) => compareUtf8(a.key, b.key) || compareUtf8(a.value, b.value));
  } else {
    ordered = params;
  }
  return ordered.map((p) => `${encodeStyled(p.key, style)}${isList(p.key) ? brackets : ''}=${encodeStyled(p.value, style)}`).join('&');
}

interface Variant {
  value: string;
  ids: MistakeId[];
  /** replaces the mistake's generic description when set */
  detail?: string;
}

function queryVariants(raw: string, correct: string): Variant[] {
  const out: Variant[] = [];
  let params: QueryParam[] | null = null;
  try {
    params = parseQuery(raw);
  } catch {
    params = null;
  }
  if (params && params.length > 0) {
    for (const sort of [true, false])
      for (const spacePercent20 of [false, true])
        for (const bracketsEncoded of [false, true])
          for (const keep of ['', '~', "~!*'()"])
            for (const lowerHex of [false, true]) {
              const ids: MistakeId[] = [];
              if (!sort) ids.push('query_not_sorted');
              if (spacePercent20) ids.push('query_space_as_percent20');
              if (bracketsEncoded) ids.push('query_brackets_encoded');
              if (keep) ids.push('query_unreserved_not_encoded');
              if (lowerHex) ids.push('query_lowercase_hex');
              if (ids.length > 2) continue;
              out.push({ value: styledQuery(params, { sort, spacePercent20, bracketsEncoded, keep, lowerHex }), ids });
            }
    // unsorted and repeated keys written as sent, without brackets
    out.push({
      value: params.map((p) => `${encodeStyled(p.key, NO_STYLE)}${p.list ? '[]' : ''}=${encodeStyled(p.value, NO_STYLE)}`).join('&'),
      ids: ['query_not_sorted'],
    });
  }
  if (raw !== '') {
    out.push({ value: raw.startsWith('?') ? raw.slice(1) : raw, ids: ['query_as_sent'] });
    out.push({ value: '', ids: ['query_omitted'] });
  }
  return dedupe(out, correct);
}

const NO_STYLE: QueryStyle = { sort: true, spacePercent20: false, bracketsEncoded: false, keep: '', lowerHex: false };

/** Drops variants equal to the correct value or to a variant with fewer (or as many, earlier) mistakes. */
function dedupe(variants: Variant[], correct: string): Variant[] {
  const best = new Map<string, Variant>();
  for (const v of variants) {
    if (v.value === correct || v.ids.length === 0) continue;
    const seen = best.get(v.value);
    if (!seen || v.ids.length < seen.ids.length) best.set(v.value, v);
  }
  return [...best.values()];
}

// ---------------------------------------------------------------------------------------
// Body variants: the same JSON serialized differently.

interface JsonStyle {
  indent: string;
  itemSep: string;
  keySep: string;
  sortKeys: boolean;
  asciiOnly: boolean;
}

function serialize(value: unknown, style: JsonStyle, depth = 0): string {
  const nl = style.indent ? '\n' : '';
  const pad = (d: number): string => style.indent.repeat(d);
  const str = (s: string): string => {
    const json = JSON.stringify(s);
    return style.asciiOnly ? json.replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) : json;
  };
  if (value === null || typeof value !== 'object') return typeof value === 'string' ? str(value) : JSON.stringify(value);
  const sep = style.indent ? ',' + nl : style.itemSep;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${nl}${value.map((v) => pad(depth + 1) + serialize(v, style, depth + 1)).join(sep)}${nl}${pad(depth)}]`;
  }
  const keys = Object.keys(value as object);
  if (style.sortKeys) keys.sort();
  if (keys.length === 0) return '{}';
  const items = keys.map((k) => `${pad(depth + 1)}${str(k)}${style.keySep}${serialize((value as Record<string, unknown>)[k], style, depth + 1)}`);
  return `{${nl}${items.join(sep)}${nl}${pad(depth)}}`;
}

function reverseKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value as object).reverse());
}

function sha(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function bodyVariants(body: Buffer, correct: string, declaredHash: string | undefined): Variant[] {
  const out: Variant[] = [];
  const text = body.toString('utf8');
  let parsed: unknown;
  let isJson = false;
  if (body.length > 0 && Buffer.from(text, 'utf8').equals(body)) {
    try {
      parsed = JSON.parse(text);
      isJson = true;
    } catch {
      isJson = false;
    }
  }
  if (isJson) {
    const sentPretty = /\n/.test(text.trim());
    const styles: Array<{ style: JsonStyle; label: string }> = [
      { style: { indent: '', itemSep: ',', keySep: ':', sortKeys: false, asciiOnly: false }, label: 'compact' },
      { style: { indent: '  ', itemSep: ',', keySep: ': ', sortKeys: false, asciiOnly: false }, label: 'pretty-printed (2 spaces)' },
      { style: { indent: '    ', itemSep: ',', keySep: ': ', sortKeys: false, asciiOnly: false }, label: 'pretty-printed (4 spaces)' },
      { style: { indent: '\t', itemSep: ',', keySep: ': ', sortKeys: false, asciiOnly: false }, label: 'pretty-printed (tabs)' },
      { style: { indent: '', itemSep: ', ', keySep: ': ', sortKeys: false, asciiOnly: false }, label: 'with Python json.dumps spacing' },
      { style: { indent: '', itemSep: ', ', keySep: ': ', sortKeys: false, asciiOnly: true }, label: 'with Python json.dumps spacing and \\u escapes' },
      { style: { indent: '', itemSep: ',', keySep: ':', sortKeys: false, asciiOnly: true }, label: 'with non-ASCII as \\u escapes' },
    ];
    for (const reorder of ['none', 'sorted', 'reversed'] as const) {
      const value = reorder === 'reversed' ? reverseKeys(parsed) : parsed;
      for (const { style, label } of styles) {
        for (const newline of [false, true]) {
          const s = serialize(value, { ...style, sortKeys: reorder === 'sorted' }) + (newline ? '\n' : '');
          const ids: MistakeId[] = [];
          const parts: string[] = [];
          const pretty = style.indent !== '';
          const sameOrder = serialize(parsed, style);
          if (pretty && !sentPretty) ids.push('body_pretty_printed');
          else if (sameOrder !== text && sameOrder !== text.replace(/\r?\n$/, '')) ids.push('body_reserialized');
          if (reorder !== 'none' && s.replace(/\n$/, '') !== sameOrder) ids.push('body_keys_reordered');
          if (newline) ids.push('body_trailing_newline_added');
          parts.push(`${label} JSON`);
          if (reorder !== 'none') parts.push(reorder === 'sorted' ? 'keys sorted' : 'keys in reverse order');
          if (newline) parts.push('a trailing newline');
          if (ids.length === 0 || ids.length > 2) continue;
          out.push({ value: sha(s), ids, detail: `the body was signed as ${parts.join(', ')}, not as the bytes sent` });
        }
      }
    }
  }
  if (body.length > 0) {
    out.push({ value: sha(Buffer.concat([body, Buffer.from('\n')])), ids: ['body_trailing_newline_added'] });
    if (body[body.length - 1] === 0x0a) {
      const cut = body.length >= 2 && body[body.length - 2] === 0x0d ? 2 : 1;
      out.push({ value: sha(body.subarray(0, body.length - cut)), ids: ['body_trailing_newline_removed'] });
    }
    out.push({ value: EMPTY_BODY_SHA256, ids: ['body_not_signed'] });
  }
  out.push({ value: correct.toUpperCase(), ids: ['body_hash_encoding'], detail: 'the body hash was written as uppercase hex' });
  out.push({ value: Buffer.from(correct, 'hex').toString('base64'), ids: ['body_hash_encoding'], detail: 'the body hash was written as base64' });
  if (declaredHash && declaredHash !== correct) {
    out.push({ value: declaredHash, ids: ['body_changed_after_signing'] });
  }
  // the most specific (fewest mistakes, then first generated) wins on equal hashes
  return dedupe(out, correct);
}

// ---------------------------------------------------------------------------------------
// Decoding the received signature in every plausible encoding.

type EncodingId = 'base64' | 'signature_hex' | 'signature_base64url' | 'signature_base64url_unpadded' | 'signature_base64_unpadded';

function decodeReceived(received: string): Array<{ digest: Buffer; id: EncodingId; detail?: string }> {
  const out: Array<{ digest: Buffer; id: EncodingId; detail?: string }> = [];
  const tryAdd = (id: EncodingId, digest: Buffer, reencoded: string, detail?: string): void => {
    if (digest.length === 32 && reencoded === received) out.push({ digest, id, detail });
  };
  if (/^[0-9a-fA-F]{64}$/.test(received)) {
    const d = Buffer.from(received, 'hex');
    const upper = received === received.toUpperCase() && /[A-F]/.test(received);
    tryAdd('signature_hex', d, upper ? d.toString('hex').toUpperCase() : d.toString('hex'), upper ? 'the signature was encoded as uppercase hex instead of base64' : undefined);
  }
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(received)) {
    const d = Buffer.from(received, 'base64');
    tryAdd('base64', d, d.toString('base64'));
    tryAdd('signature_base64_unpadded', d, d.toString('base64').replace(/=+$/, ''));
  }
  if (/^[A-Za-z0-9_-]+={0,2}$/.test(received)) {
    const d = Buffer.from(received, 'base64url');
    const std = d.toString('base64');
    const url = std.replace(/\+/g, '-').replace(/\//g, '_');
    tryAdd('signature_base64url', d, url);
    tryAdd('signature_base64url_unpadded', d, url.replace(/=+$/, ''));
  }
  return out;
}

// ---------------------------------------------------------------------------------------

function declaredBodyHash(req: RawRequest): string | undefined {
  for (const name of ['x-content-sha256', 'x-body-sha256', 'x-content-sha-256', 'x-body-hash']) {
    const v = headerValue(req, name);
    if (v && /^[0-9a-fA-F]{64}$/.test(v)) return v.toLowerCase();
  }
  const digest = headerValue(req, 'content-digest') ?? headerValue(req, 'digest');
  const m = digest ? /sha-256=:?([A-Za-z0-9+/=]{44}):?/i.exec(digest) : null;
  if (m) return Buffer.from(m[1]!, 'base64').toString('hex');
  for (const c of req.comments) {
    const cm = /^body[_-]?sha256\s*[:=]\s*([0-9a-fA-F]{64})\s*$/i.exec(c);
    if (cm) return cm[1]!.toLowerCase();
  }
  return undefined;
}

function declaredCanonical(req: RawRequest): string | undefined {
  for (const c of req.comments) {
    const m = /^canonical\s*[:=]\s*(".*")\s*$/i.exec(c);
    if (m) {
      try {
        const v: unknown = JSON.parse(m[1]!);
        if (typeof v === 'string') return v;
      } catch {
        /* not a JSON string: ignored */
      }
    }
  }
  return undefined;
}

interface Dimension {
  index: number; // canonical field index, or 7 = join, 8 = key
  variants: Variant[];
}

interface Match {
  mistakes: DiagnosedMistake[];
}

function describe(id: MistakeId, detail?: string): DiagnosedMistake {
  const info: MistakeInfo = KNOWN_MISTAKES[id];
  return { id, description: detail ?? info.description, fix: info.fix };
}

/** Searches single wrong stages, then pairs, for one that reproduces the received signature. */
function search(
  fields: string[],
  secret: string,
  dims: Dimension[],
  targets: ReturnType<typeof decodeReceived>,
): Match | null {
  if (targets.length === 0) return null;
  // A string valid in several encodings (base64 without + or / is also base64url): the first,
  // most plausible reading wins.
  const targetHex = new Map<string, (typeof targets)[number]>();
  for (const t of targets) if (!targetHex.has(t.digest.toString('hex'))) targetHex.set(t.digest.toString('hex'), t);
  let best: { count: number; mistakes: DiagnosedMistake[] } | null = null;

  const tryCombo = (chosen: Array<{ dim: Dimension; v: Variant }>): void => {
    const f = [...fields];
    let join = '\n';
    let tail = '';
    let key: Buffer | string = secret;
    for (const { dim, v } of chosen) {
      if (dim.index < 7) f[dim.index] = v.value;
      else if (dim.index === 7) {
        if (v.ids[0] === 'canonical_crlf') join = '\r\n';
        else tail = '\n';
      } else key = v.ids[0] === 'secret_base64_decoded' ? Buffer.from(secret, 'base64') : secret + '\n';
    }
    const digest = createHmac('sha256', key).update(f.join(join) + tail, 'utf8').digest('hex');
    const hit = targetHex.get(digest);
    if (!hit) return;
    const mistakes = chosen.flatMap(({ v }) => v.ids.map((id, i) => describe(id, i === 0 ? v.detail : undefined)));
    if (hit.id !== 'base64') mistakes.push(describe(hit.id, hit.detail));
    if (mistakes.length === 0) return;
    if (!best || mistakes.length < best.count) best = { count: mistakes.length, mistakes };
  };

  tryCombo([]); // only the encoding differs
  for (const dim of dims) for (const v of dim.variants) tryCombo([{ dim, v }]);
  if (best) return best;
  for (let a = 0; a < dims.length; a++) {
    for (let b = a + 1; b < dims.length; b++) {
      for (const va of dims[a]!.variants) {
        if (va.ids.length > 1) continue;
        for (const vb of dims[b]!.variants) {
          if (vb.ids.length > 1) continue;
          tryCombo([{ dim: dims[a]!, v: va }, { dim: dims[b]!, v: vb }]);
        }
      }
    }
  }
  return best;
}

function buildDimensions(req: RawRequest, fields: string[], secret: string, body: Buffer, declaredHash: string | undefined): Dimension[] {
  const dims: Dimension[] = [];
  const method = req.method;
  dims.push({
    index: 0,
    variants: dedupe(
      [
        { value: method, ids: ['method_not_uppercased'] },
        { value: method.toLowerCase(), ids: ['method_not_uppercased'] },
        { value: method.charAt(0).toUpperCase() + method.slice(1).toLowerCase(), ids: ['method_not_uppercased'] },
      ],
      fields[0]!,
    ),
  });
  const canonPath = fields[1]!;
  const pathVariants: Variant[] = [];
  if (req.path.length > 1 && req.path.endsWith('/')) pathVariants.push({ value: req.path, ids: ['trailing_slash_kept'] });
  if (canonPath === API_PREFIX || canonPath.startsWith(API_PREFIX + '/')) {
    pathVariants.push({ value: canonPath.slice(API_PREFIX.length) || '/', ids: ['path_without_prefix'] });
  }
  if (req.query !== '') pathVariants.push({ value: `${canonPath}?${req.query}`, ids: ['path_includes_query'] });
  dims.push({ index: 1, variants: dedupe(pathVariants, canonPath) });
  dims.push({ index: 2, variants: queryVariants(req.query, fields[2]!) });

  const ts = fields[4]!;
  const tsVariants: Variant[] = [];
  if (/^\d{1,10}$/.test(ts)) {
    // the header in seconds, the signed value in milliseconds (two clock reads)
    const base = BigInt(ts) * 1000n;
    for (let k = 0n; k < 1000n; k++) tsVariants.push({ value: String(base + k), ids: ['timestamp_milliseconds'] });
  } else if (/^\d{13}$/.test(ts)) {
    tsVariants.push({ value: ts.slice(0, 10), ids: ['timestamp_milliseconds'] });
  }
  dims.push({ index: 4, variants: tsVariants });
  dims.push({ index: 6, variants: bodyVariants(body, fields[6]!, declaredHash) });
  dims.push({
    index: 7,
    variants: [
      { value: 'tail', ids: ['canonical_trailing_newline'] },
      { value: 'crlf', ids: ['canonical_crlf'] },
    ],
  });
  const keyVariants: Variant[] = [{ value: 'nl', ids: ['secret_trailing_newline'] }];
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(secret) && secret.length % 4 === 0) keyVariants.unshift({ value: 'b64', ids: ['secret_base64_decoded'] });
  dims.push({ index: 8, variants: keyVariants });
  return dims;
}

function checkedIds(dims: Dimension[]): MistakeId[] {
  const ids = new Set<MistakeId>();
  for (const d of dims) for (const v of d.variants) for (const id of v.ids) ids.add(id);
  for (const id of ['signature_hex', 'signature_base64url', 'signature_base64url_unpadded', 'signature_base64_unpadded'] as const) ids.add(id);
  return [...ids];
}

export function diagnose(input: DiagnoseInput): Diagnosis {
  const req = typeof input.request === 'string' || input.request instanceof Uint8Array ? parseRawRequest(input.request) : input.request;
  const warnings: string[] = [...req.notes];
  const mistakes: DiagnosedMistake[] = [];

  const h = Object.fromEntries(SIGNATURE_HEADERS.map((name) => [name, headerValue(req, name)])) as Record<(typeof SIGNATURE_HEADERS)[number], string | undefined>;
  const missing = SIGNATURE_HEADERS.filter((name) => h[name] === undefined);
  if (missing.length > 0) {
    mistakes.push({ id: 'missing_headers', description: `the request has no ${missing.join(', ')} header${missing.length > 1 ? 's' : ''}`, fix: KNOWN_MISTAKES.missing_headers.fix });
  }
  const ts = h['X-Timestamp'] ?? '';
  let headerBlocks = missing.length > 0;
  if (h['X-Timestamp'] !== undefined) {
    if (/^\d{13}$/.test(ts)) {
      mistakes.push(describe('timestamp_milliseconds', `X-Timestamp ${ts} is in milliseconds, not seconds`));
      headerBlocks = true;
    } else if (!/^\d{1,10}$/.test(ts)) {
      mistakes.push(describe('timestamp_malformed', `X-Timestamp ${JSON.stringify(ts)} is not 1 to 10 decimal digits`));
      headerBlocks = true;
    } else if (input.now !== undefined) {
      const skew = input.now - Number(ts);
      if (Math.abs(skew) > TIMESTAMP_WINDOW) {
        warnings.push(
          `X-Timestamp is ${Math.abs(skew)} s ${skew > 0 ? 'in the past' : 'in the future'} (the window is ${TIMESTAMP_WINDOW} s): the gateway answers timestamp_out_of_window. ` +
            'Expected for a request replayed from a log; otherwise sign right before sending and check the client clock.',
        );
      }
    }
  }
  if (input.keyId !== undefined && h['X-Api-Key'] !== undefined && h['X-Api-Key'] !== input.keyId) {
    warnings.push(`the request's X-Api-Key is ${h['X-Api-Key']} but the secret used here belongs to key ${input.keyId}: choose the matching profile with --profile.`);
  }

  let canonQuery: string;
  let queryOk = true;
  try {
    canonQuery = canonicalQuery(req.query);
  } catch {
    canonQuery = req.query;
    queryOk = false;
    mistakes.push(describe('query_invalid_encoding'));
    headerBlocks = true;
  }

  const declaredHash = declaredBodyHash(req);
  const fieldsFor = (body: Buffer): string[] => [
    req.method.toUpperCase(),
    canonicalPath(req.path),
    canonQuery,
    h['X-Api-Key'] ?? '',
    ts,
    h['X-Nonce'] ?? '',
    bodySha256(body),
  ];

  // A body taken from the rest of a file (no Content-Length) may end with a newline an editor
  // added: accept the signature over the body without it, and say so.
  const bodies: Buffer[] = [req.body];
  if (req.bodySource === 'rest' && req.body[req.body.length - 1] === 0x0a) {
    const cut = req.body.length >= 2 && req.body[req.body.length - 2] === 0x0d ? 2 : 1;
    bodies.push(req.body.subarray(0, req.body.length - cut));
  }
  const received = h['X-Signature'] ?? null;
  let body = bodies[0]!;
  let fields = fieldsFor(body);
  let canonical = fields.join('\n');
  let expected = signCanonical(input.secret, canonical);
  let signatureMatches = received !== null && safeEqual(expected, received);
  if (!signatureMatches && received !== null && bodies.length > 1) {
    const altFields = fieldsFor(bodies[1]!);
    const altExpected = signCanonical(input.secret, altFields.join('\n'));
    if (safeEqual(altExpected, received)) {
      body = bodies[1]!;
      fields = altFields;
      canonical = altFields.join('\n');
      expected = altExpected;
      signatureMatches = true;
      warnings.push('the signature covers the body without the final newline of the file; assuming an editor added it (add a Content-Length header to make the body exact).');
    }
  }
  if (declaredHash !== undefined && declaredHash !== bodySha256(body)) {
    warnings.push(`the body hash the client declared (${declaredHash}) does not match the body in the request (${bodySha256(body)}): the body changed after it was hashed.`);
  }

  let searchFound = false;
  let checked: MistakeId[] = [];
  if (!signatureMatches && received !== null && queryOk) {
    const targets = decodeReceived(received);
    let best: Match | null = null;
    for (const b of bodies) {
      const f = fieldsFor(b);
      const dims = buildDimensions(req, f, input.secret, b, declaredHash);
      checked = [...new Set([...checked, ...checkedIds(dims)])];
      const m = search(f, input.secret, dims, targets);
      if (m && (!best || m.mistakes.length < best.mistakes.length)) best = m;
    }
    if (best) {
      mistakes.push(...best.mistakes.filter((m) => !mistakes.some((x) => x.id === m.id)));
      searchFound = true;
    }
    if (!searchFound) {
      const theirs = declaredCanonical(req);
      if (theirs !== undefined) {
        const ours = canonical.split('\n');
        const diffs = theirs
          .split('\n')
          .map((v, i) => ({ v, i }))
          .filter(({ v, i }) => v !== ours[i])
          .map(({ v, i }) => `field ${i + 1} ${CANONICAL_FIELD_NAMES[i] ?? 'EXTRA'} is ${JSON.stringify(v)} instead of ${JSON.stringify(ours[i] ?? '')}`);
        if (theirs.split('\n').length !== 7) diffs.unshift(`it has ${theirs.split('\n').length} fields instead of 7`);
        const reproduces = signCanonical(input.secret, theirs) === received;
        if (diffs.length > 0) {
          mistakes.push(describe('canonical_differs', `the client's canonical string (from the comment) differs: ${diffs.join('; ')}${reproduces ? '' : ' (and it does not reproduce the signature either: check the secret)'}`));
          searchFound = reproduces;
        }
      }
    }
  }
  const valid = signatureMatches && !headerBlocks;
  const explained = signatureMatches || searchFound || received === null;

  return {
    valid,
    expected_signature: expected,
    received_signature: received,
    mistakes,
    warnings,
    found: valid || (explained && mistakes.length > 0),
    checked,
    canonical,
    body_sha256: fields[6]!,
    request: { method: req.method, path: req.path, query: req.query, body_bytes: body.length },
  };
}
