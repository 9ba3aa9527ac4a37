// A journal in the format older versions wrote (`operations.ndjson`: an op line and an outcome
// line per operation), for bench/journal.mjs. Written in 20,000-line chunks: 1,000,000
// operations (about 600 MB) take about 10 s. Operations spread over the last 90 days, one in
// `unknownEvery` without an outcome (unknown).
import { closeSync, openSync, writeSync } from 'node:fs';

export function writeLegacyJournal(file, n, { unknownEvery = 10_000, days = 90, nowMs = Date.now() } = {}) {
  const fd = openSync(file, 'w', 0o600);
  const step = Math.max(1, Math.floor((days * 86_400_000) / n));
  const body = Buffer.from('{"amount_minor":100}').toString('base64');
  let lines = [];
  try {
    for (let i = 0; i < n; i++) {
      // random-looking hex, as cardctl's ids are (a bijection of i, so unique)
      const id = `op_${(Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0')}${(i & 0xffff).toString(16).padStart(4, '0')}`;
      const time = new Date(nowMs - (n - i) * step).toISOString();
      lines.push(JSON.stringify({ type: 'op', id, time, profile: 'bench', source: 'flag', mode: 'test', base_url: 'http://127.0.0.1:4010/api/v1', key_id: '01JD2Q7N8V3K4M5P6R7S8T9V0W', method: 'POST', path: '/api/v1/cards/01JD2QA1B2C3D4E5F6G7H8J9KM/recharge', query: '', idempotency_key: `bench-${i}`, body_b64: body, body_sha256: 'a'.repeat(64) }));
      if (i % unknownEvery !== 0) lines.push(JSON.stringify({ type: 'outcome', id, time, status: 200, outcome: 'resolved', code: null, resource_id: '01JD2QA1B2C3D4E5F6G7H8J9KM' }));
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
