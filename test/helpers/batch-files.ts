// What the batch tests share: the `--json` result lines of a run, and batch files written into a
// sandbox's folder under names that never collide.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CliResult } from './cli.js';

/** The `--json` lines of a batch run, parsed. */
export const jsonLines = (r: CliResult): any[] =>
  r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** A writer of batch files in `dir()` (read at each call: the sandbox is made in beforeAll), each named with a running number. */
export function batchFiles(dir: () => string): (name: string, text: string) => string {
  let fileNo = 0;
  return (name, text) => {
    const path = join(dir(), `${++fileNo}-${name}`);
    writeFileSync(path, text);
    return path;
  };
}

/**
 * The old one-file journal (`<state>/cardctl/operations.ndjson`, taken over by the next command)
 * of a `--idempotency-prefix PREFIX` batch of `rows` recharges of 1 on `card`, sent an hour ago
 * under the keys `keys` (row i: keys[i - 1]; the version before's `PREFIX-i` when absent)
 * (within 23 h: the journal's answers stand): every 7th row refused 409 `invalid_state`, every other
 * one succeeded with its own balance, 1000 + its row. The key's mode (test) is known, as it is on
 * the machine that sent them.
 */
export function writeRerunJournal(
  stateDir: string,
  o: { rows: number; prefix: string; baseUrl: string; keyId: string; card: string; keys?: readonly string[] },
): void {
  const body = Buffer.from('{"amount":1}');
  const sha = createHash('sha256').update(body).digest('hex');
  const time = new Date(Date.now() - 3_600_000).toISOString();
  const lines: string[] = [];
  for (let i = 1; i <= o.rows; i++) {
    const id = `op_${i.toString(16).padStart(12, '0')}`;
    lines.push(
      JSON.stringify({
        type: 'op',
        id,
        time,
        profile: null,
        source: 'env',
        mode: 'test',
        base_url: o.baseUrl,
        key_id: o.keyId,
        method: 'POST',
        path: `/api/v1/cards/${o.card}/recharge`,
        query: '',
        idempotency_key: o.keys?.[i - 1] ?? `${o.prefix}-${i}`,
        body_b64: body.toString('base64'),
        body_sha256: sha,
      }),
    );
    lines.push(
      JSON.stringify(
        i % 7 === 0
          ? { type: 'outcome', id, time, status: 409, outcome: 'resolved', code: 'invalid_state', resource_id: null }
          : {
              type: 'outcome',
              id,
              time,
              status: 200,
              outcome: 'resolved',
              code: null,
              resource_id: o.card,
              balance_minor: 1000 + i,
            },
      ),
    );
  }
  const state = join(stateDir, 'cardctl');
  mkdirSync(state, { recursive: true });
  writeFileSync(join(state, 'operations.ndjson'), lines.join('\n') + '\n');
  // the machine that sent them learned the key's mode from their answers (a card carries `mode`): src/client/key-mode.ts
  writeFileSync(
    join(state, 'key-modes.json'),
    JSON.stringify({ version: 1, keys: { [o.keyId]: { mode: 'test', learned_at: time, from: 'answer' } } }),
  );
}

/** The keys cardctl gives the rows of a batch file's text (the planner in-process: what the built CLI derives too). */
export async function batchKeys(
  operation: 'cards.issue' | 'cards.recharge',
  text: string,
  opts: { prefix?: string; allowDuplicates?: boolean; name?: string } = {},
): Promise<string[]> {
  const { loadBatch } = await import('../../src/client/batch.js');
  const plan = await loadBatch(operation, Buffer.from(text), opts);
  return plan.rows.map((r) => r.idempotencyKey);
}
