// Which output a list command prints, from --output and its shorthands (--json, --ndjson) and
// --jq, and the columns of --columns. Contradictions are usage errors (exit 2) said before
// anything is sent.
import { usageError } from '../errors.js';
import type { ListFormat } from '../output/list.js';

export type { ListFormat };

export interface ListFormatFlags {
  json: boolean;
  ndjson: boolean;
  output?: string;
  columns?: string;
  jq?: string;
  'raw-cells'?: boolean;
}

/** The format asked for. (BaseCommand has already turned `--output json|ndjson` into json/ndjson and `--jq` into json.) */
export function listFormat(flags: ListFormatFlags): ListFormat {
  const output = flags.output as ListFormat | undefined;
  if (output === 'csv' || output === 'tsv' || output === 'table') {
    const other = flags.jq !== undefined ? '--jq' : flags.ndjson ? '--ndjson' : flags.json ? '--json' : undefined;
    if (other)
      throw usageError(
        `--output ${output} and ${other} ask for two outputs: give one.`,
        other === '--jq'
          ? '--jq prints JSON; to pick fields as CSV use --columns, e.g. --output csv --columns id,email.'
          : `--output ${output} alone, or ${other} alone.`,
      );
    return output;
  }
  if (flags.json && flags.ndjson && flags.jq === undefined)
    throw usageError('--json and --ndjson ask for two outputs: give one.');
  const format = flags.ndjson ? 'ndjson' : flags.json ? 'json' : 'table';
  if (flags['raw-cells'])
    throw usageError(
      `--raw-cells is for --output csv or tsv, not ${format === 'table' ? 'a table' : flags.jq !== undefined ? '--jq' : `--${format}`}.`,
      'JSON and NDJSON are always exact; a table shows what a terminal can print safely.',
    );
  return format;
}

/** `--columns id,email,address.city`: the names in order; only for table, csv and tsv. */
export function listColumns(flags: ListFormatFlags, format: ListFormat): string[] | undefined {
  if (flags.columns === undefined) return undefined;
  if (format === 'json' || format === 'ndjson') {
    throw usageError(
      `--columns picks the columns of a table, CSV or TSV, not of ${flags.jq !== undefined ? '--jq' : `--${format}`}.`,
      "To pick fields from JSON use --jq, e.g. --jq '.data[] | {id, email}'.",
    );
  }
  const names = flags.columns.split(',').map((s) => s.trim());
  if (names.some((n) => n === ''))
    throw usageError(
      `--columns ${JSON.stringify(flags.columns)} has an empty name.`,
      'Give field names separated by commas (a nested one with dots: a.b), e.g. --columns id,email,kyc_status',
    );
  return names;
}
