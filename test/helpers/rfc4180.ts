// A strict RFC 4180 reader for the tests of CSV output (test/cli/list-output.test.ts,
// test/cli/csv-formulas.test.ts): what a spreadsheet or a strict CSV library reads.
import { expect } from 'vitest';

/** A strict RFC 4180 reader: CRLF records, quoted fields with doubled quotes. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (text[i] === '"' && text[i + 1] === '"') (field += '"'), (i += 2);
        else if (text[i] === '"') break;
        else field += text[i++];
      }
      i++;
    } else if (text[i] === ',') {
      record.push(field), (field = ''), i++;
    } else if (text.startsWith('\r\n', i)) {
      record.push(field), records.push(record), (field = ''), (record = []), (i += 2);
    } else {
      expect(text[i], 'a bare CR or LF outside quotes').not.toMatch(/[\r\n]/);
      field += text[i++];
    }
  }
  expect(field === '' && record.length === 0, 'the last record ends with CRLF').toBe(true);
  return records;
}
