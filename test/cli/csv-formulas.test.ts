// CSV/TSV injection (issue 21 decisions, item 1): a field a spreadsheet would run as a formula
// (it begins with = + - @, a tab, CR or LF, and is not a number) gets a ' in front by default,
// counted on stderr; --raw-cells writes every field as the API sent it (RFC 4180 read back equals
// the JSON). ids and amounts are never changed, so our own CSV still feeds `--batch`. The built CLI
// against the mock on port 0, customers named by an attacker.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { runsAsFormula } from '../../src/output/delimited.js';
import { createCustomer, ctl, getCustomer, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { parseCsv } from '../helpers/rfc4180.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;

/** business_name of each customer: the ones a spreadsheet would run, and look-alikes it would not. */
const FORMULAS = [
  '=HYPERLINK("http://evil.example","x")',
  "+cmd|' /C calc'!A0",
  '-',
  '@SUM(1+1)',
  '\tTab first',
  '\rCR first',
  '-2+3',
];
const SAFE = ['-500', '+1.5', 'Plain', 'a=b', 'x-y'];

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 57, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  for (const [i, name] of [...FORMULAS, ...SAFE].entries()) {
    const c = await createCustomer(mock, { overrides: { business_name: name, email: `f${i}@example.com` } });
    await getCustomer(mock, c.id); // test mode decides KYC at the first read: approved
  }
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox; the batch (a money path) is a child process. */
const run = (args: string[]) => inProcessRunner(sb)(args, { env });

/** email -> business_name of a CSV export with those two columns. */
const byEmail = (csv: string): Map<string, string> =>
  new Map(
    parseCsv(csv)
      .slice(1)
      .map((r) => [r[0]!, r[1]!]),
  );
const nameOf = (i: number, rows: Map<string, string>): string | undefined => rows.get(`f${i}@example.com`);

describe('--output csv and tsv: formulas', () => {
  it("by default a field that would run as a formula gets a leading ', counted on stderr; numbers and other fields are exact", async () => {
    const r = await run(['customers', 'list', '--all', '--output', 'csv', '--columns', 'email,business_name']);
    expect(r.code, r.stderr).toBe(0);
    const rows = byEmail(r.stdout);
    FORMULAS.forEach((name, i) => expect(nameOf(i, rows)).toBe(`'${name}`));
    SAFE.forEach((name, i) => expect(nameOf(FORMULAS.length + i, rows)).toBe(name));
    expect(r.stderr).toContain(
      `${FORMULAS.length} fields begin with = + - @, a tab or a line break: written with a ' in front`,
    );
    expect(r.stderr).toContain('--raw-cells');
    // no cell of the file starts a formula
    for (const record of parseCsv(r.stdout))
      for (const cell of record) expect(runsAsFormula(cell), JSON.stringify(cell)).toBe(false);
  });

  it('--raw-cells: every field as the API sent it (read back it equals the JSON), nothing said on stderr', async () => {
    const r = await run([
      'customers',
      'list',
      '--all',
      '--output',
      'csv',
      '--columns',
      'email,business_name',
      '--raw-cells',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const rows = byEmail(r.stdout);
    const json = (await run(['customers', 'list', '--all', '--ndjson'])).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { email: string; business_name: string | null });
    expect(json).toHaveLength(FORMULAS.length + SAFE.length);
    for (const c of json) expect(rows.get(c.email)).toBe(c.business_name ?? '');
  });

  it('tsv is guarded the same way (a tab or CR inside is still written \\t, \\r)', async () => {
    const r = await run(['customers', 'list', '--all', '--output', 'tsv', '--columns', 'email,business_name']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toContain(`f0@example.com\t'${FORMULAS[0]}`);
    expect(lines).toContain("f4@example.com\t'\\tTab first");
    expect(lines).toContain('f7@example.com\t-500');
    const raw = await run([
      'customers',
      'list',
      '--all',
      '--output',
      'tsv',
      '--columns',
      'email,business_name',
      '--raw-cells',
    ]);
    expect(raw.stdout.trimEnd().split('\n')).toContain(`f0@example.com\t${FORMULAS[0]}`);
  });

  it('--raw-cells with JSON, NDJSON, --jq or a table is exit 2, before anything is sent', async () => {
    const before = (await ctl<Array<{ id: string }>>(mock, 'GET', '/requests?limit=1'))[0]!.id;
    for (const extra of [['--json'], ['--ndjson'], ['--jq', '.'], []]) {
      const r = await run(['customers', 'list', '--raw-cells', ...extra]);
      expect(r.code, `${extra.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout + r.stderr).toContain('--raw-cells is for --output csv or tsv');
    }
    expect((await ctl<Array<{ id: string }>>(mock, 'GET', '/requests?limit=1'))[0]!.id).toBe(before);
  });

  it('our own CSV (guarded, the default) feeds --batch: ids and amounts are never changed', async () => {
    const r = await run(['customers', 'list', '--all', '--output', 'csv', '--columns', 'id,business_name']);
    const records = parseCsv(r.stdout).slice(1);
    expect(records.some((rec) => rec[1]!.startsWith("'="))).toBe(true); // the export had guarded fields
    // a batch file made from the export: its id column as is, an amount per row
    const batch = join(sb.dir, 'from-export.csv');
    writeFileSync(batch, ['customer_id,amount_minor', ...records.map((rec) => `${rec[0]},500`)].join('\r\n') + '\r\n');
    const issued = await sb.run(['cards', 'issue', '--batch', batch, '--json'], { env });
    expect(issued.code, issued.stderr).toBe(0);
    const rows = issued.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { status: string });
    expect(rows).toHaveLength(FORMULAS.length + SAFE.length);
    expect(rows.every((row) => row.status === 'ok')).toBe(true);
  });
});
