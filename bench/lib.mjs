// Shared helpers for the benchmarks. Every benchmark prints ratios against a baseline
// measured in the same run, because the machines are shared and absolute times drift.
import { spawnSync } from 'node:child_process';

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/** Wall time of one child process run, in ms. Fails loudly if the command fails. */
export function timeRun(cmd, args, options = {}) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'], ...options });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

export const fmt = (n, digits = 2) => Number(n).toFixed(digits);

/**
 * The embedded mock (from dist/, after `npm run build`) with a practically unlimited rate limit
 * and no provider latency, holding one customer and one active card to read. `options` go to
 * startMock (e.g. `{ requestLog: 0 }`).
 */
export async function startMockWithCard(options = {}) {
  const { randomUUID } = await import('node:crypto');
  const { startMock } = await import(new URL('../dist/mock/index.js', import.meta.url).href);
  const { signRequest } = await import(new URL('../dist/signing/index.js', import.meta.url).href);
  const mock = await startMock({ port: 0, seed: 1, rateLimit: 1_000_000_000, providerLatencyMs: 0, ...options });
  const call = async (method, path, body, key = mock.keys.test, extra = {}) => {
    const raw = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const full = new URL(mock.baseUrl).pathname + path;
    const s = signRequest({
      method,
      path: full,
      keyId: key.keyId,
      secret: key.secret,
      timestamp: Math.floor(Date.now() / 1000),
      nonce: randomUUID(),
      body: raw,
    });
    const res = await fetch(new URL(mock.baseUrl).origin + full, {
      method,
      headers: { ...s.headers, ...(raw ? { 'Content-Type': 'application/json' } : {}), ...extra },
      body: raw,
    });
    return { status: res.status, body: await res.json() };
  };
  const customer = await call('POST', '/customers', {
    first_name: 'Bench',
    last_name: 'Mark',
    email: 'bench@example.com',
    phone_number: '8031234567',
    dial_code: '+234',
    date_of_birth: '1990-01-01',
    id_type: 'bvn',
    id_number: '22212345678',
    line1: '1 Road',
    city: 'Lagos',
    state: 'Lagos',
    postal_code: '100001',
    country: 'NGA',
    occupation: 'engineer',
    employment_status: 'employed',
    account_purpose: 'testing',
    annual_salary: '1000',
    expected_monthly_volume: '100',
    terms_of_service_accepted: true,
  });
  if (customer.status !== 202) throw new Error(`customer: ${customer.status} ${JSON.stringify(customer.body)}`);
  const issued = await call(
    'POST',
    '/cards',
    { customer_id: customer.body.data.id, amount_minor: 1000 },
    mock.keys.test,
    { 'Idempotency-Key': randomUUID() },
  );
  if (issued.status !== 201) throw new Error(`issue: ${issued.status} ${JSON.stringify(issued.body)}`);
  return { mock, customerId: customer.body.data.id, cardId: issued.body.data.id };
}
