// The stages of a client's signer that the search of `sign diagnose` varies (method, path, query,
// timestamp, body hash, how the fields are joined, the HMAC key), each with the usual wrong values,
// and the encodings a received signature may be in. The stage table (STAGES) is data: a stage,
// the canonical field it changes, and how its wrong values are made.
import { createHash } from 'node:crypto';
import { EMPTY_BODY_SHA256, parseQuery, type QueryParam } from './canonical.js';
import { compareUtf8 } from './encoding.js';
import type { RawRequest } from './raw-request.js';
import type { MistakeId } from './diagnose-mistakes.js';

// src/contract/routes.ts holds the project's API_PREFIX; signing imports nothing of the project
// (PRODUCT.md, Architecture), so this pure module names the same constant locally.
const API_PREFIX = '/api/v1';

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
  return ordered
    .map((p) => `${encodeStyled(p.key, style)}${isList(p.key) ? brackets : ''}=${encodeStyled(p.value, style)}`)
    .join('&');
}

export interface Variant {
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
      value: params
        .map((p) => `${encodeStyled(p.key, NO_STYLE)}${p.list ? '[]' : ''}=${encodeStyled(p.value, NO_STYLE)}`)
        .join('&'),
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
    return style.asciiOnly
      ? json.replace(/[\u007f-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'))
      : json;
  };
  if (value === null || typeof value !== 'object')
    return typeof value === 'string' ? str(value) : JSON.stringify(value);
  const sep = style.indent ? ',' + nl : style.itemSep;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[${nl}${value.map((v) => pad(depth + 1) + serialize(v, style, depth + 1)).join(sep)}${nl}${pad(depth)}]`;
  }
  const keys = Object.keys(value as object);
  if (style.sortKeys) keys.sort();
  if (keys.length === 0) return '{}';
  const items = keys.map(
    (k) =>
      `${pad(depth + 1)}${str(k)}${style.keySep}${serialize((value as Record<string, unknown>)[k], style, depth + 1)}`,
  );
  return `{${nl}${items.join(sep)}${nl}${pad(depth)}}`;
}

function reverseKeys(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value as object).reverse());
}

function sha(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function bodyVariants(body: Buffer, correct: string, declaredHash: string | undefined, reserialize = true): Variant[] {
  const out: Variant[] = [];
  const text = reserialize ? body.toString('utf8') : '';
  let parsed: unknown;
  let isJson = false;
  if (reserialize && body.length > 0 && Buffer.from(text, 'utf8').equals(body)) {
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
      {
        style: { indent: '  ', itemSep: ',', keySep: ': ', sortKeys: false, asciiOnly: false },
        label: 'pretty-printed (2 spaces)',
      },
      {
        style: { indent: '    ', itemSep: ',', keySep: ': ', sortKeys: false, asciiOnly: false },
        label: 'pretty-printed (4 spaces)',
      },
      {
        style: { indent: '\t', itemSep: ',', keySep: ': ', sortKeys: false, asciiOnly: false },
        label: 'pretty-printed (tabs)',
      },
      {
        style: { indent: '', itemSep: ', ', keySep: ': ', sortKeys: false, asciiOnly: false },
        label: 'with Python json.dumps spacing',
      },
      {
        style: { indent: '', itemSep: ', ', keySep: ': ', sortKeys: false, asciiOnly: true },
        label: 'with Python json.dumps spacing and \\u escapes',
      },
      {
        style: { indent: '', itemSep: ',', keySep: ':', sortKeys: false, asciiOnly: true },
        label: 'with non-ASCII as \\u escapes',
      },
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
    out.push({
      value: createHash('sha256').update(body).update('\n').digest('hex'),
      ids: ['body_trailing_newline_added'],
    });
    if (body[body.length - 1] === 0x0a) {
      const cut = body.length >= 2 && body[body.length - 2] === 0x0d ? 2 : 1;
      out.push({ value: sha(body.subarray(0, body.length - cut)), ids: ['body_trailing_newline_removed'] });
    }
    out.push({ value: EMPTY_BODY_SHA256, ids: ['body_not_signed'] });
  }
  out.push({
    value: correct.toUpperCase(),
    ids: ['body_hash_encoding'],
    detail: 'the body hash was written as uppercase hex',
  });
  out.push({
    value: Buffer.from(correct, 'hex').toString('base64'),
    ids: ['body_hash_encoding'],
    detail: 'the body hash was written as base64',
  });
  if (declaredHash && declaredHash !== correct) {
    out.push({ value: declaredHash, ids: ['body_changed_after_signing'] });
  }
  // the most specific (fewest mistakes, then first generated) wins on equal hashes
  return dedupe(out, correct);
}

// ---------------------------------------------------------------------------------------
// Decoding the received signature in every plausible encoding.

type EncodingId =
  | 'base64'
  | 'signature_hex'
  | 'signature_base64url'
  | 'signature_base64url_unpadded'
  | 'signature_base64_unpadded';

export function decodeReceived(received: string): Array<{ digest: Buffer; id: EncodingId; detail?: string }> {
  const out: Array<{ digest: Buffer; id: EncodingId; detail?: string }> = [];
  const tryAdd = (id: EncodingId, digest: Buffer, reencoded: string, detail?: string): void => {
    if (digest.length === 32 && reencoded === received) out.push({ digest, id, detail });
  };
  if (/^[0-9a-fA-F]{64}$/.test(received)) {
    const d = Buffer.from(received, 'hex');
    const upper = received === received.toUpperCase() && /[A-F]/.test(received);
    tryAdd(
      'signature_hex',
      d,
      upper ? d.toString('hex').toUpperCase() : d.toString('hex'),
      upper ? 'the signature was encoded as uppercase hex instead of base64' : undefined,
    );
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

// ---------------------------------------------------------------------------------------
// The stage table.

/** What the stages need to know of one request. */
export interface StageContext {
  req: RawRequest;
  /** the correct canonical fields */
  fields: string[];
  secret: string;
  body: Buffer;
  declaredHash: string | undefined;
  /** false: the body is not parsed and re-serialized (a big or deeply nested one) */
  reserialize?: boolean;
}

export interface Dimension {
  index: number; // canonical field index, or 7 = join, 8 = key
  variants: Variant[];
}

function methodVariants({ req, fields }: StageContext): Variant[] {
  const method = req.method;
  return dedupe(
    [
      { value: method, ids: ['method_not_uppercased'] },
      { value: method.toLowerCase(), ids: ['method_not_uppercased'] },
      { value: method.charAt(0).toUpperCase() + method.slice(1).toLowerCase(), ids: ['method_not_uppercased'] },
    ],
    fields[0]!,
  );
}

function pathVariants({ req, fields }: StageContext): Variant[] {
  const canonPath = fields[1]!;
  const out: Variant[] = [];
  if (req.path.length > 1 && req.path.endsWith('/')) out.push({ value: req.path, ids: ['trailing_slash_kept'] });
  if (canonPath === API_PREFIX || canonPath.startsWith(API_PREFIX + '/'))
    out.push({ value: canonPath.slice(API_PREFIX.length) || '/', ids: ['path_without_prefix'] });
  if (req.query !== '') out.push({ value: `${canonPath}?${req.query}`, ids: ['path_includes_query'] });
  return dedupe(out, canonPath);
}

function timestampVariants({ fields }: StageContext): Variant[] {
  const ts = fields[4]!;
  const out: Variant[] = [];
  if (/^\d{1,10}$/.test(ts)) {
    // the header in seconds, the signed value in milliseconds (two clock reads)
    const base = BigInt(ts) * 1000n;
    for (let k = 0n; k < 1000n; k++) out.push({ value: String(base + k), ids: ['timestamp_milliseconds'] });
  } else if (/^\d{13}$/.test(ts)) {
    out.push({ value: ts.slice(0, 10), ids: ['timestamp_milliseconds'] });
  }
  return out;
}

const JOIN_VARIANTS: Variant[] = [
  { value: 'tail', ids: ['canonical_trailing_newline'] },
  { value: 'crlf', ids: ['canonical_crlf'] },
];

function keyVariants({ secret }: StageContext): Variant[] {
  const out: Variant[] = [{ value: 'nl', ids: ['secret_trailing_newline'] }];
  if (/^[A-Za-z0-9+/]+={0,2}$/.test(secret) && secret.length % 4 === 0)
    out.unshift({ value: 'b64', ids: ['secret_base64_decoded'] });
  return out;
}

/** Index 0 to 6: the canonical field the stage changes; 7: how the fields are joined; 8: the HMAC key. */
export const JOIN_INDEX = 7;
export const KEY_INDEX = 8;

export const STAGES: ReadonlyArray<{ stage: string; index: number; variants: (c: StageContext) => Variant[] }> = [
  { stage: 'method', index: 0, variants: methodVariants },
  { stage: 'path', index: 1, variants: pathVariants },
  { stage: 'query', index: 2, variants: (c) => queryVariants(c.req.query, c.fields[2]!) },
  { stage: 'timestamp', index: 4, variants: timestampVariants },
  { stage: 'body hash', index: 6, variants: (c) => bodyVariants(c.body, c.fields[6]!, c.declaredHash, c.reserialize) },
  { stage: 'join', index: JOIN_INDEX, variants: () => JOIN_VARIANTS },
  { stage: 'HMAC key', index: KEY_INDEX, variants: keyVariants },
];

export function buildDimensions(c: StageContext): Dimension[] {
  return STAGES.map(({ index, variants }) => ({ index, variants: variants(c) }));
}

export const ENCODING_MISTAKES = [
  'signature_hex',
  'signature_base64url',
  'signature_base64url_unpadded',
  'signature_base64_unpadded',
] as const;

export function checkedIds(dims: Dimension[]): MistakeId[] {
  const ids = new Set<MistakeId>();
  for (const d of dims) for (const v of d.variants) for (const id of v.ids) ids.add(id);
  for (const id of ENCODING_MISTAKES) ids.add(id);
  return [...ids];
}
