// Output for people: key-value blocks and tables. Data goes to stdout, notes to stderr.
import { chalkFor, colorEnabled } from './color.js';

export function displayValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-'; // a blank cell would shift `awk` columns
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `key   value` lines, keys padded to one column; nested objects shown as compact JSON. */
export async function formatKeyValue(record: Record<string, unknown>, stream: { isTTY?: boolean } = process.stdout): Promise<string> {
  const bold = colorEnabled(stream) ? (await chalkFor(stream)).bold : (s: string) => s; // chalk only for colour
  const keys = Object.keys(record);
  const width = Math.max(0, ...keys.map((k) => k.length));
  return keys.map((k) => `${bold(k.padEnd(width))}  ${displayValue(record[k])}`).join('\n') + '\n';
}

export interface Column<T> {
  header: string;
  get: (row: T) => unknown;
}

/**
 * A table: boxed with cli-table3 on a colour terminal, plain space-aligned columns otherwise
 * (easy to `grep`, `awk` and `cut`).
 */
export async function formatTable<T>(rows: readonly T[], columns: readonly Column<T>[], stream: { isTTY?: boolean } = process.stdout): Promise<string> {
  const cells = rows.map((r) => columns.map((c) => displayValue(c.get(r))));
  if (colorEnabled(stream)) {
    const { default: Table } = await import('cli-table3');
    const chalk = await chalkFor(stream);
    const table = new Table({ head: columns.map((c) => chalk.bold(c.header)), style: { head: [], border: [] } });
    for (const row of cells) table.push(row);
    return table.toString() + '\n';
  }
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]): string => values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(columns.map((c) => c.header)), ...cells.map(line)].join('\n') + '\n';
}
