// The money rules and the retry guidance as pure functions: the journal's entries and the clock
// go in, the decision comes out. The end-to-end proofs against the mock are in money-24h.test.ts.
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../src/client/journal.js';
import { RESEND_LIMIT_MS, resultOf, sendVerdict, type SendTarget } from '../../src/client/money-rules.js';
import { DEFAULT_RETRY_POLICY, retryDecision, type AttemptFacts } from '../../src/client/retry.js';

const NOW = Date.parse('2026-11-23T08:00:00Z');
const H = 3_600_000;
const CARD = '01J0000000000000000000CARD';
const target: SendTarget = {
  idempotencyKey: 'k',
  baseUrl: 'https://api.example/api/v1',
  mode: 'test',
  keyId: 'KEY1',
  method: 'POST',
  path: `/api/v1/cards/${CARD}/recharge`,
  bodySha256: 'b1',
};

let n = 0;
function entry(ageMs: number, o: Partial<JournalEntry> & { last?: Record<string, unknown> } = {}): JournalEntry {
  const { last, ...rest } = o;
  return {
    type: 'op',
    id: `op_${++n}`,
    time: new Date(NOW - ageMs).toISOString(),
    profile: null,
    source: 'env',
    mode: 'test',
    base_url: target.baseUrl,
    key_id: 'KEY1',
    method: 'POST',
    path: `/api/v1/cards/${CARD}/recharge`,
    query: '',
    idempotency_key: 'k',
    body_b64: '',
    body_sha256: 'b1',
    outcome: 'unknown',
    status: null,
    code: null,
    resource_id: null,
    outcomes: last ? [{ type: 'outcome', id: 'x', time: '', status: null, outcome: 'resolved', ...last } as never] : [],
    ...rest,
  };
}
const succeeded = (ageMs: number, o: Partial<JournalEntry> = {}) =>
  entry(ageMs, { outcome: 'resolved', status: 200, resource_id: CARD, last: { status: 200 }, ...o });

describe('sendVerdict: a key first sent more than 23 h ago is never sent again', () => {
  it('sends a key with no history, or whose sends were all refused before anything could happen', () => {
    expect(sendVerdict([], target, NOW).send).toBe(true);
    const notProcessed = entry(30 * H, {
      outcome: 'resolved',
      status: 503,
      last: { status: 503, not_processed: true },
    });
    const kycRefused = entry(30 * H, {
      outcome: 'resolved',
      status: 409,
      code: 'kyc_not_approved',
      last: { status: 409 },
    });
    expect(resultOf(notProcessed)).toBe('not_processed');
    expect(sendVerdict([notProcessed, kycRefused], target, NOW).send).toBe(true);
  });

  it('23 h 59 min: not sent; 22 h 59 min: sent; the limit is inclusive of 23 h', () => {
    expect(sendVerdict([succeeded(23 * H + 59 * 60_000)], target, NOW)).toMatchObject({
      send: false,
      report: { outcome: 'succeeded', id: CARD, why: 'key_forgotten' },
    });
    expect(sendVerdict([succeeded(22 * H + 59 * 60_000)], target, NOW).send).toBe(true);
    expect(sendVerdict([succeeded(RESEND_LIMIT_MS)], target, NOW).send).toBe(true);
    expect(sendVerdict([succeeded(RESEND_LIMIT_MS + 1)], target, NOW).send).toBe(false);
  });

  it('the age counts from the FIRST send: a recent resend does not make an old key young again', () => {
    const verdict = sendVerdict([entry(25 * H), succeeded(1 * H)], target, NOW);
    expect(verdict).toMatchObject({
      send: false,
      report: { outcome: 'succeeded', first_sent_at: new Date(NOW - 25 * H).toISOString() },
    });
  });

  it('resolved then unknown (a later resend lost its answer): the success is reported', () => {
    expect(
      sendVerdict([succeeded(26 * H), entry(25 * H, { outcome: 'unknown', status: 500 })], target, NOW),
    ).toMatchObject({ send: false, report: { outcome: 'succeeded' } });
  });

  it('unknown: reported unknown with the card of the path; a refusal: reported failed with its status and code', () => {
    expect(sendVerdict([entry(25 * H, { status: 500 })], target, NOW)).toMatchObject({
      send: false,
      report: { outcome: 'unknown', id: CARD },
    });
    const refused = entry(25 * H, {
      outcome: 'resolved',
      status: 422,
      code: 'insufficient_funds',
      last: { status: 422 },
    });
    expect(sendVerdict([refused], target, NOW)).toMatchObject({
      send: false,
      report: { outcome: 'failed', status: 422, code: 'insufficient_funds' },
    });
  });

  it("a person's `ops resolve` is the outcome reported, with the note", () => {
    const resolved = entry(25 * H, {
      outcome: 'resolved',
      resolution: { outcome: 'failed', note: 'not in the portal', time: '' },
    });
    expect(sendVerdict([resolved], target, NOW)).toMatchObject({
      send: false,
      report: { outcome: 'failed', recorded_by: 'ops resolve', note: 'not in the portal' },
    });
  });

  it("one key is one operation per account: the same key id through another base URL spelling or a profile's former key id is the same account", () => {
    for (const o of [
      { base_url: 'http://localhost:4010/api/v1' },
      { base_url: `${target.baseUrl}/` },
      { mode: 'live' },
      { profile: 'other' },
    ]) {
      expect(sendVerdict([succeeded(25 * H, o)], target, NOW)).toMatchObject({
        send: false,
        report: { outcome: 'succeeded', why: 'key_forgotten' },
      });
    }
    const rotated = { ...target, keyId: 'KEY2', formerKeyIds: ['KEY1'] };
    expect(sendVerdict([succeeded(25 * H)], rotated, NOW)).toMatchObject({
      send: false,
      report: { outcome: 'succeeded' },
    });
  });

  it("another key id that was never the profile's is another account: its sends do not count", () => {
    expect(sendVerdict([succeeded(25 * H, { key_id: 'KEY9' })], target, NOW).send).toBe(true);
    expect(sendVerdict([succeeded(60_000, { key_id: 'KEY9', body_sha256: 'other' })], target, NOW).send).toBe(true);
  });

  it('entries recorded without a key id (older journals) count for the API they were sent to', () => {
    expect(sendVerdict([succeeded(25 * H, { key_id: undefined })], target, NOW).send).toBe(false);
    expect(
      sendVerdict([succeeded(25 * H, { key_id: undefined, base_url: 'https://other.example/api/v1' })], target, NOW)
        .send,
    ).toBe(true);
    expect(sendVerdict([succeeded(25 * H, { key_id: undefined, mode: 'live' })], target, NOW).send).toBe(true);
  });

  it('the same key with another request in the account is a conflict, at any age (refused before sending, as payload_mismatch)', () => {
    for (const age of [60_000, 25 * H]) {
      expect(sendVerdict([succeeded(age, { body_sha256: 'other' })], target, NOW)).toMatchObject({
        send: false,
        conflict: { body_sha256: 'other' },
      });
      expect(
        sendVerdict([succeeded(age, { path: '/api/v1/cards/01J000000000000000000OTHER/recharge' })], target, NOW),
      ).toMatchObject({ send: false, conflict: {} });
    }
    // a send refused before anything could happen holds nothing under the key
    expect(
      sendVerdict(
        [
          entry(60_000, {
            body_sha256: 'other',
            outcome: 'resolved',
            status: 503,
            last: { status: 503, not_processed: true },
          }),
        ],
        target,
        NOW,
      ).send,
    ).toBe(true);
  });

  it('a young send of the same operation is a replay: the verdict names the earlier send', () => {
    const first = succeeded(2 * H);
    expect(sendVerdict([first], target, NOW)).toMatchObject({
      send: true,
      earlier: { id: first.id },
      earlierUnknown: false,
    });
  });

  it('a clock gone back more than 5 minutes behind the journal: the age cannot be told, so not sent', () => {
    expect(sendVerdict([succeeded(-10 * 60_000)], target, NOW).send).toBe(false);
    expect(sendVerdict([succeeded(-60_000)], target, NOW).send).toBe(true);
  });

  it('--batch: a resolved row is never sent again, whatever its age; an unknown young row is', () => {
    const batch = { ...target, batch: true };
    expect(sendVerdict([succeeded(60_000)], batch, NOW)).toMatchObject({
      send: false,
      report: { why: 'resolved', outcome: 'succeeded' },
    });
    expect(sendVerdict([entry(60_000, { status: 500 })], batch, NOW).send).toBe(true);
    expect(sendVerdict([succeeded(60_000)], target, NOW).send).toBe(true); // a single command replays it (the API answers)
  });
});

describe("retryDecision: the spec's retry guidance", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, random: () => 0.5 };
  const answer = (
    status: number,
    body: unknown = {},
    headers: Record<string, string> = {},
  ): AttemptFacts['outcome'] => ({ type: 'answer', status, body, headers });
  const facts = (outcome: AttemptFacts['outcome'], money = true, method = 'POST'): AttemptFacts => ({
    outcome,
    money,
    method,
    attemptIndex: 1,
    nowMs: NOW,
  });

  it('does not retry a 4xx other than 409 in_flight or 429, nor a 202', () => {
    for (const status of [400, 401, 403, 404, 422])
      expect(retryDecision(facts(answer(status)), policy).retry).toBe(false);
    expect(retryDecision(facts(answer(409, { errors: { customer: ['kyc_not_approved'] } })), policy).retry).toBe(false);
    expect(retryDecision(facts(answer(409, { errors: { idempotency: ['in_flight'] } })), policy)).toMatchObject({
      retry: true,
      ambiguous: true,
    });
    expect(retryDecision(facts(answer(202)), policy).retry).toBe(false);
  });

  it('429 and 503 wait Retry-After (not past 60 s); a 5xx on a money operation is replayed, elsewhere not', () => {
    expect(retryDecision(facts(answer(429, {}, { 'retry-after': '3' })), policy)).toMatchObject({
      retry: true,
      delayMs: 3050,
      ambiguous: false,
    });
    expect(retryDecision(facts(answer(503, {}, { 'retry-after': '61' })), policy).retry).toBe(false);
    expect(retryDecision(facts(answer(500)), policy)).toMatchObject({ retry: true, ambiguous: true, delayMs: 300 });
    expect(retryDecision(facts(answer(500), false), policy).retry).toBe(false);
  });

  it('no answer: retried when it never left, or when a key or a GET makes repeating harmless', () => {
    const refused = { type: 'transport' as const, error: { code: 'ECONNREFUSED' }, maybeSent: false };
    const dropped = { type: 'transport' as const, error: { code: 'ECONNRESET' }, maybeSent: true };
    expect(retryDecision(facts(refused, false), policy)).toMatchObject({ retry: true, ambiguous: false });
    expect(retryDecision(facts(dropped), policy)).toMatchObject({ retry: true, ambiguous: true });
    expect(retryDecision(facts(dropped, false, 'GET'), policy).retry).toBe(true);
    expect(retryDecision(facts(dropped, false, 'PATCH'), policy).retry).toBe(false);
  });
});
