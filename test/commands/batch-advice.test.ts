// Advice that cannot charge twice (issue 36): while any row's outcome is unknown, no summary,
// hint or note proposes a new --idempotency-prefix or key (a new prefix gives every row a new
// key: the unknown row, if it went through, would be charged again). Past 23 h an unknown row
// says what can still settle it: look at the card, then `cardctl ops resolve`. The built CLI
// against the mock; "a day later" as test/client/money-24h.test.ts moves time.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, advance, cardBalance, fault, type MockHandle } from '../helpers/api.js';
import { jsonLines } from '../helpers/batch-files.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { rewriteJournal } from '../helpers/journal.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const run = (args: string[]) => sb.run(args, { env });
/** Advice that sends rows again under new keys, said as something to do now. */
const PROPOSES_NEW_KEYS =
  /(run the command with|use) (a new|another) --idempotency-prefix|with a NEW idempotency key\.|use a new idempotency key\./;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 39, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('a batch with an unknown row and a refused one', () => {
  it('proposes no new prefix or key; a day later the unknown row names `cards get` and `ops resolve`, with a hint, and nothing is charged twice', async () => {
    const [a, b] = [await activeCard(mock, { amount: 100 }), await activeCard(mock, { amount: 100 })];
    const path = join(sb.dir, 'advice.csv');
    // row 1: done, but answered 500 (unknown); row 2: more than the wallet holds (refused)
    writeFileSync(path, `card_id,amount\n${a.id},100\n${b.id},5000000000\n`);
    await fault(mock, 'recharge', '500_after_commit');
    const first = await run(['cards', 'recharge', '--batch', path, '--concurrency', '1', '--retries', '0', '--json']);
    expect(first.code, first.stderr).toBe(7);
    const rows = jsonLines(first);
    expect(rows.map((r) => [r.status, r.error?.code])).toEqual([
      ['unknown', null],
      ['error', 'insufficient_funds'],
    ]);
    expect(first.stdout + first.stderr).not.toMatch(PROPOSES_NEW_KEYS);
    expect(first.stderr).toContain("Do not change --idempotency-prefix while any row's outcome is unknown");
    expect(first.stderr).toContain('The outcome of row 1 is not known yet: run the same command again.');
    expect(await cardBalance(mock, a.id)).toBe(200);

    // a day later, on both sides
    const keys = rows.map((r) => r.idempotency_key as string);
    rewriteJournal(join(sb.stateDir, 'cardctl'), (rec) => {
      if (rec.type === 'op' && keys.includes(rec.idempotency_key as string))
        rec.time = new Date(Date.parse(rec.time as string) - 25 * 3_600_000).toISOString();
      return rec;
    });
    await advance(mock, 25 * 3600);

    const again = await run(['cards', 'recharge', '--batch', path, '--concurrency', '1']);
    expect(again.code, again.stderr).toBe(7);
    expect(again.stdout + again.stderr).not.toMatch(PROPOSES_NEW_KEYS);
    expect(again.stderr).not.toContain('run the same command again.');
    expect(again.stderr).toContain('The outcome of row 1 is unknown and its key was first sent over 23 h ago');
    expect(again.stderr).toContain('cardctl ops resolve ID --outcome succeeded|failed');
    // the row's own line: what to look at and how to record it
    expect(again.stdout).toMatch(
      new RegExp(`^1\\s+unknown .*cardctl cards get ${a.id}.*cardctl ops resolve op_\\w+`, 'm'),
    );
    const json = jsonLines(await run(['cards', 'recharge', '--batch', path, '--concurrency', '1', '--json']));
    expect(json[0].status).toBe('unknown');
    expect(json[0].error.hint).toContain(`cardctl cards get ${a.id}`);
    expect(await cardBalance(mock, a.id)).toBe(200);
    expect(await cardBalance(mock, b.id)).toBe(100);
  });
});
