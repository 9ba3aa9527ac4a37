// A mock for the start-up benchmark, in its own process (the benchmark times children with
// spawnSync, which blocks its own event loop). Starts the embedded mock with a practically
// unlimited rate limit and no provider latency, makes a customer and a card, prints one JSON
// line {baseUrl, keyId, secret, customerId, cardId} and serves until stdin closes.
import { randomUUID } from 'node:crypto';

const { startMock } = await import(new URL('../dist/mock/index.js', import.meta.url).href);
const { signRequest } = await import(new URL('../dist/signing/index.js', import.meta.url).href);

const mock = await startMock({ port: 0, seed: 1, rateLimit: 1_000_000_000, providerLatencyMs: 0 });
const key = mock.keys.test;
const call = async (method, path, body, extra = {}) => {
  const raw = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const full = new URL(mock.baseUrl).pathname + path;
  const s = signRequest({ method, path: full, keyId: key.keyId, secret: key.secret, timestamp: Math.floor(Date.now() / 1000), nonce: randomUUID(), body: raw });
  const res = await fetch(new URL(mock.baseUrl).origin + full, { method, headers: { ...s.headers, ...(raw ? { 'Content-Type': 'application/json' } : {}), ...extra }, body: raw });
  return { status: res.status, body: await res.json() };
};
const customer = await call('POST', '/customers', {
  first_name: 'Bench', last_name: 'Mark', email: 'bench@example.com', phone_number: '8031234567', dial_code: '+234', date_of_birth: '1990-01-01',
  id_type: 'bvn', id_number: '22212345678', line1: '1 Road', city: 'Lagos', state: 'Lagos', postal_code: '100001', country: 'NGA',
  occupation: 'engineer', employment_status: 'employed', account_purpose: 'testing', annual_salary: '1000', expected_monthly_volume: '100',
  terms_of_service_accepted: true,
});
if (customer.status !== 202) throw new Error(`customer: ${customer.status} ${JSON.stringify(customer.body)}`);
const issued = await call('POST', '/cards', { customer_id: customer.body.data.id, amount_minor: 1000 }, { 'Idempotency-Key': randomUUID() });
if (issued.status !== 201) throw new Error(`issue: ${issued.status} ${JSON.stringify(issued.body)}`);
const minLoad = Math.max(1, ...mock.products.filter((p) => p.default).map((p) => p.min_initial_load_minor));

process.stdout.write(JSON.stringify({ baseUrl: mock.baseUrl, keyId: key.keyId, secret: key.secret, customerId: customer.body.data.id, cardId: issued.body.data.id, minLoad }) + '\n');
process.stdin.resume();
process.stdin.on('end', () => void mock.close().then(() => process.exit(0)));
process.on('SIGTERM', () => void mock.close().then(() => process.exit(0)));
