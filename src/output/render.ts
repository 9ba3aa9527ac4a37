// The one renderer of a command's result (issue 30): a command returns what it found, and
// BaseCommand prints it here: the JSON document with --json (which --jq filters, src/io.ts), text
// for people otherwise. A list returns its pages (`list`, src/output/list.ts: also --ndjson, csv,
// tsv), written as they are pulled; a command that runs until stopped returns a stream of items
// (src/output/stream.ts: `webhooks listen`, `mock start`, `mock requests --follow`). Only
// `--batch` writes its rows itself, through src/output/batch.ts, as they finish.
import type { Io, OutStream } from '../io.js';
import type { ListOutput } from './list.js';
import { jsonText } from './json.js';
import { writeNotes } from './notes.js';

/** What a command hands back: its one JSON document, and how people see it. */
export interface Result {
  readonly json: unknown;
  /** the text for people, given the stdout it goes to (a terminal? how wide?); none: the JSON document is the text too */
  readonly text?: (out: OutStream) => string | Promise<string>;
  /** lines for stderr after the output (what happened beside the result: a delivery started, a replay) */
  readonly notes?: readonly string[];
  /**
   * the exit code once printed, when the output is a verdict that says "no" (`webhooks verify
   * --json` on a bad signature: 3); BaseCommand applies it (see `outcome`)
   */
  readonly exitCode?: number;
  /**
   * the command failed after all: text prints the output, then this error as every error prints
   * (`request` on a 4xx shows the answer's body, then the error); with --json the error alone is
   * the one document (see `outcome`)
   */
  readonly failure?: unknown;
  /** a list (src/output/list.ts), written as its pages are pulled; `json` and `text` unused */
  readonly list?: ListOutput<any>;
}

const RESULT = Symbol.for('cardctl.result'); // BaseCommand checks it without loading this module

/** A result to return from `run()`. */
export function result(
  json: unknown,
  text?: (out: OutStream) => string | Promise<string>,
  notes?: readonly string[],
): Result {
  return { [RESULT]: true, json, text, notes } as Result;
}

/** A list (or endless stream) to return from `run()`: printed as it is pulled, `notes` after it. */
export function listResult(list: ListOutput<any>, notes?: readonly string[]): Result {
  return { [RESULT]: true, json: undefined, list, notes } as Result;
}

export function isResult(value: unknown): value is Result {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RESULT] === true;
}

export async function render(io: Io, r: Result, json: boolean): Promise<void> {
  if (r.list) {
    const { renderList } = await import('./list.js');
    await renderList(io, r.list);
  } else io.stdout.write(json || !r.text ? jsonText(r.json) : await r.text(io.stdout));
  writeNotes(io, r.notes);
}

/** A result with how the command ends: an exit code after its output, or a failure shown after it (text) or instead (--json). */
export function outcome(r: Result, end: { exitCode?: number; failure?: unknown }): Result {
  return { ...r, ...end };
}
