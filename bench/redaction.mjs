// The cost of keeping secrets out of the request log (issue 29): the mock's redactor with 8, 300
// and 3,000 secrets (a suite that makes a merchant per test), on the three strings of a signed
// GET's record (path, nonce, key id) and on a 16 KiB body of base64 (the worst text: every
// character could start a secret). Prints the time to learn the secrets and each scan; the cost
// should not grow with the number of secrets. `node bench/redaction.mjs` after `npm run build`.
import { randomBytes, randomUUID } from 'node:crypto';

const { SecretRedactor } = await import(new URL('../dist/mock/redaction.js', import.meta.url).href);
const path = '/api/v1/cards/01JD2Q7N8V3K4M5P6R7S8T9CAN';
const nonce = randomUUID();
const keyId = '01JD2Q7N8V3K4M5P6R7S8T9CAN';
const body = randomBytes(12_300).toString('base64').slice(0, 16_384);

for (const n of [8, 300, 3000]) {
  const r = new SecretRedactor();
  let t = performance.now();
  for (let i = 0; i < n; i++) r.add([randomBytes(32).toString('base64')]);
  const learn = performance.now() - t;
  const record = () => (r.redact(path), r.redact(nonce), r.redact(keyId));
  for (let i = 0; i < 2000; i++) record();
  t = performance.now();
  for (let i = 0; i < 100_000; i++) record();
  const small = ((performance.now() - t) / 100_000) * 1000;
  for (let i = 0; i < 200; i++) r.redactCut(body);
  t = performance.now();
  for (let i = 0; i < 300; i++) r.redactCut(body);
  const big = (performance.now() - t) / 300;
  console.log(
    `redaction, ${n} secrets: learnt in ${learn.toFixed(1)} ms; a GET record ${small.toFixed(2)} us; a 16 KiB base64 body ${big.toFixed(3)} ms`,
  );
}
