// A journal in the format older versions wrote (`operations.ndjson`: an op line and an outcome
// line per operation), for bench/journal.mjs. Written in 20,000-line chunks: 1,000,000
// operations (about 600 MB) take about 10 s. Operations spread over the last 90 days, one in
// `unknownEvery` without an outcome (unknown). With `check`, the middle of the file also holds
// the two operations of the 24-hour check (CHECK below), both two days old.
import { createHash } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * The 24-hour check's two recharges (`cards recharge CARD --amount 1 --idempotency-key KEY`),
 * first sent two days ago: one resolved (the API answered 200), one whose outcome is unknown.
 * The same command must be reported from the journal (exit 0) and refused with exit 7, each
 * without a request: the API forgot the keys after 24 hours, so a resend would be a new charge.
 */
export const CHECK = {
  resolvedKey: 'bench-two-days-resolved',
  unknownKey: 'bench-two-days-unknown',
  ageMs: 48 * 3_600_000,
  body: '{"amount":1}',
};

/** A random-looking op id for i, as cardctl's ids are (a bijection of i, so unique). */
const opId = (i) =>
  `op_${(Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0')}${(i & 0xffff).toString(16).padStart(4, '0')}`;

/** The check's op lines (and the resolved one's outcome), as the target `check` ({ baseUrl, keyId, cardId }) would have recorded them. */
function checkLines(check, n, nowMs) {
  const time = new Date(nowMs - CHECK.ageMs).toISOString();
  const body = Buffer.from(CHECK.body);
  const op = (id, key) =>
    JSON.stringify({
      type: 'op',
      id,
      time,
      profile: null,
      source: 'env',
      mode: 'test',
      base_url: check.baseUrl,
      key_id: check.keyId,
      method: 'POST',
      path: `/api/v1/cards/${check.cardId}/recharge`,
      query: '',
      idempotency_key: key,
      body_b64: body.toString('base64'),
      body_sha256: createHash('sha256').update(body).digest('hex'),
    });
  const [resolved, unknown] = [opId(n), opId(n + 1)]; // past the generated ones: ids of their own
  return [
    op(resolved, CHECK.resolvedKey),
    JSON.stringify({
      type: 'outcome',
      id: resolved,
      time,
      status: 200,
      outcome: 'resolved',
      code: null,
      resource_id: check.cardId,
      balance_minor: 1001,
    }),
    op(unknown, CHECK.unknownKey),
  ];
}

export function writeLegacyJournal(file, n, { unknownEvery = 10_000, days = 90, nowMs = Date.now(), check } = {}) {
  const fd = openSync(file, 'w', 0o600);
  const step = Math.max(1, Math.floor((days * 86_400_000) / n));
  const body = Buffer.from('{"amount_minor":100}').toString('base64');
  let lines = [];
  try {
    for (let i = 0; i < n; i++) {
      if (check && i === Math.floor(n / 2)) lines.push(...checkLines(check, n, nowMs));
      const id = opId(i);
      const time = new Date(nowMs - (n - i) * step).toISOString();
      lines.push(
        JSON.stringify({
          type: 'op',
          id,
          time,
          profile: 'bench',
          source: 'flag',
          mode: 'test',
          base_url: 'http://127.0.0.1:4010/api/v1',
          key_id: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
          method: 'POST',
          path: '/api/v1/cards/01JD2QA1B2C3D4E5F6G7H8J9KM/recharge',
          query: '',
          idempotency_key: `bench-${i}`,
          body_b64: body,
          body_sha256: 'a'.repeat(64),
        }),
      );
      if (i % unknownEvery !== 0)
        lines.push(
          JSON.stringify({
            type: 'outcome',
            id,
            time,
            status: 200,
            outcome: 'resolved',
            code: null,
            resource_id: '01JD2QA1B2C3D4E5F6G7H8J9KM',
          }),
        );
      if (lines.length >= 20_000) {
        writeSync(fd, lines.join('\n') + '\n');
        lines = [];
      }
    }
    if (lines.length) writeSync(fd, lines.join('\n') + '\n');
  } finally {
    closeSync(fd);
  }
}
