// `--jq` on every command that prints JSON: the command prints its JSON as with --json, and
// this takes what it writes on stdout and prints the filter's results instead. One JSON
// document (or several) is filtered when the command ends, or as soon as it is whole and the
// command waits (a banner of `mock start`); with --ndjson each line is one input and results
// stream, a page at a time, so `--all --ndjson --jq` runs in constant memory.
import type { JqProgram } from '../output/jq.js';

/** Lines of NDJSON handed to jq at once (one jq run each; the filter still runs per line). */
const LINES_PER_RUN = 200;
/**
 * Output the command left waiting when the event loop goes idle is filtered then, not at the
 * command's end: a command that runs until Ctrl-C (`mock start --jq .base_url`, `mock requests
 * --follow --ndjson --jq ...`) printed nothing until it stopped. Writes of one turn (a page of
 * rows) still go to jq together. A whole document is tried only up to this size (a complete
 * JSON text); a bigger one is what a list prints at its end, filtered by finish().
 */
const IDLE_DOCUMENT_MAX = 64 * 1024;

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

  // a failure here leaves the text pending: finish() runs it again and reports the error as before
  let idleBroken = false;
  let idleScheduled = false;
  const idleFlush = (): void => {
    idleScheduled = false;
    if (done || idleBroken || pending === '') return;
    const upTo = opts.perLine ? pending.lastIndexOf('\n') + 1 : completeDocument(pending) ? pending.length : 0;
    if (upTo === 0) return;
    let out: string;
    try {
      out = program.run(pending.slice(0, upTo));
    } catch {
      idleBroken = true;
      return;
    }
    pending = pending.slice(upTo);
    lines = 0;
    if (out !== '') realWrite(out);
  };

  const capture = function (this: unknown, chunk: unknown, encoding?: unknown, cb?: unknown): boolean {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    pending += text;
    if (!idleScheduled && !idleBroken) {
      idleScheduled = true;
      setImmediate(idleFlush).unref();
    }
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

/** Whether the text is one or more whole JSON values ending in a newline (small texts only: IDLE_DOCUMENT_MAX). */
function completeDocument(text: string): boolean {
  if (text.length > IDLE_DOCUMENT_MAX || !text.endsWith('\n')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false; // several values, or one still being written: finish() filters them
  }
}
