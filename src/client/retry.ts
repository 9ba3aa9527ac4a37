// When to try a request again, and how long to wait first: the spec's retry guidance as one pure
// function of the attempt's outcome (no clock, no randomness of its own: both are passed in).
//
// The spec: "do not retry a 4xx other than 409 or 429. Do not treat 202 as failure (retrying as
// a new request can double-issue)"; 503 is "temporarily unavailable; nothing charged; retry
// shortly"; "a money operation that 500s may still have succeeded; replaying the same key
// reveals the outcome"; 429 carries Retry-After. Every retry keeps the idempotency key and the
// body bytes and gets a fresh timestamp, nonce and signature (the caller's part).
import { retryAfterSeconds, type Outcome } from './errors.js';

export interface RetryPolicy {
  /** first backoff step in ms; it doubles per attempt */
  backoffBaseMs: number;
  /** the backoff never grows past this */
  maxBackoffMs: number;
  /** a Retry-After longer than this is not slept through: the refusal is reported with the wait */
  maxRetryAfterS: number;
  /** [0, 1): the jitter source */
  random: () => number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  backoffBaseMs: 200,
  maxBackoffMs: 2_000,
  maxRetryAfterS: 60,
  random: Math.random,
};

export interface AttemptFacts {
  outcome: Outcome;
  method: string;
  /** an issue, recharge or terminate: it carries an idempotency key */
  money: boolean;
  /** 0 for the first attempt */
  attemptIndex: number;
  /** local clock in ms (an HTTP-date Retry-After is counted from it) */
  nowMs: number;
}

export interface RetryDecision {
  retry: boolean;
  /** why, for `--verbose` ('' when there is nothing to say) */
  reason: string;
  delayMs: number;
  /** this attempt may have been processed by the API: a later refusal does not mean nothing happened */
  ambiguous: boolean;
}

/** Exponential backoff with jitter: a step of base x 2^n (capped), waited for half to all of it. */
export function backoffMs(attemptIndex: number, policy: RetryPolicy): number {
  const step = Math.min(policy.maxBackoffMs, policy.backoffBaseMs * 2 ** attemptIndex);
  return Math.round(step / 2 + policy.random() * (step / 2));
}

const again = (reason: string, delayMs: number, ambiguous = false): RetryDecision => ({
  retry: true,
  reason,
  delayMs,
  ambiguous,
});
const stop = (reason: string, ambiguous = false): RetryDecision => ({ retry: false, reason, delayMs: 0, ambiguous });

function errorCodes(body: unknown): unknown[] {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  return errors && typeof errors === 'object' ? Object.values(errors).flat() : [];
}

/** No answer: retried when the request never left, or when repeating it is harmless (a key, or a GET). */
function afterTransportFailure(
  facts: AttemptFacts & { outcome: { type: 'transport' } },
  policy: RetryPolicy,
): RetryDecision {
  const code = (facts.outcome.error as { code?: string }).code ?? 'connection error';
  const wait = backoffMs(facts.attemptIndex, policy);
  // a proxy that refused the tunnel refuses it again: reported at once, naming the proxy
  if (code === 'PROXY_REFUSED') return stop(`${code}: the proxy refused; not retried`);
  if (!facts.outcome.maybeSent) return again(`${code}: the request did not leave this machine`, wait);
  if (facts.money)
    return again(
      `${code}: the connection ended; a money operation replays safely under its idempotency key`,
      wait,
      true,
    );
  if (facts.method === 'GET') return again(`${code}: a GET is safe to repeat`, wait);
  return stop(`${code}: a ${facts.method} without an idempotency key may have been processed`);
}

/**
 * An intermediary answered (src/client/answer.ts): a proxy's refusal or a redirect is not retried
 * (asking again gets the same); anything else is retried as a connection that ended after sending
 * would be: a money operation under its key (the request may have reached the API), a GET.
 */
function afterNotApi(facts: AttemptFacts & { outcome: { type: 'not_api' } }, policy: RetryPolicy): RetryDecision {
  const { reason, status } = facts.outcome.notApi;
  if (reason === 'proxy_refusal') return stop(`${status} from a proxy: a refusal, not forwarded; not retried`);
  const ambiguous = facts.money;
  if (reason === 'redirect') return stop(`${status}: a redirect (the API never redirects) is not followed`, ambiguous);
  const why = `${status} not from the API (${reason.replace('_', ' ')})`;
  const wait = backoffMs(facts.attemptIndex, policy);
  if (facts.money) return again(`${why}; a money operation replays safely under its idempotency key`, wait, true);
  if (facts.method === 'GET') return again(`${why}; a GET is safe to repeat`, wait);
  return stop(`${why}; a ${facts.method} without an idempotency key may have been processed`);
}

export function retryDecision(facts: AttemptFacts, policy: RetryPolicy = DEFAULT_RETRY_POLICY): RetryDecision {
  const { outcome } = facts;
  if (outcome.type === 'transport') return afterTransportFailure({ ...facts, outcome }, policy);
  if (outcome.type === 'not_api') return afterNotApi({ ...facts, outcome }, policy);
  const { status, body, headers } = outcome;
  const wait = backoffMs(facts.attemptIndex, policy);

  // "Do not treat 202 as failure": accepted, not final (--wait replays it on its own schedule)
  if (status === 202) return stop(facts.money ? '202: accepted, not final (never retried as a failure)' : '');
  if (status < 400) return stop('');
  // 409 in_flight: the same key is still running; asking again later reveals its outcome
  if (status === 409 && errorCodes(body).includes('in_flight'))
    return again('409 in_flight: the same key is still running', wait, true);
  // 429, and 503 ("nothing charged; retry shortly"): wait as long as Retry-After says
  if (status === 429 || status === 503) {
    const after = retryAfterSeconds(headers, facts.nowMs);
    if (after !== undefined && after > policy.maxRetryAfterS)
      return stop(
        `${status} with Retry-After ${after} s, longer than the ${policy.maxRetryAfterS} s this command waits`,
      );
    const delayMs = after !== undefined ? after * 1000 + Math.round(policy.random() * 100) : wait;
    return again(`${status}${after !== undefined ? ` (Retry-After ${after} s)` : ''}`, delayMs);
  }
  // "do not retry a 4xx other than 409 or 429"
  if (status < 500) return stop(`${status}: a 4xx other than 409 in_flight and 429 is not retried`);
  // "a money operation that 500s may still have succeeded; replaying the same key reveals the
  // outcome": any 5xx but 503 (a proxy's 502/504 may have forwarded it)
  if (facts.money && status < 600)
    return again(`${status} on a money operation: replaying the key reveals the outcome`, wait, true);
  return stop(`${status}: not retried (not a money operation)`);
}
