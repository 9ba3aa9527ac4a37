// `--jq` on every command that prints JSON: the command prints its JSON as with --json, and
// this takes what it writes on stdout and prints the filter's results instead. One JSON
// document (or several) is filtered when the command ends; with --ndjson each line is one input
// and results stream, a page at a time, so `--all --ndjson --jq` runs in constant memory.
import type { JqProgram } from '../output/jq.js';

/** Lines of NDJSON handed to jq at once (one jq run each; the filter still runs per line). */
const LINES_PER_RUN = 200;

type Write = typeof process.stdout.write;

export interface JqCapture {
  /** the command finished: filter what it printed and print the results */
  finish(): void;
  /** the command failed: drop what it printed (the error is shown instead) */
  abandon(): void;
}

export function captureStdoutForJq(program: JqProgram, opts: { perLine: boolean }): JqCapture {
  const stdout = process.stdout;
  const original = stdout.write;
  const realWrite = (text: string): boolean => original.call(stdout, text);
  let pending = '';
  let lines = 0;
  let done = false;

  const flushLines = (upTo: number): boolean => {
    const text = pending.slice(0, upTo);
    pending = pending.slice(upTo);
    lines = 0;
    const out = program.run(text);
    return out === '' ? true : realWrite(out);
  };

  const capture = function (this: unknown, chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    pending += text;
    let ok = true;
    if (opts.perLine) {
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
      if (lines >= LINES_PER_RUN) {
        try {
          ok = flushLines(pending.lastIndexOf('\n') + 1);
        } catch (err) {
          restore();
          throw err;
        }
      }
    }
    const callback = typeof encoding === 'function' ? encoding : cb;
    if (typeof callback === 'function') process.nextTick(callback as () => void);
    return ok;
  } as Write;

  const restore = (): void => {
    if (stdout.write === capture) stdout.write = original;
  };
  stdout.write = capture;

  return {
    finish() {
      if (done) return;
      done = true;
      restore();
      flushLines(pending.length);
    },
    abandon() {
      if (done) return;
      done = true;
      restore();
      pending = '';
    },
  };
}
