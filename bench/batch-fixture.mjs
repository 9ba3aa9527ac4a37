// The fixtures of a batch rerun (bench/batch.mjs, bench/journal-shared.mjs): a CSV of n identical
// recharges of 1 on the bench mock's card, the keys cardctl gives its rows, and an old one-file
// journal that already holds every row resolved (taken over by the first command that opens it:
// sending a million rows would take hours at the journal's synced pace).
import { createHash } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** `info`: the bench mock (bench/serve-mock.mjs: baseUrl, keyId, cardId); `work`: where the files go. */
export function batchFixtures(info, work) {
  /** A CSV of n recharges of 1 on the bench card (identical rows: sent with --allow-duplicates). */
  function csvOf(n, name) {
    const file = join(work, name);
    const fd = openSync(file, 'w');
    writeSync(fd, 'card,amount\n');
    const line = `${info.cardId},1\n`;
    for (let i = 0; i < n; i += 10_000) writeSync(fd, line.repeat(Math.min(10_000, n - i)));
    closeSync(fd);
    return file;
  }

  /**
   * The key cardctl gives the i-th of n identical rows under `--idempotency-prefix P`
   * (`P-<row digest>-<i>`, src/client/batch/row-keys.ts): row 1's, from the built planner, then its
   * occurrence replaced.
   */
  async function keysOf(prefix) {
    const { loadBatch } = await import(join(root, 'dist', 'client', 'batch.js'));
    const plan = await loadBatch('cards.recharge', Buffer.from(`card,amount\n${info.cardId},1\n`), { prefix });
    const first = plan.rows[0].idempotencyKey;
    return (i) => `${first.slice(0, -2)}-${i}`;
  }

  /** The old journal file holding the rows of a `--idempotency-prefix P` batch of n recharges of 1 (keys `keyOf(i)`), each resolved 200. */
  function journalOf(n, keyOf, state) {
    mkdirSync(state, { recursive: true });
    const fd = openSync(join(state, 'operations.ndjson'), 'w', 0o600);
    const body = Buffer.from('{"amount":1}');
    const sha = createHash('sha256').update(body).digest('hex');
    const path = `${new URL(info.baseUrl).pathname}/cards/${info.cardId}/recharge`;
    // one operation a second up to now (a million span 12 days, in hour segments as a real journal
    // has them: all in one hour would make a 600 MB segment, which no key's rate limit allows)
    const now = Date.now();
    let lines = [];
    for (let i = 1; i <= n; i++) {
      const time = new Date(now - (n - i) * 1000).toISOString();
      const id = `op_${(Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0')}${(i & 0xffff).toString(16).padStart(4, '0')}`;
      lines.push(
        JSON.stringify({
          type: 'op',
          id,
          time,
          profile: null,
          source: 'env',
          mode: 'test',
          base_url: info.baseUrl,
          key_id: info.keyId,
          method: 'POST',
          path,
          query: '',
          idempotency_key: keyOf(i),
          body_b64: body.toString('base64'),
          body_sha256: sha,
        }),
      );
      lines.push(
        JSON.stringify({
          type: 'outcome',
          id,
          time,
          status: 200,
          outcome: 'resolved',
          code: null,
          resource_id: info.cardId,
          balance_minor: 1000 + i,
        }),
      );
      if (lines.length >= 20_000) {
        writeSync(fd, lines.join('\n') + '\n');
        lines = [];
      }
    }
    if (lines.length) writeSync(fd, lines.join('\n') + '\n');
    closeSync(fd);
  }

  return { csvOf, keysOf, journalOf };
}
