// The one renderer of a command's result (issue 30): a command returns what it found, and
// BaseCommand prints it here: the JSON document with --json (which --jq filters, src/io.ts), text
// for people otherwise. Commands that stream (lists with --ndjson, --follow, batches, listeners)
// write through the same io object as they go and return nothing.
import type { Io, OutStream } from '../io.js';
import { jsonText } from './json.js';

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

export function isResult(value: unknown): value is Result {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RESULT] === true;
}

export async function render(io: Io, r: Result, json: boolean): Promise<void> {
  io.stdout.write(json || !r.text ? jsonText(r.json) : await r.text(io.stdout));
  for (const line of r.notes ?? []) io.stderr.write(line + '\n');
}

/** A result with how the command ends: an exit code after its output, or a failure shown after it (text) or instead (--json). */
export function outcome(r: Result, end: { exitCode?: number; failure?: unknown }): Result {
  return { ...r, ...end };
}
