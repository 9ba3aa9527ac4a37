// Properties of the signing core, checked with fast-check (>= 1000 runs each).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalString, canonicalQuery, signRequest, signWebhook, verifyWebhook } from '../../src/signing/index.js';

const RUNS = { numRuns: 1000 };
const SECRET = 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=';

// Characters that stress the rules (reserved, unreserved, space, brackets, escapes) plus any code point.
const tricky = fc.constantFrom(
  ' ',
  '~',
  '*',
  '+',
  '%',
  '&',
  '=',
  '[',
  ']',
  '_',
  'A',
  'B',
  'a',
  'z',
  '0',
  '-',
  '.',
  '/',
  '?',
  '#',
  'é',
  '😀',
  '～',
);
const unit = fc.oneof(
  { arbitrary: tricky, weight: 3 },
  { arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), weight: 1 },
);
const text = (max: number) => fc.string({ unit, maxLength: max });

interface Param {
  key: string;
  value: string;
  list: boolean;
}
// A decoded key ending in "[]" is a list marker, not part of the key: keep generated keys clear of it.
const param: fc.Arbitrary<Param> = fc.record({
  key: text(6).filter((k) => !k.endsWith('[]')),
  value: text(6),
  list: fc.boolean(),
});

// ---- an independent model of QUERY_STRING, straight from SIGNING.md ----
const modelEnc = (s: string): string => {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.]/.test(ch)) out += ch;
    else if (b === 0x20) out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
};
const byBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
function modelQuery(params: Param[]): string {
  const groups = new Map<string, { values: string[]; list: boolean }>();
  for (const p of params) {
    const g = groups.get(p.key) ?? { values: [], list: false };
    g.values.push(p.value);
    g.list ||= p.list;
    groups.set(p.key, g);
  }
  const out: string[] = [];
  for (const key of [...groups.keys()].sort(byBytes)) {
    const g = groups.get(key)!;
    if (g.values.length === 1 && !g.list) out.push(`${modelEnc(key)}=${modelEnc(g.values[0]!)}`);
    else for (const v of [...g.values].sort(byBytes)) out.push(`${modelEnc(key)}[]=${modelEnc(v)}`);
  }
  return out.join('&');
}

// ---- a client that serializes the same parameters in any valid way ----
const SAFE_RAW = /^[A-Za-z0-9\-_.~*!'()/:@,;$]$/; // characters a client may leave unencoded in a query
function clientEncode(s: string, choose: (n: number) => number): string {
  let out = '';
  for (const ch of s) {
    const hex = (b: number): string => {
      const h = b.toString(16).padStart(2, '0');
      return '%' + (choose(2) ? h.toUpperCase() : h.toLowerCase());
    };
    const bytes = [...Buffer.from(ch, 'utf8')];
    if (ch === ' ') out += choose(2) ? '+' : hex(0x20);
    else if (SAFE_RAW.test(ch) && choose(2)) out += ch;
    else if (bytes.length > 1 && choose(3) === 0)
      out += ch; // a raw non-ASCII character
    else out += bytes.map(hex).join('');
  }
  return out;
}
function clientQuery(params: Param[], order: number[], choose: (n: number) => number): string {
  return order
    .map((i) => {
      const p = params[i]!;
      const key = clientEncode(p.key, choose) + (p.list ? (choose(2) ? '[]' : choose(2) ? '%5B%5D' : '%5b%5d') : '');
      if (p.value === '' && p.key !== '' && !p.list && choose(2)) return key; // "flag" without "="
      return `${key}=${clientEncode(p.value, choose)}`;
    })
    .join('&');
}

describe('query canonicalization', () => {
  it('does not depend on the order or the valid encoding the client used', () => {
    fc.assert(
      fc.property(fc.array(param, { maxLength: 6 }), fc.gen(), (params, g) => {
        const choose = (n: number): number => g(fc.nat, { max: n - 1 });
        const order = g(
          fc.shuffledSubarray,
          params.map((_, i) => i),
          { minLength: params.length, maxLength: params.length },
        );
        const expected = modelQuery(params);
        const raw1 = clientQuery(
          params,
          params.map((_, i) => i),
          choose,
        );
        const raw2 = clientQuery(params, order, choose);
        expect(canonicalQuery(raw1)).toBe(expected);
        expect(canonicalQuery(raw2)).toBe(expected);
        // stable: canonicalizing the canonical form gives itself
        expect(canonicalQuery(expected)).toBe(expected);
      }),
      RUNS,
    );
  });
});

// ---- request signature: each of the seven fields matters ----
const requestInput = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'get', 'post'),
  path: fc
    .array(fc.stringMatching(/^[A-Za-z0-9_%-]{1,8}$/), { maxLength: 4 })
    .map((segs) => '/api/v1/' + segs.join('/')),
  query: fc
    .array(param, { maxLength: 3 })
    .map((ps) => ps.map((p) => `${modelEnc(p.key)}${p.list ? '[]' : ''}=${modelEnc(p.value)}`).join('&')),
  keyId: fc.string({ maxLength: 26 }),
  timestamp: fc.nat().map(String),
  nonce: fc.uuid(),
  body: fc.uint8Array({ maxLength: 64 }),
});
type RequestInput = typeof requestInput extends fc.Arbitrary<infer T> ? T : never;
const FIELDS = ['method', 'path', 'query', 'keyId', 'timestamp', 'nonce', 'body'] as const;

describe('request signature', () => {
  it('changes when any one of the seven canonical fields changes', () => {
    fc.assert(
      fc.property(requestInput, requestInput, fc.integer({ min: 0, max: 6 }), (a, other, index) => {
        const field = FIELDS[index]!;
        const b: RequestInput = { ...a, [field]: other[field] };
        const ca = canonicalString(a).split('\n');
        const cb = canonicalString(b).split('\n');
        fc.pre(ca[index] !== cb[index]); // e.g. "get" and "GET" are the same field
        expect(cb.filter((f, i) => f !== ca[i]).length).toBe(1);
        expect(signRequest({ ...b, secret: SECRET }).signature).not.toBe(
          signRequest({ ...a, secret: SECRET }).signature,
        );
      }),
      RUNS,
    );
  });
});

describe('webhook signature', () => {
  it('a header produced by sign verifies, and fails after any single-byte change of the body', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.integer({ min: 0, max: 9_999_999_999 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (secret, body, t, at, delta) => {
          const header = signWebhook(secret, body, t);
          expect(verifyWebhook({ secret, header, body, now: t })).toEqual({ valid: true, reason: 'ok', timestamp: t });
          const changed = Uint8Array.from(body);
          const i = at % changed.length;
          changed[i] = (changed[i]! + delta) % 256;
          expect(verifyWebhook({ secret, header, body: changed, now: t }).reason).toBe('signature_mismatch');
        },
      ),
      RUNS,
    );
  });
});
