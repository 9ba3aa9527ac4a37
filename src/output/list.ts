// The one renderer of every list (issue 30): a list command returns a `ListOutput` (its pages, the
// format asked for, how people see it) instead of printing, and BaseCommand prints it here through
// render() (src/output/render.ts). Pages are pulled as they are written: with --ndjson, csv and
// tsv page 2 is asked for only once page 1 is written (waiting for the stream to drain), so
// `--all` streams in constant memory; --json collects `{data, meta}` (every row, the last page's
// meta) and a table collects its rows. A command whose pages need an open session (an API
// client) opens it inside the pages' generator, so it stays open while they are pulled and closes
// after, also when the rendering fails or stops early (the generator's `finally`).
import { writeDrained, type Io, type OutStream } from '../io.js';
import { terminalSafeLine } from '../terminal-text.js';
import { writeNotes } from './notes.js';
import { jsonText, listDocument } from './json.js';
import type { Column } from './text.js';

/** The outputs of a list: from --output and its shorthands (src/cli/list-format.ts reads the flags). */
export type ListFormat = 'table' | 'json' | 'ndjson' | 'csv' | 'tsv';

type Row = Record<string, unknown>;

/** One page of a list: the API's `{data, meta}`; a list in one piece is one page. */
export interface ListPage<T = unknown> {
  readonly data: readonly T[];
  readonly meta?: Record<string, unknown>;
}

/** How a table shows the rows: its default columns, or the whole table drawn by the command's own function. */
export type ListTable<T> =
  | ReadonlyArray<Column<T>>
  | ((rows: readonly T[], stream: OutStream) => string | Promise<string>);

export interface ListOutput<T = unknown> {
  readonly kind: 'list';
  /** pulled one at a time by the renderer, as it writes */
  readonly pages: AsyncIterable<ListPage<T>> | Iterable<ListPage<T>>;
  readonly format: ListFormat;
  /** the table (format table): default columns, or a function drawing it */
  readonly table: ListTable<T>;
  /** `--columns`: the columns of a table, CSV or TSV, by field name (dotted for a nested one) */
  readonly columns?: readonly string[];
  /** `--raw-cells`: CSV and TSV fields exactly as sent, no formula guard */
  readonly rawCells?: boolean;
  /** what JSON and NDJSON show of a row (default: the row itself) */
  readonly view?: (row: T) => unknown;
  /** the stderr line when the list is empty (table, csv, tsv); none: the table is drawn anyway */
  readonly empty?: string;
  /** the list's name in the "More customers: add --cursor X" hint after a page that has more (table, csv, tsv); none: no hint */
  readonly more?: string;
  /** stderr lines after the output, known once every page is read (ops list: how many more, damage) */
  readonly notes?: () => readonly string[];
}

export async function renderList<T>(io: Io, list: ListOutput<T>): Promise<void> {
  const { format } = list;
  const view = list.view ?? ((row: T) => row as unknown);
  const delimited =
    format === 'csv' || format === 'tsv'
      ? (await import('./delimited.js')).delimitedWriter(format, list.columns, io.stdout, { rawCells: list.rawCells })
      : undefined;
  const rows: T[] = [];
  let lastMeta: Record<string, unknown> | undefined;
  let count = 0;
  for await (const page of list.pages) {
    lastMeta = page.meta;
    count += page.data.length;
    if (format === 'ndjson')
      for (const row of page.data) await writeDrained(io.stdout, JSON.stringify(view(row)) + '\n');
    else if (delimited) for (const row of page.data) await delimited.row(row as Row);
    else rows.push(...page.data);
  }
  const notes = (): void => {
    writeNotes(io, list.notes?.());
  };
  if (format === 'ndjson') return notes();
  if (format === 'json') {
    // --all: every row, with the last page's meta (no cursor left to follow)
    io.stdout.write(jsonText(listDocument(rows.map(view), lastMeta)));
    return notes();
  }
  await delimited?.end();
  const guarded = delimited?.guarded() ?? 0;
  if (guarded > 0) io.stderr.write(formulaNote(guarded));
  if (count === 0 && list.empty !== undefined) writeNotes(io, [list.empty]);
  else if (!delimited) io.stdout.write(await table(list, rows, io.stdout));
  const next = lastMeta?.has_more === true ? lastMeta.next_cursor : undefined;
  // the cursor is the server's text: escaped like every other (src/terminal-text.ts)
  if (list.more !== undefined && typeof next === 'string')
    io.stderr.write(`More ${list.more}: add --cursor ${terminalSafeLine(next)} (or --all for every page).\n`);
  notes();
}

/** What stderr says when the formula guard changed fields (docs/output.md, "CSV, TSV and spreadsheet formulas"). */
function formulaNote(guarded: number): string {
  const one = guarded === 1;
  return `${one ? '1 field begins' : `${guarded} fields begin`} with = + - @, a tab or a line break: written with a ' in front, so a spreadsheet shows ${one ? 'it' : 'them'} instead of running ${one ? 'it' : 'them'} as a formula (--raw-cells: as sent).\n`;
}

async function table<T>(list: ListOutput<T>, rows: T[], stream: OutStream): Promise<string> {
  if (typeof list.table === 'function' && list.columns === undefined) return list.table(rows, stream);
  const { formatTable } = await import('./text.js');
  if (list.columns === undefined) return formatTable(rows, list.table as ReadonlyArray<Column<T>>, stream);
  // `--columns`: the header is the name as typed, checked against the first row (a typo is exit 2)
  const { valueAt, checkColumns } = await import('./delimited.js');
  if (rows[0]) checkColumns(rows[0] as Row, list.columns);
  return formatTable(
    rows as Row[],
    list.columns.map((name) => ({ header: name, get: (r: Row) => valueAt(r, name) })),
    stream,
  );
}
