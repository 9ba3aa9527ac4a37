// The one renderer of a command's result (issue 30): a command returns what it found, and
// BaseCommand prints it here: the JSON document with --json (which --jq filters, src/io.ts), text
// for people otherwise. A list returns its pages (`list`, src/output/list.ts: also --ndjson, csv,
// tsv and `mock requests --follow`), written as they are pulled. Commands that still stream for
// themselves (batches, listeners) write through the same io object as they go and return nothing.
import type { Io } from '../io.js';
import type { LineStream, ListOutput } from './list.js';
import { jsonText } from './json.js';

/** What a command hands back: its one JSON document, and how people see it. */
export interface Result {
  readonly json: unknown;
  /** the text for people (stdout); none: the JSON document is the text too */
  readonly text?: () => string | Promise<string>;
  /** lines for stderr after the output (what happened beside the result: a delivery started, a replay) */
  readonly notes?: readonly string[];
  /** a list or an endless stream of lines (src/output/list.ts), written as its pages are pulled; `json` and `text` unused */
  readonly list?: ListOutput<any> | LineStream<any>;
}

const RESULT = Symbol.for('cardctl.result'); // BaseCommand checks it without loading this module

/** A result to return from `run()`. */
export function result(json: unknown, text?: () => string | Promise<string>, notes?: readonly string[]): Result {
  return { [RESULT]: true, json, text, notes } as Result;
}

/** A list (or endless stream) to return from `run()`: printed as it is pulled, `notes` after it. */
export function listResult(list: ListOutput<any> | LineStream<any>, notes?: readonly string[]): Result {
  return { [RESULT]: true, json: undefined, list, notes } as Result;
}

export function isResult(value: unknown): value is Result {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RESULT] === true;
}

export async function render(io: Io, r: Result, json: boolean): Promise<void> {
  if (r.list) {
    const { renderList, renderLines } = await import('./list.js');
    await (r.list.kind === 'list' ? renderList(io, r.list) : renderLines(io, r.list));
  } else io.stdout.write(json || !r.text ? jsonText(r.json) : await r.text());
  for (const line of r.notes ?? []) io.stderr.write(line + '\n');
}
