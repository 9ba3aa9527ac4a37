// Output for people: key-value blocks and tables. Data goes to stdout, notes to stderr.
import { chalkFor, colorEnabled } from './color.js';
import { terminalSafeLine } from '../terminal-text.js';

export function displayValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-'; // a blank cell would shift `awk` columns
  // a server's control characters are escaped, and a value stays on its line (issue 22 item 5)
  return terminalSafeLine(typeof value === 'object' ? JSON.stringify(value) : String(value));
}

/** `key   value` lines, keys padded to one column; nested objects shown as compact JSON. */
export async function formatKeyValue(record: Record<string, unknown>, stream: { isTTY?: boolean }): Promise<string> {
  const bold = colorEnabled(stream) ? (await chalkFor(stream)).bold : (s: string) => s; // chalk only for colour
  const keys = Object.keys(record);
  const shown = keys.map(terminalSafeLine); // keys may come from a server too
  const width = Math.max(0, ...shown.map((k) => k.length));
  return keys.map((k, i) => `${bold(shown[i]!.padEnd(width))}  ${displayValue(record[k])}`).join('\n') + '\n';
}

export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
}

/**
 * Column widths that fit `budget` characters: the widest column gives up a character at a time,
 * down to its minimum. Returns the natural widths when they fit (or nothing can shrink).
 */
export function fitWidths(natural: readonly number[], minimum: readonly number[], budget: number): number[] {
  const w = [...natural];
  let total = w.reduce((a, b) => a + b, 0);
  while (total > budget) {
    let widest = -1;
    for (let j = 0; j < w.length; j++) if (w[j]! > minimum[j]! && (widest < 0 || w[j]! > w[widest]!)) widest = j;
    if (widest < 0) break;
    w[widest]!--;
    total--;
  }
  return w;
}

/** The terminal's width when stdout is a terminal that says it; undefined when piped. */
const terminalColumns = (stream: { isTTY?: boolean; columns?: number }): number | undefined =>
  stream.isTTY && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : undefined;

const shorten = (v: string, width: number): string =>
  v.length <= width ? v : `${v.slice(0, Math.max(0, width - 1))}…`;

/**
 * A table: boxed with cli-table3 on a colour terminal, plain space-aligned columns otherwise
 * (easy to `grep`, `awk` and `cut`). On a terminal narrower than the table, the widest columns
 * give way: wrapped inside the box, shortened with `…` in plain columns. Piped output (no
 * terminal) is never changed.
 */
export async function formatTable<T>(
  rows: readonly T[],
  columns: readonly Column<T>[],
  stream: { isTTY?: boolean; columns?: number },
): Promise<string> {
  const cells = rows.map((r) => columns.map((c) => displayValue(c.get(r))));
  const headers = columns.map((c) => terminalSafeLine(c.header)); // the mock's lists take theirs from the answer
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)));
  const termWidth = terminalColumns(stream);
  if (colorEnabled(stream)) {
    const { default: Table } = await import('cli-table3');
    const chalk = await chalkFor(stream);
    // each cell has one space of padding on both sides; n + 1 borders
    const fitted =
      termWidth === undefined
        ? undefined
        : fitWidths(
            widths.map((w) => w + 2),
            headers.map((h) => h.length + 2),
            termWidth - (columns.length + 1) - 1,
          );
    const wrap = !!fitted && fitted.some((w, i) => w < widths[i]! + 2);
    const table = new Table({
      // (cli-table3 wraps by characters, escape codes included: wrapped tables keep plain headers)
      head: headers.map((h) => (wrap ? h : chalk.bold(h))),
      style: { head: [], border: [] },
      ...(wrap ? { colWidths: fitted, wordWrap: true, wrapOnWordBoundary: false } : {}),
    });
    for (const row of cells) table.push(row);
    return table.toString() + '\n';
  }
  const fitted =
    termWidth === undefined
      ? widths
      : fitWidths(
          widths,
          headers.map((h) => h.length),
          termWidth - 2 * (columns.length - 1),
        );
  const line = (values: string[]): string =>
    values
      .map((v, i) => (i === values.length - 1 ? shorten(v, fitted[i]!) : shorten(v, fitted[i]!).padEnd(fitted[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), ...cells.map(line)].join('\n') + '\n';
}
