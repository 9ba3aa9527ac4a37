// A `--batch` rerun answers from the journal, a chunk of keys a query (src/client/batch/journal-check.ts):
// the built CLI against the real mock on port 0, checked against the mock's books and its request
// log. Each case is one a shortcut could get wrong: rows that ended every way, a row whose body
// changed under the same key, a damaged key bucket, and thousands of rows across many chunks.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, ctl, type MockHandle, cardBalance, apiRequestsDuring } from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { batchFiles, jsonLines, writeRerunJournal } from '../helpers/batch-files.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const run = (args: string[], opts: { sandbox?: Sandbox; env?: Record<string, string> } = {}) =>
  (opts.sandbox ?? sb).run(args, { env: { ...env, ...opts.env } });
const rows = jsonLines;
const file = batchFiles(() => sb.dir);

const balance = (id: string): Promise<number> => cardBalance(mock, id);

const sentDuring = (f: () => Promise<unknown>): Promise<number> => apiRequestsDuring(mock, f);

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 47, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('a batch rerun answered from the journal', () => {
  it('rows that ended every way: the unknown one is replayed (charged once), the refused and the done ones come from the journal, unsent', async () => {
    const [unknown, done] = await Promise.all([1, 2].map(() => activeCard(mock, { amount: 1000 })));
    const missing = '01JD2QZZZZZZZZZZZZZZZZZZZZ'; // no such card: 404, a definitive refusal
    const path = file('every-way.csv', `card,amount\n${unknown!.id},11\n${done!.id},22\n${missing},33\n`);
    await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: '500_after_commit', count: 1 });
    const first = await run(['cards', 'recharge', '--batch', path, '--concurrency', '1', '--retries', '0', '--json']);
    expect(first.code, first.stderr).toBe(7);
    expect(rows(first).map((r) => [r.row, r.status, r.http_status])).toEqual([
      [1, 'unknown', 500],
      [2, 'ok', 200],
      [3, 'error', 404],
    ]);
    expect([await balance(unknown!.id), await balance(done!.id)]).toEqual([1011, 1022]);

    let again!: CliResult;
    const sent = await sentDuring(async () => (again = await run(['cards', 'recharge', '--batch', path, '--json'])));
    expect(again.code, again.stderr).toBe(4); // row 3 is still not found
    const [r1, r2, r3] = rows(again);
    expect(r1).toMatchObject({ row: 1, status: 'ok', from_journal: false, id: unknown!.id, balance_minor: 1011 }); // replayed by the API
    expect(r2).toMatchObject({
      row: 2,
      status: 'ok',
      from_journal: true,
      http_status: 200,
      id: done!.id,
      balance_minor: 1022,
    });
    expect(r3).toMatchObject({ row: 3, status: 'error', from_journal: true, http_status: 404 });
    expect(r3.error.message).toContain('The journal holds its outcome: refused (404');
    expect(sent).toBe(1); // only the unknown row
    expect([await balance(unknown!.id), await balance(done!.id)]).toEqual([1011, 1022]);
  });

  it("a journal holding only the batch's own keys: the unknown row replayed, the new row sent, the rest from the journal, each card charged once; a single command's send under its own key then holds the repeating row back", async () => {
    const own = makeSandbox(); // a journal of its own: no other test's sends in its last day
    try {
      const [unknown, done, added] = await Promise.all([1, 2, 3].map(() => activeCard(mock, { amount: 1000 })));
      const two = `card,amount\n${unknown!.id},22\n${done!.id},11\n`;
      await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: '500_after_commit', count: 1 });
      const first = await run(
        ['cards', 'recharge', '--batch', file('mixed-2.csv', two), '--concurrency', '1', '--retries', '0', '--json'],
        {
          sandbox: own,
        },
      );
      expect(first.code, first.stderr).toBe(7);
      expect(rows(first).map((r) => r.status)).toEqual(['unknown', 'ok']);

      const three = file('mixed-3.csv', `${two}${added!.id},33\n`);
      let again!: CliResult;
      const sent = await sentDuring(
        async () => (again = await run(['cards', 'recharge', '--batch', three, '--json'], { sandbox: own })),
      );
      expect(again.code, again.stderr).toBe(0);
      expect(rows(again).map((r) => [r.row, r.status, r.from_journal, r.balance_minor])).toEqual([
        [1, 'ok', false, 1022], // replayed under its key: the API answers the operation it already made
        [2, 'ok', true, 1011],
        [3, 'ok', false, 1033],
      ]);
      expect(sent).toBe(2);
      expect(await Promise.all([unknown, done, added].map((c) => balance(c!.id)))).toEqual([1022, 1011, 1033]);

      const single = await run(['cards', 'recharge', done!.id, '--amount', '44', '--json'], { sandbox: own });
      expect(single.code, single.stderr).toBe(0);
      const four = file('mixed-4.csv', `${two}${added!.id},33\n${done!.id},44\n`);
      let held!: CliResult;
      const none = await sentDuring(
        async () => (held = await run(['cards', 'recharge', '--batch', four], { sandbox: own })),
      );
      expect(held.code).toBe(2);
      expect(held.stderr).toContain('1 row of 4 repeats a success of the last 24 hours under another idempotency key');
      expect(held.stderr).toContain('line 5 (row 4)');
      expect(none).toBe(0);
      expect(await Promise.all([unknown, done, added].map((c) => balance(c!.id)))).toEqual([1022, 1055, 1033]);
    } finally {
      own.cleanup();
    }
  });

  it("a row edited under the same --idempotency-prefix is a new request: sent under its own key (charged once), never answered with the old row's outcome", async () => {
    const cards = await Promise.all([1, 2, 3].map(() => activeCard(mock, { amount: 1000 })));
    const prefix = `edited-${Date.now()}`;
    const text = (second: number) => `card,amount\n${cards[0]!.id},5\n${cards[1]!.id},${second}\n${cards[2]!.id},7\n`;
    const first = await run([
      'cards',
      'recharge',
      '--batch',
      file('before.csv', text(6)),
      '--idempotency-prefix',
      prefix,
      '--json',
    ]);
    expect(first.code, first.stderr).toBe(0);
    let again!: CliResult;
    const sent = await sentDuring(
      async () =>
        (again = await run([
          'cards',
          'recharge',
          '--batch',
          file('after.csv', text(600)),
          '--idempotency-prefix',
          prefix,
          '--json',
        ])),
    );
    expect(again.code, again.stderr).toBe(0);
    const [r1, r2, r3] = rows(again);
    expect([r1.from_journal, r1.balance_minor, r3.from_journal, r3.balance_minor]).toEqual([true, 1005, true, 1007]);
    expect(r2).toMatchObject({ row: 2, status: 'ok', from_journal: false, balance_minor: 1606 });
    expect(r2.idempotency_key).not.toBe(rows(first)[1].idempotency_key);
    expect(sent).toBe(1);
    expect(await Promise.all(cards.map((c) => balance(c.id)))).toEqual([1005, 1606, 1007]);
  });

  it("a damaged record in the journal's database: its row is refused and says `ops verify`; the other rows come from the journal; nothing is sent", async () => {
    const cards = await Promise.all([1, 2, 3].map(() => activeCard(mock, { amount: 1000 })));
    const prefix = `damaged-${Date.now()}`;
    const path = file('damaged.csv', `card,amount\n${cards.map((c, i) => `${c.id},${i + 1}`).join('\n')}\n`);
    const first = await run(['cards', 'recharge', '--batch', path, '--idempotency-prefix', prefix, '--json']);
    expect(first.code).toBe(0);
    const key2 = rows(first)[1].idempotency_key as string;
    // one byte of the stored record changed, as a bad sector or an editor would
    const db = new DatabaseSync(join(sb.stateDir, 'cardctl', 'journal.db'));
    db.prepare("UPDATE operations SET record = '[' || substr(record, 2) WHERE idempotency_key = ?").run(key2);
    db.close();
    let again!: CliResult;
    const sent = await sentDuring(
      async () => (again = await run(['cards', 'recharge', '--batch', path, '--idempotency-prefix', prefix, '--json'])),
    );
    const [r1, r2, r3] = rows(again);
    expect([r1.from_journal, r3.from_journal]).toEqual([true, true]);
    expect(r2).toMatchObject({ row: 2, status: 'error', error: { code: 'journal_damaged' } });
    expect(r2.error.hint).toContain('cardctl ops verify');
    expect(again.stderr).toContain('Refused here, never sent: row 2 '); // not "send it again from a new file"
    expect(sent).toBe(0);
    expect(await Promise.all(cards.map((c) => balance(c.id)))).toEqual([1001, 1002, 1003]);
  });

  it("a prefix with a quote and a backslash (escaped in the journal's JSON): every row still comes from the journal, nothing is sent", async () => {
    const cards = await Promise.all([1, 2, 3].map(() => activeCard(mock, { amount: 1000 })));
    const prefix = `q"b\\s-${Date.now()}`;
    const path = file('escaped.csv', `card,amount\n${cards.map((c, i) => `${c.id},${i + 1}`).join('\n')}\n`);
    const first = await run(['cards', 'recharge', '--batch', path, '--idempotency-prefix', prefix, '--json']);
    expect(first.code).toBe(0);
    const keys = rows(first).map((r) => r.idempotency_key as string);
    for (const k of keys) expect(k.startsWith(`${prefix}-`)).toBe(true);
    let again!: CliResult;
    const sent = await sentDuring(
      async () => (again = await run(['cards', 'recharge', '--batch', path, '--idempotency-prefix', prefix, '--json'])),
    );
    expect(again.code, again.stderr).toBe(0);
    expect(rows(again).map((r) => [r.row, r.from_journal, r.idempotency_key, r.balance_minor])).toEqual(
      cards.map((_, i) => [i + 1, true, keys[i], 1001 + i]),
    );
    expect(sent).toBe(0);
    expect(await Promise.all(cards.map((c) => balance(c.id)))).toEqual([1001, 1002, 1003]);
  });

  it('5,000 rows across three chunks, from a journal taken over from the old file, sent by the version before (keys PREFIX-ROW): each row with its own balance, nothing sent; the same again gives the same', async () => {
    const own = makeSandbox();
    try {
      const card = await activeCard(mock, { amount: 1000 });
      const n = 5000;
      const prefix = 'old-file';
      // sent an hour ago: within 23 h, so the resolved rule (rule 4) answers; every 7th row refused
      writeRerunJournal(own.stateDir, {
        rows: n,
        prefix,
        baseUrl: mock.baseUrl,
        keyId: mock.keys.test.keyId,
        card: card.id,
      });
      const path = join(own.dir, 'rows.csv');
      writeFileSync(path, 'card,amount\n' + `${card.id},1\n`.repeat(n));
      let again!: CliResult;
      const sent = await sentDuring(
        async () =>
          (again = await run(
            [
              'cards',
              'recharge',
              '--batch',
              path,
              '--allow-duplicates',
              '--idempotency-prefix',
              prefix,
              '--json',
              '--verbose',
            ],
            { sandbox: own },
          )),
      );
      expect(again.code, again.stderr.slice(-2000)).toBe(5);
      const alone = await run(
        [
          'cards',
          'recharge',
          '--batch',
          path,
          '--allow-duplicates',
          '--idempotency-prefix',
          prefix,
          '--json',
          '--verbose',
        ],
        { sandbox: own },
      );
      expect(alone.stdout).toBe(again.stdout);
      const got = rows(again);
      expect(got).toHaveLength(n);
      got.forEach((r, k) => {
        const i = k + 1;
        expect(r.row).toBe(i);
        expect(r.from_journal).toBe(true);
        if (i % 7 === 0) expect([r.status, r.http_status, r.error.code]).toEqual(['error', 409, 'invalid_state']);
        else expect([r.status, r.http_status, r.balance_minor, r.id]).toEqual(['ok', 200, 1000 + i, card.id]);
      });
      expect(sent).toBe(0);
      expect(await balance(card.id)).toBe(1000);
    } finally {
      own.cleanup();
    }
  });
});
