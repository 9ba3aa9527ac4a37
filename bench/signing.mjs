// In-process signing throughput as a ratio to the raw primitives it cannot avoid:
// SHA-256 of the same body plus one HMAC-SHA256 of a message of the canonical string's size.
import { createHash, createHmac } from 'node:crypto';
import { signRequest } from '../dist/signing/index.js';
import { fmt, median } from './lib.mjs';

const TARGET = 0.5;
const secret = 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=';
const body = Buffer.from(
  JSON.stringify({
    customer_id: '01JD2Q9ZZZZZZZZZZZZZZZZZZZ',
    amount_minor: 5000,
    product_id: '01JD2QA1B2C3D4E5F6G7H8J9KM',
  }),
);
const input = {
  method: 'GET',
  path: '/api/v1/customers',
  query: 'per_page=50&cursor=eyJpZCI6MTB9',
  keyId: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  timestamp: 1763800000,
  nonce: '6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f',
  secret,
  body,
};
const canonicalLength = signRequest(input).canonical.length;
const message = 'x'.repeat(canonicalLength);

const cases = {
  raw: () => {
    const h = createHash('sha256').update(body).digest('hex');
    return createHmac('sha256', secret)
      .update(message + h.slice(0, 0))
      .digest('base64');
  },
  signRequest: () => signRequest(input).signature,
};

function opsPerSecond(fn, ms = 300) {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 200; i++) fn();
    n += 200;
  }
  return (n * 1000) / ms;
}

for (const fn of Object.values(cases)) opsPerSecond(fn, 200); // warm up the JIT
const rounds = { raw: [], signRequest: [] };
for (let i = 0; i < 7; i++) for (const [name, fn] of Object.entries(cases)) rounds[name].push(opsPerSecond(fn));

const raw = median(rounds.raw);
const ours = median(rounds.signRequest);
const ratio = ours / raw;
console.log(`signing throughput (median of 7 alternating 300 ms rounds)`);
console.log(`  raw sha256+hmac   ${fmt(raw / 1000, 1).padStart(7)} k ops/s`);
console.log(
  `  signRequest       ${fmt(ours / 1000, 1).padStart(7)} k ops/s  ratio=${fmt(ratio)}  ${ratio >= TARGET ? `ok (target >= ${TARGET}x)` : `UNDER target ${TARGET}x`}`,
);
export default { raw, ours, ratio };
