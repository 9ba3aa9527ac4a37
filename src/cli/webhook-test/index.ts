// `cardctl webhooks test URL`: grades a merchant's webhook receiver. Each case is one or two
// real deliveries (cases.ts) posted as the service posts them (send.ts); a case passes when the
// receiver answered as a correct one must: a 2xx for a valid delivery, anything else (within the
// timeout) for a forged, stale or malformed one. Nothing here prints: the report is rendered by
// src/output/case-report.ts.
import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import { usageError } from '../../errors.js';
import { isLoopbackHost } from '../../mock/endpoint-url.js'; // the one loopback rule (the listener and the mock use it too)
import { buildCases, type WebhookCase } from './cases.js';
import { postDelivery, type PostResult } from './send.js';

/** Spec "Delivery behavior": the service waits 15 s in all. */
export const SPEC_TIMEOUT_S = 15;
/** Cases in flight at once: quick on a slow receiver, gentle on a small one. */
const CONCURRENCY = 4;

export interface WebhookTestOptions {
  url: string;
  /** seconds per delivery (a number, or its text from the flag); default 15 */
  timeout?: string | number;
  profile?: string;
}

export interface WebhookTestDeps {
  env: NodeJS.ProcessEnv;
  /** Unix ms */
  now?: () => number;
}

export interface WebhookCaseReport {
  name: string;
  /** accept / refuse / info: the group the case belongs to */
  group: 'accept' | 'refuse' | 'info';
  status: 'passed' | 'failed' | 'info';
  expected: string;
  got: string;
  time_ms: number;
  delivery_id: string;
  /** why a correct receiver answers so */
  why: string;
  /** for a failure: why, and the delivery id to find it in the receiver's logs */
  details?: string;
}

export interface WebhookTestReport {
  suite: string;
  url: string;
  ok: boolean;
  /** where the secret came from (never the secret) */
  secret_from: string;
  timeout_s: number;
  passed: number;
  failed: number;
  info: number;
  time_ms: number;
  cases: WebhookCaseReport[];
}

/** The receiver URL: http only on loopback (a local app), https elsewhere; no user info. */
export function checkReceiverUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw usageError(
      `"${raw}" is not an absolute URL.`,
      'For example https://example.com/webhooks, or http://localhost:3000/webhooks for a local receiver.',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usageError(`the receiver URL must be http or https, not ${url.protocol}`);
  if (url.username || url.password)
    throw usageError('the receiver URL must not carry a user name or password (the service sends none).');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw usageError(
      `http is allowed only for a loopback host, not ${url.hostname}: the service delivers over https only.`,
      `Use https://${url.host}${url.pathname}${url.search}, or test a local receiver at http://localhost:PORT/...`,
    );
  }
  return url;
}

export function checkTimeout(timeout: string | number | undefined): number {
  const t =
    timeout === undefined
      ? SPEC_TIMEOUT_S
      : typeof timeout === 'number'
        ? timeout
        : /^\s*$/.test(timeout)
          ? NaN
          : Number(timeout);
  if (!Number.isFinite(t) || t <= 0 || t > SPEC_TIMEOUT_S) {
    throw usageError(
      `--timeout must be more than 0 and at most ${SPEC_TIMEOUT_S} seconds, not ${timeout}.`,
      `The service waits ${SPEC_TIMEOUT_S} s for an answer; a longer timeout would pass a receiver the service gives up on.`,
    );
  }
  return t;
}

function gotText(r: PostResult): string {
  if (r.status === null) return r.error ?? 'no answer';
  if (r.status >= 300 && r.status < 400) return `${r.status} (redirect not followed)`;
  return String(r.status);
}

const is2xx = (r: PostResult): boolean => r.status !== null && r.status >= 200 && r.status < 300;

async function runCase(c: WebhookCase, url: URL, timeoutS: number, nowS: () => number): Promise<WebhookCaseReport> {
  const results: PostResult[] = [];
  let deliveryId = '';
  for (const make of c.deliveries) {
    const d = make(nowS());
    deliveryId = d.headers['X-Service-Delivery'] ?? '';
    results.push(await postDelivery(url, d.body, d.headers, timeoutS));
  }
  const time_ms = results.reduce((sum, r) => sum + r.ms, 0);
  const base = { name: c.name, group: c.expect, time_ms, delivery_id: deliveryId, why: c.why };
  const r = results[0]!;
  if (c.expect === 'info') {
    return {
      ...base,
      status: 'info',
      expected: '2xx both times; acting on it once is up to the receiver',
      got: results.map(gotText).join(', then '),
    };
  }
  // no answer in time fails either way: the service counts it as a failed delivery and retries
  const answered = r.status !== null;
  const passed = c.expect === 'accept' ? is2xx(r) : answered && !is2xx(r);
  const expected = c.expect === 'accept' ? `2xx within ${timeoutS} s` : `refused: any non-2xx within ${timeoutS} s`;
  const details = passed ? undefined : `a correct receiver: ${c.why}\nX-Service-Delivery: ${deliveryId}`;
  return { ...base, status: passed ? 'passed' : 'failed', expected, got: gotText(r), ...(details ? { details } : {}) };
}

async function inOrder<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export async function runWebhookTest(opts: WebhookTestOptions, deps: WebhookTestDeps): Promise<WebhookTestReport> {
  const url = checkReceiverUrl(opts.url);
  const timeoutS = checkTimeout(opts.timeout);
  const { resolveWebhookSecret } = await import('../../profiles/resolve.js');
  const resolved = await resolveWebhookSecret({ profile: opts.profile, env: deps.env });
  const now = deps.now ?? Date.now;
  const nowS = (): number => Math.floor(now() / 1000);
  const started = now();
  const cases = buildCases({
    secret: resolved.secret,
    now: nowS(),
    newId: () => ulid(),
    otherSecret: randomBytes(32).toString('base64'),
  });
  const reports = await inOrder(cases, CONCURRENCY, (c) => runCase(c, url, timeoutS, nowS));
  const count = (s: WebhookCaseReport['status']): number => reports.filter((r) => r.status === s).length;
  return {
    suite: 'cardctl webhooks test',
    url: url.href,
    ok: count('failed') === 0,
    secret_from: resolved.source === 'env' ? 'CARDCTL_WEBHOOK_SECRET' : `profile ${resolved.profile}`,
    timeout_s: timeoutS,
    passed: count('passed'),
    failed: count('failed'),
    info: count('info'),
    time_ms: now() - started,
    cases: reports,
  };
}
