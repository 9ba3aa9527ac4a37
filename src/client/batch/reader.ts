// Reading a batch file: its format (CSV or NDJSON) and its records, the header handled, in file
// order, as a stream (one chunk of the file in memory at a time). Nothing here knows what a row
// asks for (src/client/batch/planner.ts checks that).
import { extname } from 'node:path';
import { AMOUNTS, COLUMNS, REQUIRED, example, expected } from './columns.js';
import { CsvParser, MAX_RECORD_CHARS, type CsvRecord } from './csv.js';
import { ndjsonFields } from './ndjson.js';
import { spoolText, type Spool } from './spool.js';
import type { BatchFormat, BatchOperation, RawRecord, RowProblem } from './types.js';

/** `.csv` is CSV, `.ndjson`/`.jsonl` NDJSON; otherwise the first non-blank character decides (`{`: NDJSON). */
export function detectFormat(name: string | undefined, text: string): BatchFormat {
  const ext = name && name !== '-' ? extname(name).toLowerCase() : '';
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  return /^\s*\{/.test(text) ? 'ndjson' : 'csv';
}

/** The format of a spooled file: its name, else its first non-blank character. */
export async function spoolFormat(spool: Spool): Promise<BatchFormat> {
  let head = '';
  for await (const text of spoolText(spool)) {
    head += text;
    if (head.trim() !== '' || head.length > 65536) break;
  }
  return detectFormat(spool.name, head);
}

/** One item of a batch file: a record (a row), or a problem of the whole file (a bad header, a line too long). */
export type ReadItem = { record: RawRecord } | { problem: RowProblem };

const tooLong = (line: number): ReadItem => ({
  problem: {
    row: 0,
    line,
    errors: {
      file: [
        `a record longer than ${MAX_RECORD_CHARS / 1024 / 1024} MiB starts here (an unclosed quote?): the rest of the file was not read.`,
      ],
    },
  },
});

/** The records of the file, in order. A problem of the whole file ends the reading. */
export async function* readRecords(
  spool: Spool,
  operation: BatchOperation,
  format: BatchFormat,
): AsyncGenerator<ReadItem> {
  for await (const items of readRecordChunks(spool, operation, format)) yield* items;
}

/** The same, the records of each chunk of the file at once (no promise a record: a batch reads a million). */
export function readRecordChunks(
  spool: Spool,
  operation: BatchOperation,
  format: BatchFormat,
): AsyncGenerator<ReadItem[]> {
  return format === 'ndjson' ? ndjsonRecords(spool, operation) : csvRecords(spool, operation);
}

async function* ndjsonRecords(spool: Spool, operation: BatchOperation): AsyncGenerator<ReadItem[]> {
  let rest = '';
  let line = 0;
  let row = 0;
  const one = (raw: string): ReadItem | undefined => {
    line++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return undefined;
    row++;
    const parsed = ndjsonFields(text, example(operation));
    return { record: 'error' in parsed ? { row, line, error: parsed.error } : { row, line, fields: parsed.fields } };
  };
  for await (const chunk of spoolText(spool)) {
    const items: ReadItem[] = [];
    const text = rest + chunk;
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      const item = one(text.slice(start, nl));
      if (item) items.push(item);
      start = nl + 1;
    }
    rest = text.slice(start);
    if (rest.length > MAX_RECORD_CHARS) return yield [...items, tooLong(line + 1)];
    yield items;
  }
  const last = rest === '' ? undefined : one(rest);
  if (last) yield [last];
}

/** The header's problems: unknown columns, one named twice, a required one missing. */
function headerErrors(operation: BatchOperation, rec: CsvRecord, header: string[]): string[] {
  const errors: string[] = rec.error ? [rec.error] : [];
  const names = COLUMNS[operation];
  const seen = new Map<string, string>();
  for (const h of header) {
    const target = Object.hasOwn(names, h) ? names[h] : undefined;
    if (!target) errors.push(`"${h}" is not a column of this batch (expected ${expected(operation)}).`);
    else if (seen.has(target))
      errors.push(
        seen.get(target) === h
          ? `the column "${h}" is named twice: which one is meant cannot be known; name it once.`
          : `"${h}" and "${seen.get(target)}" name the same column.`,
      );
    else seen.set(target, h);
  }
  for (const need of REQUIRED[operation])
    if (![...seen.keys()].includes(need))
      errors.push(`no ${need} column (the first line must name the columns: ${expected(operation)}).`);
  return errors;
}

async function* csvRecords(spool: Spool, operation: BatchOperation): AsyncGenerator<ReadItem[]> {
  const parser = new CsvParser();
  let header: { names: string[]; line: number } | undefined;
  let row = 0;
  const item = (rec: CsvRecord): ReadItem | undefined => {
    if (!header) {
      const names = rec.cells.map((c) => c.trim().toLowerCase());
      const errors = headerErrors(operation, rec, names);
      if (errors.length) return { problem: { row: 0, line: rec.line, errors: { header: errors } } };
      header = { names, line: rec.line };
      return undefined;
    }
    row++;
    if (rec.error) return { record: { row, line: rec.line, error: rec.error } };
    if (rec.cells.length > header.names.length)
      return {
        record: {
          row,
          line: rec.line,
          error: `${rec.cells.length} fields, but the header on line ${header.line} names ${header.names.length} columns.`,
        },
      };
    const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    header.names.forEach((h, k) => {
      const v = rec.cells[k];
      // an amount is kept as written (it follows the rules of --amount); other cells are trimmed
      if (v !== undefined && v.trim() !== '') fields[h] = AMOUNTS.has(COLUMNS[operation][h]!) ? v : v.trim();
    });
    return { record: { row, line: rec.line, fields } };
  };
  for await (const chunk of spoolText(spool)) {
    const items: ReadItem[] = [];
    for (const rec of parser.push(chunk)) {
      const it = item(rec);
      if (it) items.push(it);
      if (it && 'problem' in it) return yield items;
    }
    if (parser.tooLong !== undefined) return yield [...items, tooLong(parser.tooLong)];
    yield items;
  }
  const items: ReadItem[] = [];
  for (const rec of parser.end()) {
    const it = item(rec);
    if (it) items.push(it);
  }
  if (!header)
    items.push({
      problem: {
        row: 0,
        line: 1,
        errors: { header: [`the file is empty (a CSV batch starts with a header line: ${expected(operation)}).`] },
      },
    });
  yield items;
}
