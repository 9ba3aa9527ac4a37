// `--jq EXPR` (issue 21 item 1): jq's own language, run by jq itself compiled to WebAssembly
// (the `jq-web` package: jq 1.7's C code, no compiler or download at install). Chosen by
// measurement over pure-JavaScript ports (docs/scripting.md, "Why jq-web"): they load faster but
// get common filters wrong (`//`, `keys`, user functions, try/catch). Loaded only when --jq is
// given, so no other command pays for it.
//
// Output is gh's: strings raw, any other value as compact JSON, one per line (`jq -r -c`).
// jq's `env` and `$ENV` see an empty sandbox environment, never cardctl's (no secret reaches a filter).
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { usageError } from '../errors.js';

interface JqWeb {
  raw(input: string, filter: string, flags?: string[]): string | undefined;
}

let engine: Promise<JqWeb> | undefined;

function loadEngine(): Promise<JqWeb> {
  if (!engine) {
    // V8 would recompile jq's hot functions with its optimizing compiler while a one-shot filter
    // runs: a quarter of the CPU of `--jq .id`, never paid back (bench/README.md, "--jq").
    // Affects WebAssembly only; set before jq's module is compiled.
    setFlagsFromString('--liftoff-only');
    // jq-web is CommonJS whose export is the promise of the instantiated module
    engine = createRequire(import.meta.url)('jq-web') as Promise<JqWeb>;
  }
  return engine;
}

/** jq's message without its "jq: error" prefixes and "compile error" trailer. */
function jqMessage(err: unknown): string {
  const e = err as { stderr?: unknown; message?: unknown };
  const text = typeof e.stderr === 'string' && e.stderr ? e.stderr : String(e.message ?? err);
  return text
    .split('\n')
    .filter((l) => l.trim() !== '' && !/^jq: \d+ compile errors?$/.test(l) && !/^Non-zero exit code/.test(l))
    .map((l) => l.replace(/^jq: error(?: \(at [^)]*\))?: /, '').trimEnd())
    .join('\n');
}

/** Runs jq once; emscripten sets process.exitCode on a failed run, which must not leak into cardctl's. */
function runJq(jq: JqWeb, input: string, filter: string, flags: string[]): string {
  const exitCode = process.exitCode;
  try {
    return jq.raw(input, filter, flags) ?? '';
  } finally {
    process.exitCode = exitCode;
  }
}

export interface JqProgram {
  /**
   * Runs the filter over every JSON value in `text` (one document, or one per line), returning
   * what to print: one result per line, each ending in a newline. Throws a usage error with
   * jq's message when the filter fails on this input.
   */
  run(text: string): string;
}

/**
 * Checks the expression without running it on anything (jq given no input compiles the program
 * and stops), so a bad one is refused before any request: a usage error with jq's message.
 */
export async function compileJq(expr: string): Promise<JqProgram> {
  if (expr.trim() === '')
    throw usageError(
      '--jq needs an expression.',
      'For example --jq .id, or --jq \'.data[] | select(.status == "active") | .id\'.',
    );
  const jq = await loadEngine();
  try {
    runJq(jq, '', expr, []); // no input: jq compiles the program and runs it on nothing
  } catch (err) {
    const message = jqMessage(err);
    throw usageError(
      `--jq: the expression does not compile:\n${message}`,
      "It is jq's language (https://jqlang.org/manual/); quote it for your shell, e.g. --jq '.data[] | .id'.",
    );
  }
  return {
    run(text: string): string {
      if (text.trim() === '') return '';
      try {
        const out = runJq(jq, text, expr, ['-r', '-c']);
        return out === '' || out.endsWith('\n') ? out : out + '\n';
      } catch (err) {
        throw usageError(
          `--jq: the expression failed on the answer: ${jqMessage(err)}`,
          'The request itself succeeded; check the expression against the shape --json prints.',
        );
      }
    },
  };
}
