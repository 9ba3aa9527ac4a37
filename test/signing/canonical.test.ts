// One test per rule of SIGNING.md, on the pure signing core.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  bodySha256,
  canonicalMethod,
  canonicalPath,
  canonicalQuery,
  canonicalString,
  EMPTY_BODY_SHA256,
  parseWebhookHeader,
  QueryEncodingError,
  signCanonical,
  signRequest,
  signWebhook,
  verifyRequestSignature,
  verifyWebhook,
  webhookSignature,
} from '../../src/signing/index.js';

const SECRET = 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=';
const WH_SECRET = 'whsec_test_secret';

describe('METHOD', () => {
  it('is uppercased', () => {
    expect(canonicalMethod('get')).toBe('GET');
    expect(canonicalMethod('Patch')).toBe('PATCH');
  });
});

describe('PATH', () => {
  it('drops one trailing slash', () => expect(canonicalPath('/api/v1/customers/')).toBe('/api/v1/customers'));
  it('drops only one of two trailing slashes', () =>
    expect(canonicalPath('/api/v1/customers//')).toBe('/api/v1/customers/'));
  it('keeps "/" alone', () => expect(canonicalPath('/')).toBe('/'));
  it('drops the query', () => expect(canonicalPath('/api/v1/cards/?per_page=5')).toBe('/api/v1/cards'));
  it('keeps the /api/v1 prefix and the path as sent', () =>
    expect(canonicalPath('/api/v1/cards/01JD%2F')).toBe('/api/v1/cards/01JD%2F'));
});

describe('QUERY_STRING', () => {
  it('is empty without a query', () => expect(canonicalQuery('')).toBe(''));
  it('sorts keys', () => expect(canonicalQuery('per_page=50&cursor=x')).toBe('cursor=x&per_page=50'));
  it('drops empty pieces', () => expect(canonicalQuery('&&a=1&&b=2&')).toBe('a=1&b=2'));
  it('splits on the first "=" only', () => expect(canonicalQuery('a=b=c')).toBe('a=b%3Dc'));
  it('writes a key without "=" with an empty value', () =>
    expect(canonicalQuery('flag&per_page=5')).toBe('flag=&per_page=5'));
  it('writes an empty value as key=', () => expect(canonicalQuery('q=')).toBe('q='));
  it('decodes "+" and "%20" both to a space, written as "+"', () => {
    expect(canonicalQuery('q=john+smith')).toBe('q=john+smith');
    expect(canonicalQuery('q=john%20smith')).toBe('q=john+smith');
  });
  it('encodes a literal plus as %2B', () =>
    expect(canonicalQuery('cursor=ab%2Bc%2Fd%3D%3D')).toBe('cursor=ab%2Bc%2Fd%3D%3D'));
  it('writes a list key with literal brackets', () => {
    expect(canonicalQuery('status[]=active')).toBe('status[]=active');
    expect(canonicalQuery('status%5B%5D=active')).toBe('status[]=active');
  });
  it('writes a repeated key as key[]= with values sorted', () =>
    expect(canonicalQuery('status=b&status=a')).toBe('status[]=a&status[]=b'));
  it('keeps duplicate values', () => expect(canonicalQuery('tag=b&tag=a&tag=a')).toBe('tag[]=a&tag[]=a&tag[]=b'));
  it('merges a list key with the same plain key', () => expect(canonicalQuery('s[]=b&s=a')).toBe('s[]=a&s[]=b'));
  it('sorts by UTF-8 bytes: A < B < _ < a', () => expect(canonicalQuery('a=1&_=2&B=3&A=4')).toBe('A=4&B=3&_=2&a=1'));
  it('sorts by bytes beyond the BMP too (U+FF5E sorts before U+1F600)', () => {
    // UTF-16 code units would put the emoji (a surrogate pair, 0xD83D...) first
    expect(canonicalQuery(`k=${encodeURIComponent('😀')}&k=${encodeURIComponent('～')}`)).toBe(
      'k[]=%EF%BD%9E&k[]=%F0%9F%98%80',
    );
  });
  it('sorts on decoded values, before encoding', () => expect(canonicalQuery('v=%7E&v=A')).toBe('v[]=A&v[]=%7E'));
  it('encodes "~" as %7E and "*" as %2A', () => expect(canonicalQuery('a=~x*y')).toBe('a=%7Ex%2Ay'));
  it('leaves A-Z a-z 0-9 - _ . unencoded', () => expect(canonicalQuery('k=AZaz09-_.')).toBe('k=AZaz09-_.'));
  it('writes uppercase hex', () => expect(canonicalQuery('k=%2f%c3%a9')).toBe('k=%2F%C3%A9'));
  it('encodes non-ASCII as UTF-8 bytes', () => expect(canonicalQuery('name=Jörg')).toBe('name=J%C3%B6rg'));
  it('refuses a query that is not valid UTF-8', () => {
    expect(() => canonicalQuery('q=%FF')).toThrow(QueryEncodingError);
    expect(() => canonicalQuery('q=%C3')).toThrow(QueryEncodingError);
  });
  it('refuses a broken % escape', () => {
    expect(() => canonicalQuery('q=%')).toThrow(QueryEncodingError);
    expect(() => canonicalQuery('q=%G1')).toThrow(/two hex digits/);
    expect(() => canonicalQuery('q=%4')).toThrow(QueryEncodingError);
  });
});

describe('BODY_SHA256', () => {
  it('is the hash of the empty string for no body and an empty body', () => {
    expect(EMPTY_BODY_SHA256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(bodySha256(undefined)).toBe(EMPTY_BODY_SHA256);
    expect(bodySha256(Buffer.alloc(0))).toBe(EMPTY_BODY_SHA256);
    expect(bodySha256('')).toBe(EMPTY_BODY_SHA256);
  });
  it('hashes the raw bytes, lowercase hex', () => {
    expect(bodySha256('{"a":1}')).toBe('015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862');
    expect(bodySha256(Buffer.from('{"a":1}\n'))).not.toBe(bodySha256('{"a":1}'));
  });
});

describe('canonical string and signature', () => {
  const input = {
    method: 'post',
    path: '/api/v1/cards/',
    query: 'b=2&a=1',
    keyId: 'KEY',
    timestamp: '1763800000',
    nonce: 'N',
    body: '{}',
  };
  it('joins seven fields with \\n, no trailing newline, six separators even when fields are empty', () => {
    const c = canonicalString({ ...input, query: '', body: undefined });
    expect(c.split('\n')).toHaveLength(7);
    expect(c.endsWith('\n')).toBe(false);
    expect(c).toBe(`POST\n/api/v1/cards\n\nKEY\n1763800000\nN\n${EMPTY_BODY_SHA256}`);
  });
  it('takes the query from the path when no query is given', () => {
    expect(canonicalString({ ...input, query: undefined, path: '/api/v1/cards?b=2&a=1' })).toBe(canonicalString(input));
  });
  it('uses the secret text as the HMAC key, not base64-decoded', () => {
    const c = canonicalString(input);
    expect(signCanonical(SECRET, c)).toBe(createHmac('sha256', Buffer.from(SECRET, 'utf8')).update(c).digest('base64'));
    expect(signCanonical(SECRET, c)).not.toBe(
      createHmac('sha256', Buffer.from(SECRET, 'base64')).update(c).digest('base64'),
    );
  });
  it('signRequest returns the four headers and verifies with the right secret only', () => {
    const s = signRequest({ ...input, secret: SECRET });
    expect(Object.keys(s.headers)).toEqual(['X-Api-Key', 'X-Timestamp', 'X-Nonce', 'X-Signature']);
    expect(verifyRequestSignature(s.canonical, s.signature, [SECRET])).toBe(true);
    expect(verifyRequestSignature(s.canonical, s.signature, ['other', SECRET])).toBe(true); // a rolled key has two
    expect(verifyRequestSignature(s.canonical, s.signature, ['other'])).toBe(false);
  });
});

describe('webhook header parsing', () => {
  it('trims spaces around items', () => expect(parseWebhookHeader('  t=1 ,  v1=ab  ')).toEqual({ t: '1', v1: ['ab'] }));
  it('ignores unknown items', () =>
    expect(parseWebhookHeader('t=1, v0=zz, x=y, v1=ab, junk')).toEqual({ t: '1', v1: ['ab'] }));
  it('keeps several v1', () => expect(parseWebhookHeader('t=1, v1=aa, v1=bb')).toEqual({ t: '1', v1: ['aa', 'bb'] }));
  it('rejects a missing t, a missing v1 and a non-numeric t', () => {
    expect(parseWebhookHeader('v1=aa')).toBeNull();
    expect(parseWebhookHeader('t=1')).toBeNull();
    expect(parseWebhookHeader('t=abc, v1=aa')).toBeNull();
    expect(parseWebhookHeader('t=-5, v1=aa')).toBeNull();
    expect(parseWebhookHeader('')).toBeNull();
  });
});

describe('webhook verification', () => {
  const body = Buffer.from('{"type":"card.issued","occurred_at":"2026-11-22T10:00:00+00:00","data":{"card_id":"X"}}');
  const t = 1763800000;
  const header = signWebhook(WH_SECRET, body, t);

  it('signs as t=<t>, v1=<lowercase hex HMAC of "t." + body>', () => {
    const v1 = createHmac('sha256', WH_SECRET).update(`${t}.`).update(body).digest('hex');
    expect(header).toBe(`t=${t}, v1=${v1}`);
    expect(webhookSignature(WH_SECRET, body, t)).toBe(v1);
  });
  it('accepts when any one of several v1 matches (rotation)', () => {
    const good = webhookSignature(WH_SECRET, body, t);
    expect(
      verifyWebhook({ secret: WH_SECRET, header: `t=${t}, v1=${'0'.repeat(64)}, v1=${good}`, body, now: t }).reason,
    ).toBe('ok');
  });
  it('does not match uppercase hex', () => {
    const upper = `t=${t}, v1=${webhookSignature(WH_SECRET, body, t).toUpperCase()}`;
    expect(verifyWebhook({ secret: WH_SECRET, header: upper, body, now: t }).reason).toBe('signature_mismatch');
  });
  it('reports a malformed header', () => {
    expect(verifyWebhook({ secret: WH_SECRET, header: 'v1=abc', body, now: t }).reason).toBe('malformed_header');
    expect(
      verifyWebhook({ secret: WH_SECRET, header: `t=soon, v1=${webhookSignature(WH_SECRET, body, t)}`, body, now: t })
        .reason,
    ).toBe('malformed_header');
  });
  it('checks the tolerance after the signature: a stale forged header is a mismatch, not out of tolerance', () => {
    expect(
      verifyWebhook({ secret: WH_SECRET, header: `t=${t}, v1=${'a'.repeat(64)}`, body, now: t + 10_000 }).reason,
    ).toBe('signature_mismatch');
    expect(verifyWebhook({ secret: WH_SECRET, header, body, now: t + 10_000 }).reason).toBe(
      'timestamp_out_of_tolerance',
    );
  });
  it('allows exactly the tolerance, both directions', () => {
    expect(verifyWebhook({ secret: WH_SECRET, header, body, now: t + 300 }).valid).toBe(true);
    expect(verifyWebhook({ secret: WH_SECRET, header, body, now: t - 300 }).valid).toBe(true);
    expect(verifyWebhook({ secret: WH_SECRET, header, body, now: t + 301 }).valid).toBe(false);
    expect(verifyWebhook({ secret: WH_SECRET, header, body, now: t + 1000, tolerance: 1000 }).valid).toBe(true);
  });
  it('verifies the raw bytes: the same JSON re-serialized does not verify', () => {
    const reserialized = JSON.stringify(JSON.parse(body.toString()), null, 2);
    expect(verifyWebhook({ secret: WH_SECRET, header, body: reserialized, now: t }).reason).toBe('signature_mismatch');
  });
});
