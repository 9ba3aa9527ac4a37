// Batch rows a hostile or careless file holds (issue 22 item 6), what a rerun reports from the
// journal (issue 19 item 4), and a batch killed mid-way (SIGKILL) then run again: the built CLI
// against the real mock on port 0, checked against the mock's own books (balances, wallet).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, ctl, wallet, type MockHandle, cardBalance } from '../helpers/api.js';
import { BIN, makeSandbox, ROOT, type CliResult, type Sandbox } from '../helpers/cli.js';
import { batchFiles, jsonLines } from '../helpers/batch-files.js';
import { journalRecords } from '../helpers/journal.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const children: ChildProcess[] = [];
const run = (args: string[], input?: string) => sb.run(args, { env, input });
const rows = jsonLines;
const file = batchFiles(() => sb.dir);

/** The mock's counts of everything, without the clock: equal before and after means nothing was sent that changed anything. */
async function books(): Promise<Record<string, unknown>> {
  const { clock: _clock, ...rest } = (await ctl(mock, 'GET', '/state')) as Record<string, unknown>;
  return rest;
}

const balance = (id: string): Promise<number> => cardBalance(mock, id);

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 31, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('batch rows: refused before anything is sent (exit 2, the line named)', () => {
  it('a field given twice: NDJSON {"amount":5,"amount":7} (JSON.parse would keep 7), a CSV header naming a column twice', async () => {
    const card = await activeCard(mock, { amount: 1000 });
    const before = await books();
    const twice = await run([
      'cards',
      'recharge',
      '--batch',
      file('twice.ndjson', `{"card":"${card.id}","amount":5}\n{"card":"${card.id}","amount":5,"amount":7}\n`),
    ]);
    expect(twice.code).toBe(2);
    expect(twice.stdout).toBe('');
    expect(twice.stderr).toContain('nothing was sent: 1 row of 2 is not valid');
    expect(twice.stderr).toMatch(/line 2 \(row 2\): row: the field "amount" is given twice/);
    // also under another case or spelling of the same name
    const cased = await run([
      'cards',
      'recharge',
      '--batch',
      file('cased.ndjson', `{"card":"${card.id}","amount":5,"Amount":7}\n`),
    ]);
    expect(cased.code).toBe(2);
    expect(cased.stderr).toContain('the field "Amount" is given twice (also as "amount")');
    const header = await run([
      'cards',
      'recharge',
      '--batch',
      file('twice.csv', `card,amount,amount\n${card.id},5,7\n`),
    ]);
    expect(header.code).toBe(2);
    expect(header.stderr).toMatch(/line 1 \(header\): header: the column "amount" is named twice/);
    expect(await balance(card.id)).toBe(1000);
    expect(await books()).toEqual(before);
  });

  it('amounts follow the rules of --amount in CSV and NDJSON: " 5", "5.0", 1e3, "0x10", "+5" are refused as --amount refuses them', async () => {
    const card = await activeCard(mock, { amount: 1000 });
    const before = await books();
    const values = [' 5', '5.0', '1e3', '0x10', '+5', '5_000'];
    for (const value of values)
      expect(
        (await run(['cards', 'recharge', card.id, '--amount', value])).code,
        `--amount ${JSON.stringify(value)}`,
      ).toBe(2);
    // one file per format, a row per value: every row is named (line 2 holds the first value)
    const csv = await run([
      'cards',
      'recharge',
      '--batch',
      file('amount.csv', `card,amount\n${values.map((v) => `${card.id},"${v}"`).join('\n')}\n`),
    ]);
    const strings = await run([
      'cards',
      'recharge',
      '--batch',
      file('amount.ndjson', values.map((v) => JSON.stringify({ card: card.id, amount: v })).join('\n')),
    ]);
    // number literals in NDJSON: JSON.parse reads 5.0 as 5 and 1e3 as 1000; --amount refuses both
    const literals = ['5.0', '1e3', '5E0', '-0.0'];
    const numbers = await run([
      'cards',
      'recharge',
      '--batch',
      file('literal.ndjson', literals.map((l) => `{"card":"${card.id}","amount":${l}}`).join('\n')),
    ]);
    for (const [r, list] of [
      [csv, values],
      [strings, values],
      [numbers, literals],
    ] as const) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`nothing was sent: ${list.length} rows of ${list.length} are not valid`);
      list.forEach((v, i) =>
        expect(r.stderr).toContain(
          `line ${i + (r === csv ? 2 : 1)} (row ${i + 1}): amount: ${JSON.stringify(v)} is not a whole number of minor units`,
        ),
      );
    }
    // an unquoted CSV cell keeps its spaces too
    const spaced = await run(['cards', 'recharge', '--batch', file('spaced.csv', `card,amount\n${card.id}, 5\n`)]);
    expect(spaced.code).toBe(2);
    expect(await balance(card.id)).toBe(1000);
    expect(await books()).toEqual(before);
    // what --amount takes, a batch takes: 5, "5", 05
    const ok = await run([
      'cards',
      'recharge',
      '--batch',
      file(
        'ok.ndjson',
        `{"card":"${card.id}","amount":5}\n{"card":"${card.id}","amount":"6"}\n{"card":"${card.id}","amount":"07"}\n`,
      ),
      '--json',
      '--concurrency',
      '1',
    ]); // one at a time: each row's balance follows the one before
    expect(ok.code, ok.stderr).toBe(0);
    expect(rows(ok).map((r) => r.balance_minor)).toEqual([1005, 1011, 1018]);
  });

  it('identical rows are refused unless --allow-duplicates; then each is charged and the summary says how many repeated', async () => {
    const [a, b] = await Promise.all([activeCard(mock, { amount: 1000 }), activeCard(mock, { amount: 1000 })]);
    // the same request however written: another case of the id, a string amount
    const text = `card,amount\n${a.id},50\n${b.id},50\n${a.id.toLowerCase()},50\n${a.id},"50"\n`;
    const before = await books();
    const same = file('same.csv', text);
    const refused = await run(['cards', 'recharge', '--batch', same]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('nothing was sent: 2 rows of 4 are not valid');
    expect(refused.stderr).toMatch(
      /line 4 \(row 3\): row: the same request as row 1: sent twice, it would charge twice/,
    );
    expect(refused.stderr).toMatch(/line 5 \(row 4\): row: the same request as row 1/);
    expect(refused.stderr).toContain('--allow-duplicates');
    expect(refused.stderr).toContain(`cardctl cards recharge --batch ${same} --allow-duplicates`);
    expect(await books()).toEqual(before);

    const allowed = await run(['cards', 'recharge', '--batch', same, '--allow-duplicates', '--json']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toContain('4 rows: 4 ok, 0 refused, 0 unknown.');
    expect(allowed.stderr).toContain('2 rows repeated an earlier row and were sent anyway (--allow-duplicates)');
    expect(await balance(a.id)).toBe(1150);
    expect(await balance(b.id)).toBe(1050);
    expect((await run(['cards', 'recharge', a.id, '--allow-duplicates', '--amount', '5'])).code).toBe(2); // only with --batch
  });

  it("a recharge file's hints show a recharge row, not an issue row", async () => {
    const r = await run(['cards', 'recharge', '--batch', file('array.ndjson', '[1, 2]\n')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('each line must be one JSON object, such as {"card_id": "01JD2Q...", "amount": 500}');
    expect(r.stderr).not.toContain('customer_id');
    expect(r.stderr).toContain('card_id (or card), amount');
    const issue = await run(['cards', 'issue', '--batch', file('issue-array.ndjson', '[1, 2]\n')]);
    expect(issue.stderr).toContain('{"customer_id": "01JD2Q...", "amount_minor": 5000}');
  });
});

describe('a batch rerun', () => {
  it('reports from the journal the balance each row left, with nothing sent', async () => {
    const cards = await Promise.all([1, 2, 3].map(() => activeCard(mock, { amount: 1000 })));
    const path = file('topup.csv', `card_id,amount\n${cards.map((c, i) => `${c.id},${10 * (i + 1)}`).join('\n')}\n`);
    const first = await run(['cards', 'recharge', '--batch', path, '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(rows(first).map((r) => r.balance_minor)).toEqual([1010, 1020, 1030]);
    const after = await books();
    const again = await run(['cards', 'recharge', '--batch', path, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(rows(again).map((r) => [r.status, r.from_journal, r.id, r.balance_minor])).toEqual(
      cards.map((c, i) => ['ok', true, c.id, 1010 + 10 * i]),
    );
    expect(await books()).toEqual(after);
    const table = await run(['cards', 'recharge', '--batch', path]);
    expect(table.stdout.split('\n')[1]).toMatch(
      new RegExp(`^1\\s+ok\\s+200\\s+${cards[0]!.id}\\s+1010\\s+from the journal`),
    );
  });
});

describe('a batch killed mid-way (SIGKILL), then run again', () => {
  it('charges every row exactly once: rows in flight replay their keys, rows done come from the journal, the rest are sent', async () => {
    const cards = await Promise.all(Array.from({ length: 12 }, () => activeCard(mock, { amount: 1000 })));
    const path = file('killed.csv', `card,amount\n${cards.map((c, i) => `${c.id},${i + 1}`).join('\n')}\n`);
    const walletBefore = (await wallet(mock, 'test')).balance_minor;
    // every recharge takes 1.5 s at the mock: the batch is still running when it is killed
    await ctl(mock, 'POST', '/faults', { operation: 'recharge', kind: 'slow', ms: 1500, count: 12 });
    const base: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('CARDCTL_')) base[k] = v;
    const child = spawn(process.execPath, [BIN, 'cards', 'recharge', '--batch', path, '--concurrency', '2', '--json'], {
      cwd: ROOT,
      env: { ...base, ...sb.env, ...env },
    });
    children.push(child);
    child.stdin.end();
    const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const state = join(sb.stateDir, 'cardctl');
    const sent = () =>
      journalRecords(state).filter(
        (r) =>
          r.type === 'op' && String(r.path).includes('/recharge') && cards.some((c) => String(r.path).includes(c.id)),
      );
    const deadline = Date.now() + 20_000;
    while (sent().length < 4) {
      if (Date.now() > deadline) throw new Error('the batch did not get to its fourth row');
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    await exited;
    await ctl(mock, 'DELETE', '/faults').catch(() => undefined);
    const inFlight = sent().filter((op) => !journalRecords(state).some((r) => r.type === 'outcome' && r.id === op.id));
    expect(inFlight.length).toBeGreaterThan(0); // killed with a request out: its outcome is unknown

    // run the same command again until nothing is unknown (a row the mock is still answering is 409 in_flight)
    let again: CliResult | undefined;
    for (let i = 0; i < 10; i++) {
      again = await run(['cards', 'recharge', '--batch', path, '--concurrency', '2', '--json']);
      if (again.code !== 7) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(again!.code, again!.stderr).toBe(0);
    expect(rows(again!).map((r) => r.status)).toEqual(Array(12).fill('ok'));
    expect(await Promise.all(cards.map((c) => balance(c.id)))).toEqual(cards.map((_c, i) => 1000 + i + 1));
    expect(walletBefore - (await wallet(mock, 'test')).balance_minor).toBe(78); // 1 + 2 + ... + 12, once
  });
});
