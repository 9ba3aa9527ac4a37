// `--output csv|tsv` and `--columns` of the list commands (issue 21 item 2). CSV follows RFC 4180:
// CRLF line ends, a field holding a comma, a quote, CR or LF is quoted with its quotes doubled.
// TSV has no quoting: a tab, CR, LF or backslash inside a value is written as \t, \r, \n, \\
// (as jq's @tsv does). A nested object's fields are columns of their own named with dots
// (`address.city`); null is an empty field; an array is its compact JSON. Rows are written as
// they come, waiting for the stream to drain, so `--all` streams in constant memory. A field a
// spreadsheet would run as a formula gets a ' in front unless --raw-cells (runsAsFormula).

import { usageError } from '../errors.js';

export type Delimited = 'csv' | 'tsv';
type Row = Record<string, unknown>;

const isObject = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every leaf of a row by its dotted name, in the row's order: `{a: {b: 1}}` -> `a.b`. */
export function flatNames(row: Row, prefix = ''): string[] {
  return Object.entries(row).flatMap(([k, v]) =>
    isObject(v) && Object.keys(v).length > 0 ? flatNames(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

/** The value at a dotted name: the field itself when the row has one so named, else the path (`address.city`). */
export function valueAt(row: Row, name: string): unknown {
  if (Object.hasOwn(row, name)) return row[name];
  let v: unknown = row;
  for (const part of name.split('.')) {
    if (!isObject(v) || !Object.hasOwn(v, part)) return undefined;
    v = v[part];
  }
  return v;
}

/** Whether a row has a field so named: itself, or a path whose object is null in this row (`address.city` when `address` is null). */
function hasField(row: Row, name: string): boolean {
  if (valueAt(row, name) !== undefined) return true;
  const parts = name.split('.');
  for (let i = parts.length - 1; i > 0; i--) if (valueAt(row, parts.slice(0, i).join('.')) === null) return true;
  return false;
}

/**
 * `--columns` checked against the first row: a name that is no field of it (a typo: `emial`) is a
 * usage error naming the fields there are, before anything is printed, instead of a column left
 * empty on every row.
 */
export function checkColumns(row: Row, names: readonly string[]): void {
  const unknown = names.filter((n) => !hasField(row, n));
  if (unknown.length === 0) return;
  const list = unknown.map((n) => JSON.stringify(n)).join(', ');
  throw usageError(
    `--columns: ${unknown.length === 1 ? 'no field is named' : 'no fields are named'} ${list}.`,
    `The fields are: ${flatNames(row).join(', ')}.`,
  );
}

/** A value as the text of one field, before quoting. */
export function fieldText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/**
 * A spreadsheet runs a cell that begins with = + - @, a tab or a line break as a formula
 * (`=HYPERLINK(...)`, `+cmd|' /C calc'!A0`): CSV injection (OWASP). Such a field gets a `'` in front,
 * which spreadsheets take as "text"; a number (`-500`, `+1.5`) is never changed, nor is anything
 * else, so ids, amounts, emails and times read back exactly. `--raw-cells` turns it off.
 */
const FORMULA_START = /^[=+\-@\t\r\n]/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Whether a field's text would run as a formula in a spreadsheet. */
export const runsAsFormula = (text: string): boolean => FORMULA_START.test(text) && !NUMBER.test(text);

export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function tsvField(text: string): string {
  return text.replace(/[\\\t\r\n]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\r': '\\r', '\n': '\\n' })[c]!);
}

export function delimitedLine(format: Delimited, fields: readonly string[]): string {
  return format === 'csv' ? fields.map(csvField).join(',') + '\r\n' : fields.map(tsvField).join('\t') + '\n';
}

/**
 * Writes rows as CSV or TSV: a header, then one line per row. The columns are `columns` when
 * given, else every field of the first row (nested ones flattened with dots).
 */
export function delimitedWriter(
  format: Delimited,
  columns: readonly string[] | undefined,
  out: NodeJS.WritableStream,
  options: { rawCells?: boolean } = {},
): { row(row: Row): Promise<void>; end(): Promise<void>; guarded(): number } {
  let names = columns;
  let guarded = 0;
  const cell = (text: string): string => {
    if (options.rawCells || !runsAsFormula(text)) return text;
    guarded++;
    return `'${text}`;
  };
  const line = (fields: readonly string[]): string => delimitedLine(format, fields.map(cell));
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  let headerDone = false;
  const header = async (): Promise<void> => {
    if (headerDone || !names) return;
    headerDone = true;
    await write(line(names));
  };
  return {
    async row(row) {
      if (!headerDone && names) checkColumns(row, names);
      names ??= flatNames(row);
      await header();
      await write(line(names.map((n) => fieldText(valueAt(row, n)))));
    },
    async end() {
      await header(); // no rows: still the header of the columns asked for
    },
    guarded: () => guarded,
  };
}
