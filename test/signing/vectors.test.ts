import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalString, signRequest, verifyWebhook } from '../../src/signing/index.js';

interface SigningVector {
  name: string;
  method: string;
  path: string;
  query: string;
  key_id: string;
  timestamp: string;
  nonce: string;
  secret: string;
  body_base64: string;
  canonical: string;
  signature: string;
}
interface WebhookVector {
  name: string;
  secret: string;
  header: string;
  body_base64: string;
  now: number;
  tolerance: number;
  valid: boolean;
  reason: string;
}

const load = <T>(name: string): T[] =>
  JSON.parse(readFileSync(new URL(`../fixtures/vectors/${name}`, import.meta.url), 'utf8'));
const signing = load<SigningVector>('signing.json');
const webhooks = load<WebhookVector>('webhooks.json');

describe('signing vectors from the independent implementation', () => {
  it('has vectors to check', () => expect(signing.length).toBeGreaterThanOrEqual(10));
  for (const v of signing) {
    it(v.name, () => {
      const body = Buffer.from(v.body_base64, 'base64');
      const input = {
        method: v.method,
        path: v.path,
        query: v.query,
        keyId: v.key_id,
        timestamp: v.timestamp,
        nonce: v.nonce,
        body,
      };
      expect(canonicalString(input)).toBe(v.canonical);
      const signed = signRequest({ ...input, secret: v.secret });
      expect(signed.canonical).toBe(v.canonical);
      expect(signed.signature).toBe(v.signature);
      expect(signed.headers['X-Signature']).toBe(v.signature);
    });
  }
});

describe('webhook vectors from the independent implementation', () => {
  it('has vectors to check', () => expect(webhooks.length).toBeGreaterThanOrEqual(8));
  for (const v of webhooks) {
    it(v.name, () => {
      const result = verifyWebhook({
        secret: v.secret,
        header: v.header,
        body: Buffer.from(v.body_base64, 'base64'),
        now: v.now,
        tolerance: v.tolerance,
      });
      expect(result.valid).toBe(v.valid);
      expect(result.reason).toBe(v.reason);
    });
  }
});
