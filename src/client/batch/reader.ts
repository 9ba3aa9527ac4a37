// Reading a batch file: its bytes (a file, or stdin), its format (CSV or NDJSON) and its
// records, the header handled, in file order. Nothing here knows what a row asks for
// (src/client/batch/planner.ts checks that).
import { readFile, stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { usageError } from '../../errors.js';
import { COLUMNS, REQUIRED, expected } from './columns.js';
import { MAX_BATCH_BYTES, type BatchFormat, type BatchOperation, type RawRecord, type RowProblem } from './types.js';

/** The file's bytes (`-`: stdin), refused beyond `max` bytes. */
export async function readBatchSource(file: string, opts: { stdin?: NodeJS.ReadableStream; max?: number } = {}): Promise<Buffer> {
  const max = opts.max ?? MAX_BATCH_BYTES;
  const tooLarge = (what: string) =>
    usageError(`${what} is larger than ${Math.round(max / 1024 / 1024)} MB, the most a batch may hold.`, 'Split it into smaller files (each file gets its own idempotency keys) and run them one after the other.');
  if (file === '-') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of opts.stdin ?? process.stdin) {
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8');
      size += b.length;
      if (size > max) throw tooLarge('the batch on stdin');
      chunks.push(b);
    }
    return Buffer.concat(chunks);
  }
  let info;
  try {
    info = await stat(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw usageError(`cannot read the batch file ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`, 'Check the path (or pass - to read the rows from stdin).');
  }
  if (!info.isFile()) throw usageError(`the batch file ${file} is not a regular file.`, 'Pass a CSV or NDJSON file, or - to read the rows from stdin.');
  if (info.size > max) throw tooLarge(`the batch file ${file} (${(info.size / 1024 / 1024).toFixed(1)} MB)`);
  return readFile(file);
}

/** `.csv` is CSV, `.ndjson`/`.jsonl` NDJSON; otherwise the first non-blank character decides (`{`: NDJSON). */
export function detectFormat(name: string | undefined, text: string): BatchFormat {
  const ext = name && name !== '-' ? extname(name).toLowerCase() : '';
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  return /^\s*\{/.test(text) ? 'ndjson' : 'csv';
}

/** RFC 4180 CSV: quoted fields (with `""` and line breaks inside), CRLF or LF; blank lines skipped. */
export function* csvRows(text: string): Generator<{ line: number; cells: string[]; error?: string }> {
  let i = 0;
  let line = 1;
  const n = text.length;
  while (i < n) {
    const start = line;
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    let error: string | undefined;
    let ended = false;
    while (i < n && !ended) {
      const ch = text[i]!;
      if (quoted) {
        if (ch === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
          } else {
            quoted = false;
            i++;
          }
        } else {
          if (ch === '\n') line++;
          cell += ch;
          i++;
        }
        continue;
      }
      if (ch === '"' && cell.trim() === '') {
        quoted = true;
        cell = '';
        i++;
      } else if (ch === ',') {
        cells.push(cell.trim());
        cell = '';
        i++;
      } else if (ch === '\r' || ch === '\n') {
        i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
        line++;
        ended = true;
      } else {
        cell += ch;
        i++;
      }
    }
    if (quoted) error = 'a quoted field is not closed before the end of the file.';
    cells.push(cell.trim());
    if (cells.length === 1 && cells[0] === '' && !error) continue; // a blank line
    yield { line: start, cells, error };
  }
}

/** The records of a batch file, header handled, in file order. `problems` are file-level (a bad header). */
export function parseRecords(operation: BatchOperation, text: string, format: BatchFormat): { records: RawRecord[]; problems: RowProblem[] } {
  const records: RawRecord[] = [];
  const problems: RowProblem[] = [];
  if (format === 'ndjson') {
    const lines = text.split('\n');
    let row = 0;
    lines.forEach((raw, index) => {
      const textLine = raw.replace(/\r$/, '');
      if (textLine.trim() === '') return;
      row++;
      const line = index + 1;
      let value: unknown;
      try {
        value = JSON.parse(textLine);
      } catch (err) {
        records.push({ row, line, error: `not valid JSON (${(err as Error).message}).` });
        return;
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) {
        records.push({ row, line, error: 'each line must be one JSON object, such as {"customer_id": "...", "amount_minor": 5000}.' });
        return;
      }
      const fields: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) fields[k.trim().toLowerCase()] = v;
      records.push({ row, line, fields });
    });
    return { records, problems };
  }

  let header: string[] | undefined;
  let headerLine = 1;
  let row = 0;
  for (const rec of csvRows(text)) {
    if (!header) {
      headerLine = rec.line;
      header = rec.cells.map((c) => c.toLowerCase());
      const errors: string[] = [];
      if (rec.error) errors.push(rec.error);
      const names = COLUMNS[operation];
      const seen = new Map<string, string>();
      for (const h of header) {
        const target = names[h];
        if (!target) errors.push(`"${h}" is not a column of this batch (expected ${expected(operation)}).`);
        else if (seen.has(target)) errors.push(`"${h}" and "${seen.get(target)}" name the same column.`);
        else seen.set(target, h);
      }
      for (const need of REQUIRED[operation]) if (![...seen.keys()].includes(need)) errors.push(`no ${need} column (the first line must name the columns: ${expected(operation)}).`);
      if (errors.length) {
        problems.push({ row: 0, line: rec.line, errors: { header: errors } });
        return { records, problems };
      }
      continue;
    }
    row++;
    if (rec.error) {
      records.push({ row, line: rec.line, error: rec.error });
      continue;
    }
    if (rec.cells.length > header.length) {
      records.push({ row, line: rec.line, error: `${rec.cells.length} fields, but the header on line ${headerLine} names ${header.length} columns.` });
      continue;
    }
    const fields: Record<string, unknown> = {};
    header.forEach((h, k) => {
      const v = rec.cells[k];
      if (v !== undefined && v !== '') fields[h] = v;
    });
    records.push({ row, line: rec.line, fields });
  }
  if (!header) problems.push({ row: 0, line: 1, errors: { header: [`the file is empty (a CSV batch starts with a header line: ${expected(operation)}).`] } });
  return { records, problems };
}
