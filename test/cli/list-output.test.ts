// `--output table|json|ndjson|csv|tsv` and `--columns` on the list commands (issue 21 item 2),
// through the built CLI against the mock: CSV parsed back by an RFC 4180 reader matches the
// JSON of the same rows; --all streams every page; contradictions are exit 2 with nothing sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkColumns, delimitedLine, flatNames, valueAt } from '../../src/output/delimited.js';
import { startMock } from '../../src/mock/index.js';
import { createCustomer, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startCountingProxy, type CountingProxy } from '../helpers/counting-proxy.js';
import { parseCsv } from '../helpers/rfc4180.js';

let mock: MockHandle;
let proxy: CountingProxy;
let sb: Sandbox;
let env: Record<string, string>;
const NAMES = ['Zoë "Z", Jr', 'Line\nBreak', 'Plain'];

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 41, providerLatencyMs: 0 })) as unknown as MockHandle;
  proxy = await startCountingProxy(mock.baseUrl);
  sb = makeSandbox();
  env = {
    CARDCTL_BASE_URL: proxy.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  for (const [i, name] of NAMES.entries())
    await createCustomer(mock, { overrides: { business_name: name, email: `csv${i}@example.com` } });
});
afterAll(async () => {
  await proxy?.close();
  await mock?.close();
  sb?.cleanup();
});

/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const run = (args: string[]) => inProcessRunner(sb)(args, { env });

describe('--output and --columns', () => {
  it('csv: a header of every field, RFC 4180 quoting; read back it equals the JSON of the same page', async () => {
    const csv = await run(['customers', 'list', '--output', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const [header, ...records] = parseCsv(csv.stdout);
    const json = JSON.parse((await run(['customers', 'list', '--json'])).stdout).data as Array<Record<string, unknown>>;
    expect(header).toEqual(Object.keys(json[0]!));
    expect(records).toHaveLength(json.length);
    for (const [i, row] of json.entries())
      expect(records[i]).toEqual(header!.map((k) => (row[k] === null ? '' : String(row[k]))));
    expect(records.map((r) => r[header!.indexOf('business_name')])).toEqual(expect.arrayContaining(NAMES));
  });

  it('--columns picks and orders the columns of csv, tsv and the table; tsv escapes tabs and line breaks', async () => {
    const csv = await run(['customers', 'list', '--all', '--output', 'csv', '--columns', 'email,business_name,id']);
    const [header, ...records] = parseCsv(csv.stdout);
    expect(header).toEqual(['email', 'business_name', 'id']);
    expect(records.find((r) => r[0] === 'csv1@example.com')?.[1]).toBe('Line\nBreak');
    const tsv = await run(['customers', 'list', '--all', '--output', 'tsv', '--columns', 'email,business_name']);
    expect(tsv.code, tsv.stderr).toBe(0);
    const lines = tsv.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('email\tbusiness_name');
    expect(lines).toContain('csv1@example.com\tLine\\nBreak');
    expect(lines).toHaveLength(NAMES.length + 1);
    const table = await run(['customers', 'list', '--columns', 'email,id']);
    expect(table.stdout.split('\n')[0]).toMatch(/^email\s+id$/);
  });

  it('--all streams every page as csv (the same rows as --ndjson)', async () => {
    const csv = await run(['customers', 'list', '--all', '--per-page', '1', '--output', 'csv', '--columns', 'id']);
    const ndjson = await run(['customers', 'list', '--all', '--per-page', '1', '--output', 'ndjson']);
    expect(csv.code, csv.stderr).toBe(0);
    const ids = ndjson.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l).id);
    expect(
      parseCsv(csv.stdout)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(ids);
    expect(ids).toHaveLength(NAMES.length);
  });

  it('--output json and ndjson say --json and --ndjson the long way', async () => {
    expect((await run(['customers', 'list', '--output', 'json'])).stdout).toBe(
      (await run(['customers', 'list', '--json'])).stdout,
    );
    expect((await run(['customers', 'list', '--output', 'ndjson'])).stdout).toBe(
      (await run(['customers', 'list', '--ndjson'])).stdout,
    );
  });

  it('a --columns name that is no field (a typo) is exit 2 naming it and the fields there are, with nothing on stdout', async () => {
    for (const output of ['csv', 'tsv', 'table']) {
      const r = await run(['customers', 'list', '--all', '--output', output, '--columns', 'id,emial']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('--columns: no field is named "emial".');
      expect(r.stderr).toContain('The fields are: id, ');
      expect(r.stderr).toContain(' email, ');
    }
    const json = await run(['customers', 'list', '--output', 'csv', '--columns', 'toString,id,x.y', '--json']);
    expect(json.code).toBe(2);
  });

  it('two outputs at once, or --columns on JSON, is exit 2 and nothing is sent', async () => {
    const before = proxy.seen.length;
    for (const [args, says] of [
      [['--output', 'csv', '--json'], '--output csv and --json'],
      [['--output', 'tsv', '--jq', '.'], '--output tsv and --jq'],
      [['--output', 'table', '--ndjson'], '--output table and --ndjson'],
      [['--columns', 'id', '--ndjson'], '--columns picks the columns'],
      [['--output', 'csv', '--columns', 'id,,email'], 'has an empty name'],
    ] as const) {
      const r = await run(['customers', 'list', ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr + r.stdout).toContain(says);
    }
    expect(proxy.seen.length).toBe(before);
  });
});

describe('delimited rows (src/output/delimited.ts)', () => {
  it('flattens nested fields with dots and finds them by dotted name', () => {
    const row = { id: 'a', address: { city: 'Lagos', geo: { lat: 1 } }, tags: ['x'], empty: {}, gone: null };
    expect(flatNames(row)).toEqual(['id', 'address.city', 'address.geo.lat', 'tags', 'empty', 'gone']);
    expect(valueAt(row, 'address.geo.lat')).toBe(1);
    expect(valueAt(row, 'address.nope')).toBeUndefined();
    // a path under a null object is a field of the row (empty), a name under no field is not
    expect(() => checkColumns({ id: 'a', address: null }, ['id', 'address.city'])).not.toThrow();
    expect(() => checkColumns(row, ['id', 'address.nope', 'toString'])).toThrow(
      'no fields are named "address.nope", "toString"',
    );
    expect(delimitedLine('csv', ['a,b', 'say "hi"', 'x\ny', 'plain'])).toBe('"a,b","say ""hi""","x\ny",plain\r\n');
    expect(delimitedLine('tsv', ['a\tb', 'c\\d', 'e\r\nf'])).toBe('a\\tb\tc\\\\d\te\\r\\nf\n');
  });
});
