// A batch row's key comes from what the row asks and its occurrence among identical rows, not from
// the file (issue 28): the built CLI against the real mock on port 0, checked as a user would, by
// the cards' balances. An edited file charges only its new rows; a file run by the version before
// (keys `batch-<file hash>-ROW`, `P-ROW`) charges nothing on a rerun; rows repeating recent
// successes under other keys are held back before the first row; input cut short is not sent.
import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsKeyPrefix } from '../../src/client/batch.js';
import { startMock } from '../../src/mock/index.js';
import { activeCard, type MockHandle, cardBalance, apiRequestsDuring } from '../helpers/api.js';
import { BIN, makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';
import { batchFiles, jsonLines } from '../helpers/batch-files.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const run = (args: string[], input?: string | Buffer) => sb.run(args, { env, input });
const file = batchFiles(() => sb.dir);

const balance = (id: string): Promise<number> => cardBalance(mock, id);

const sentDuring = (f: () => Promise<unknown>): Promise<number> => apiRequestsDuring(mock, f);

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 28, providerLatencyMs: 0 })) as unknown as MockHandle;
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

const recharge = (path: string, ...more: string[]) => run(['cards', 'recharge', '--batch', path, '--json', ...more]);
/** Without --json: a refusal is said on stderr, as a person reads it. */
const rechargeText = (path: string, ...more: string[]) => run(['cards', 'recharge', '--batch', path, ...more]);

describe('batch keys that survive edits', () => {
  it('a 5-row file run, then edited every way (a row added, reordered, CRLF, columns swapped, as NDJSON, a row removed): only the added row is charged', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const amounts = [1, 2, 3, 4, 7];
    const csv = (list: number[], nl = '\n') => `card_id,amount${nl}${list.map((a) => `${card},${a}`).join(nl)}${nl}`;
    const first = await recharge(file('five.csv', csv(amounts)));
    expect(first.code, first.stderr).toBe(0);
    expect(await balance(card)).toBe(1017);

    const six = await recharge(file('six.csv', csv([...amounts, 65])));
    expect(six.code, six.stderr).toBe(0);
    expect(await balance(card)).toBe(1082); // 17 + 65, not 17 + 82
    expect(jsonLines(six).map((r) => r.from_journal)).toEqual([true, true, true, true, true, false]);
    expect(six.stderr).toContain(
      '5 rows already done: answered from the journal, not sent again. To send them again on purpose',
    );
    expect(six.stderr).toContain('new --idempotency-prefix');
    const keys = new Map(jsonLines(six).map((r) => [r.row, r.idempotency_key]));
    for (const k of keys.values()) expect(k).toMatch(/^batch-[0-9a-f]{16}-1$/);

    const edits: Array<[string, string]> = [
      ['reordered.csv', csv([65, 7, 3, 1, 4, 2])],
      ['crlf.csv', csv([...amounts, 65], '\r\n')],
      ['columns.csv', `amount,card\n${[...amounts, 65].map((a) => `${a},${card.toLowerCase()}`).join('\n')}\n`],
      [
        'rows.ndjson',
        [...amounts, 65].map((a) => JSON.stringify({ amount: String(a), card_id: card })).join('\n') + '\n',
      ],
      ['removed.csv', csv([1, 3, 4, 7, 65])],
    ];
    for (const [name, text] of edits) {
      let r!: CliResult;
      const sent = await sentDuring(async () => (r = await recharge(file(name, text))));
      expect(r.code, `${name}: ${r.stderr}`).toBe(0);
      expect(sent, name).toBe(0);
      for (const row of jsonLines(r)) expect(row.from_journal, name).toBe(true);
    }
    // every row keeps its key whatever the file around it
    const reordered = jsonLines(await recharge(file('again.csv', csv([65, 7, 3, 1, 4, 2]))));
    expect(reordered.map((r) => r.idempotency_key)).toEqual([6, 5, 3, 1, 4, 2].map((row) => keys.get(row)));
    expect(await balance(card)).toBe(1082);
  });

  it("20 rows run, then one added (a new user's edit): the wallet goes down by the new row only", async () => {
    const cards = await Promise.all(Array.from({ length: 4 }, () => activeCard(mock, { amount: 1000 })));
    const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => `${cards[i % 4]!.id},${250 + Math.floor(i / 4)}`);
    expect((await recharge(file('twenty.csv', `card,amount\n${rowsOf(20).join('\n')}\n`))).code).toBe(0);
    const before = await Promise.all(cards.map((c) => balance(c.id)));
    const added = `${cards[0]!.id},250`; // the same as row 1: a second top-up of that card, meant
    const r = await recharge(
      file('twenty-one.csv', `card,amount\n${[added, ...rowsOf(20)].join('\n')}\n`),
      '--allow-duplicates',
    );
    expect(r.code, r.stderr).toBe(0);
    const after = await Promise.all(cards.map((c) => balance(c.id)));
    expect(after.map((b, i) => b - before[i]!)).toEqual([250, 0, 0, 0]);
    expect(
      jsonLines(r)
        .filter((x) => !x.from_journal)
        .map((x) => x.idempotency_key),
    ).toEqual([expect.stringMatching(/^batch-[0-9a-f]{16}-2$/)]);
  });

  it('identical rows (--allow-duplicates) are told apart by their occurrence: a third one added is the only one charged', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const two = `card,amount\n${card},5\n${card},5\n`;
    expect((await recharge(file('two.csv', two), '--allow-duplicates')).code).toBe(0);
    expect(await balance(card)).toBe(1010);
    const r = await recharge(file('three.csv', `${two}${card},5\n`), '--allow-duplicates');
    expect(r.code, r.stderr).toBe(0);
    expect(jsonLines(r).map((x) => [x.from_journal, x.idempotency_key.replace(/[0-9a-f]{16}/, 'D')])).toEqual([
      [true, 'batch-D-1'],
      [true, 'batch-D-2'],
      [false, 'batch-D-3'],
    ]);
    expect(await balance(card)).toBe(1015);
  });
});

describe('a file run by the version before (keys batch-<file hash>-ROW, P-ROW)', () => {
  /** Sends each row as the version before's batch did: its key, its body, journaled by cardctl. */
  async function sendAsBefore(card: string, amounts: number[], key: (row: number) => string): Promise<void> {
    for (const [i, amount] of amounts.entries()) {
      const r = await run([
        'cards',
        'recharge',
        card,
        '--amount',
        String(amount),
        '--idempotency-key',
        key(i + 1),
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
    }
  }

  it('rerun unedited after the upgrade: nothing is sent, each row answered under its old key', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const amounts = [3, 5, 8];
    const legacy = rowsKeyPrefix(
      'cards.recharge',
      amounts.map((a) => ({ params: { card }, json: { amount: a } })),
    );
    await sendAsBefore(card, amounts, (row) => `${legacy}-${row}`);
    expect(await balance(card)).toBe(1016);
    let r!: CliResult;
    const sent = await sentDuring(
      async () =>
        (r = await recharge(file('old.csv', `card_id,amount\n${amounts.map((a) => `${card},${a}`).join('\n')}\n`))),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    expect(jsonLines(r).map((x) => [x.from_journal, x.idempotency_key])).toEqual(
      amounts.map((_, i) => [true, `${legacy}-${i + 1}`]),
    );
    expect(r.stderr).toContain(
      '3 rows already done: answered from the journal, not sent again. To send them again on purpose',
    );
    expect(await balance(card)).toBe(1016);
  });

  it('with --idempotency-prefix P (keys P-ROW): rerun after the upgrade sends nothing', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const prefix = `march-${Date.now()}`;
    await sendAsBefore(card, [4, 6], (row) => `${prefix}-${row}`);
    let r!: CliResult;
    const sent = await sentDuring(
      async () =>
        (r = await recharge(file('old-p.csv', `card,amount\n${card},4\n${card},6\n`), '--idempotency-prefix', prefix)),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    expect(jsonLines(r).map((x) => x.idempotency_key)).toEqual([`${prefix}-1`, `${prefix}-2`]);
    expect(r.stderr).toContain('2 rows already done: answered from the journal, not sent again.');
    expect(await balance(card)).toBe(1010);
  });

  it('edited after the upgrade (its file hash changed): held back as repeats, listing them, nothing sent', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const amounts = [11, 12];
    const legacy = rowsKeyPrefix(
      'cards.recharge',
      amounts.map((a) => ({ params: { card }, json: { amount: a } })),
    );
    await sendAsBefore(card, amounts, (row) => `${legacy}-${row}`);
    let r!: CliResult;
    const sent = await sentDuring(
      async () => (r = await rechargeText(file('old-edited.csv', `card,amount\n${card},11\n${card},12\n${card},13\n`))),
    );
    expect(r.code).toBe(2);
    expect(sent).toBe(0);
    expect(r.stderr).toContain(
      'nothing was sent: 2 rows of 3 repeat a success of the last 24 hours under another idempotency key',
    );
    expect(r.stderr).toContain(`line 2 (row 1): POST /cards/${card}/recharge {"amount":11} succeeded at `);
    expect(r.stderr).toContain(`under key ${legacy}-1 (op_`);
    expect(r.stderr).toContain('--allow-repeat');
    expect(await balance(card)).toBe(1023);
  });
});

describe('rows repeating recent successes under other keys', () => {
  it('the same rows under a new --idempotency-prefix are held back before the first row; --allow-repeat sends them', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const path = file('monthly.csv', `card,amount\n${card},40\n${card},2\n`);
    expect((await recharge(path)).code).toBe(0);
    expect(await balance(card)).toBe(1042);

    let held!: CliResult;
    const sent = await sentDuring(async () => (held = await rechargeText(path, '--idempotency-prefix', 'april')));
    expect(held.code).toBe(2);
    expect(sent).toBe(0);
    expect(held.stdout).toBe('');
    expect(held.stderr).toContain(
      'nothing was sent: 2 rows of 2 repeat a success of the last 24 hours under another idempotency key',
    );
    expect(held.stderr).toMatch(
      /line 3 \(row 2\): POST \/cards\/\w+\/recharge \{"amount":2\} succeeded at \S+ under key batch-[0-9a-f]{16}-1 \(op_\w+\)/,
    );
    expect(held.stderr).toContain(
      `run \`cardctl cards recharge --batch ${path} --idempotency-prefix april --allow-repeat\``,
    );
    expect(await balance(card)).toBe(1042);

    const sentAnyway = await recharge(path, '--idempotency-prefix', 'april', '--allow-repeat');
    expect(sentAnyway.code, sentAnyway.stderr).toBe(0);
    expect(jsonLines(sentAnyway).map((x) => x.idempotency_key)).toEqual([
      expect.stringMatching(/^april-[0-9a-f]{16}-1$/),
      expect.stringMatching(/^april-[0-9a-f]{16}-1$/),
    ]);
    expect(await balance(card)).toBe(1084);
  });

  it('a row repeating a single command sent a minute ago is held back; rows answered under their own keys are not repeats', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    expect((await run(['cards', 'recharge', card, '--amount', '9', '--json'])).code).toBe(0);
    const r = await rechargeText(file('after-single.csv', `card,amount\n${card},9\n`));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('1 row of 1 repeats a success of the last 24 hours');
    expect(await balance(card)).toBe(1009);
  });
});

describe('input cut short', () => {
  const cut = (card: string) => `card_id,amount\n${card},1234\n${card},5678\n`.slice(0, -3); // `head -c -3`: "...,56"

  it('on stdin: the batch is refused before its first row, naming the row and the bytes it got; nothing is charged', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const r = await run(['cards', 'recharge', '--batch', '-'], cut(card));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nothing was sent');
    expect(r.stderr).toContain(
      `line 3 (row 2): row: the input ended inside this row: its line has no line end (got ${card.length + 3} bytes: "${card},56")`,
    );
    expect(await balance(card)).toBe(1000);
  });

  it('the bytes shown are escaped for the terminal and capped: a long row of control bytes is not dumped', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const r = await run(
      ['cards', 'recharge', '--batch', '-'],
      Buffer.concat([Buffer.from(`card_id,amount\n${card},1\n`), Buffer.from('\x1b[2J\x07'), Buffer.alloc(5000, 0x41)]),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('got 5005 bytes: "\\x1b[2J\\x07AAAA');
    expect(r.stderr).toContain('" and 4941 more)');
    expect(r.stderr).not.toContain('\x1b[2J');
    expect(r.stderr).not.toContain('A'.repeat(100));
    expect(await balance(card)).toBe(1000);
  });

  it('from a FIFO whose writer stopped mid-row: refused, nothing charged; a FIFO whose rows all end is sent', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const fifo = join(sb.dir, `rows-${Date.now()}.fifo`);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const viaFifo = async (text: string): Promise<CliResult> => {
      const writer = spawn(process.execPath, [
        '-e',
        `require('fs').writeFileSync(${JSON.stringify(fifo)}, ${JSON.stringify(text)})`,
      ]);
      try {
        return await sb.run(['cards', 'recharge', '--batch', fifo], { env });
      } finally {
        writer.kill();
      }
    };
    const r = await viaFifo(cut(card));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`line 3 (row 2): row: the input ended inside this row`);
    expect(await balance(card)).toBe(1000);
    const whole = await viaFifo(`card_id,amount\n${card},1234\n${card},5678\n`);
    expect(whole.code, whole.stderr).toBe(0);
    expect(await balance(card)).toBe(1000 + 1234 + 5678);
  });

  it('a regular file whose last line has no newline is complete: sent (the same bytes on stdin are refused)', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const text = `card_id,amount\n${card},12\n${card},34`;
    const piped = await run(['cards', 'recharge', '--batch', '-'], text);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('line 3 (row 2): row: the input ended inside this row');
    const path = join(sb.dir, 'no-final-newline.csv');
    writeFileSync(path, text);
    const r = await recharge(path);
    expect(r.code, r.stderr).toBe(0);
    expect(await balance(card)).toBe(1046);
  });
});

describe('field names that are also Object.prototype names', () => {
  const NAMES = [
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'valueOf',
    'isPrototypeOf',
    'propertyIsEnumerable',
    'toLocaleString',
    '__defineGetter__',
    '__lookupSetter__',
  ];

  it('as NDJSON keys: each is an unknown field, exit 2 naming it; nothing sent', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const text = NAMES.map((n) => `{"card_id":"${card}","amount":5,${JSON.stringify(n)}:1}`).join('\n') + '\n';
    const r = await rechargeText(file('proto.ndjson', text));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).not.toContain('is not a function');
    for (const [i, n] of NAMES.entries())
      expect(r.stderr).toContain(
        `line ${i + 1} (row ${i + 1}): ${n.toLowerCase()}: "${n.toLowerCase()}" is not a field of this batch`,
      );
    expect(await balance(card)).toBe(1000);
  });

  it('as an NDJSON key given as a field\'s value holder (`{"__proto__": {...}}`) and as CSV headers: exit 2 naming it', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const nested = await rechargeText(file('nested.ndjson', `{"__proto__":{"amount":5},"card_id":"${card}"}\n`));
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain('__proto__: "__proto__" is not a field of this batch');
    for (const n of NAMES) {
      const r = await rechargeText(file('proto.csv', `card_id,amount,${n}\n${card},5,1\n`));
      expect(r.code, `${n}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`"${n.toLowerCase()}" is not a column of this batch`);
    }
    expect(await balance(card)).toBe(1000);
  });

  it('a field given under two names (card and card_id) is named as the user wrote it', async () => {
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const r = await rechargeText(file('twice.ndjson', `{"card":"${card}","card_id":"${card}","amount":5}\n`));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('card: given twice (as "card" and as "card_id", two names of one field)');
    expect(r.stderr).not.toContain('as card_id and as card_id');
  });
});
