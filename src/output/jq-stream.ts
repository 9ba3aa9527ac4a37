// `--jq`: the stdout a command gets (src/io.ts) when --jq is given. The command prints its JSON
// exactly as with --json, to this stream; the filter runs over that text and its results go to
// the real stdout. So `--jq` filters exactly the document `--json` prints, on every command,
// without touching process.stdout. One JSON document (or several) is filtered when the command
// ends, or as soon as it is whole and the command waits (the banner of `mock start`); with
// --ndjson each line is one input and results stream, a page at a time, so `--all --ndjson --jq`
// runs in constant memory.
import { Writable } from 'node:stream';
import type { OutStream } from '../io.js';
import type { JqProgram } from './jq.js';

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

export interface JqStream {
  /** what the command writes its JSON to */
  stream: OutStream;
  /** the command finished: filter what it printed and print the results (throws jq's failure as a usage error) */
  finish(): Promise<void>;
  /** the command failed: drop what it printed (the error is shown instead) */
  abandon(): void;
}

export function jqStream(program: JqProgram, target: NodeJS.WritableStream, opts: { perLine: boolean }): JqStream {
  let pending = '';
  let lines = 0;
  let done = false;

  // the text is taken once the filter ran: a path program that needs jq (`needsJq`) leaves it
  // for finish(), which starts jq and runs it again, in order
  const flushLines = (upTo: number): boolean => {
    const out = program.run(pending.slice(0, upTo));
    pending = pending.slice(upTo);
    lines = 0;
    return out === '' ? true : target.write(out);
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
    if (out !== '') target.write(out);
  };

  let failure: unknown;
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      if (done) return callback();
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      pending += text;
      if (!idleScheduled && !idleBroken) {
        idleScheduled = true;
        setImmediate(idleFlush).unref();
      }
      if (opts.perLine && failure === undefined) {
        for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lines++;
        if (lines >= LINES_PER_RUN) {
          let ok: boolean;
          try {
            ok = flushLines(pending.lastIndexOf('\n') + 1);
          } catch (err) {
            failure = err; // reported by finish(), where the command ends
            return callback();
          }
          if (!ok) return void target.once('drain', () => callback());
        }
      }
      callback();
    },
  });

  return {
    stream,
    async finish() {
      if (done) return;
      done = true;
      const needsJq = (err: unknown): boolean => (err as { needsJq?: boolean } | undefined)?.needsJq === true;
      if (failure !== undefined && !needsJq(failure)) throw failure;
      if (needsJq(failure)) await program.load?.();
      try {
        flushLines(pending.length);
      } catch (err) {
        if (!needsJq(err) || !program.load) throw err;
        await program.load();
        flushLines(pending.length);
      }
    },
    abandon() {
      done = true;
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
