// `--jq EXPR` (issue 21 item 1): jq's own language, run by jq itself compiled to WebAssembly
// (the `jq-web` package: jq 1.7's C code, no compiler or download at install). Chosen by
// measurement over pure-JavaScript ports (docs/scripting.md, "Why jq-web"): they load faster but
// get common filters wrong (`//`, `keys`, user functions, try/catch). Loaded only when --jq is
// given, so no other command pays for it.
//
// Output is gh's: strings raw, any other value as compact JSON, one per line (`jq -r -c`).
// jq's `env` and `$ENV` see an empty sandbox environment, never cardctl's (no secret reaches a filter).
// A path (`.id`, `.data[].id`) runs in JavaScript where its answer is certainly jq's
// (src/output/jq-paths.ts); everything else starts jq (src/output/jq-engine.ts).
import { usageError } from '../errors.js';

export interface JqProgram {
  /**
   * Runs the filter over every JSON value in `text` (one document, or one per line), returning
   * what to print: one result per line, each ending in a newline. Throws a usage error with
   * jq's message when the filter fails on this input.
   */
  run(text: string): string;
  /**
   * A path program (src/output/jq-paths.ts) runs without jq; where only jq can answer, `run`
   * throws an error marked `needsJq`, and after `load()` (jq started) every run is jq's.
   */
  load?(): Promise<void>;
}

/**
 * Checks the expression without running it on anything (jq given no input compiles the program
 * and stops), so a bad one is refused before any request: a usage error with jq's message. A
 * path (`.id`, `.data[].id`) is valid by its shape and runs without jq where it can.
 */
export async function compileJq(expr: string): Promise<JqProgram> {
  if (expr.trim() === '')
    throw usageError(
      '--jq needs an expression.',
      'For example --jq .id, or --jq \'.data[] | select(.status == "active") | .id\'.',
    );
  const { parsePath, runPath } = await import('./jq-paths.js');
  const steps = parsePath(expr);
  if (!steps) return (await import('./jq-engine.js')).compileWithJq(expr);
  let jq: JqProgram | undefined;
  return {
    run(text: string): string {
      if (jq) return jq.run(text);
      if (text.trim() === '') return '';
      const out = runPath(steps, text);
      if (out === undefined) throw Object.assign(new Error('--jq: this input needs jq itself'), { needsJq: true });
      return out;
    },
    async load() {
      jq ??= await (await import('./jq-engine.js')).compileWithJq(expr);
    },
  };
}
