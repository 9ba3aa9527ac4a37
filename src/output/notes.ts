// Lines a command says on stderr beside its output (a result's notes, a stream item's, a list's
// after its pages): escaped, as a note may quote an argument, a file or a server (src/terminal-text.ts).
import { Writable } from 'node:stream';
import type { Io, OutStream } from '../io.js';
import { terminalSafe } from '../terminal-text.js';

export function writeNotes(io: Io, notes: readonly string[] | undefined): void {
  for (const line of notes ?? []) io.stderr.write(terminalSafe(line) + '\n');
}

/**
 * `-q, --quiet`: the streams of a command that says nothing beside its data. Every note, hint,
 * banner and progress line goes to `stderr`, so that stream drops them here, once for every
 * command; errors, an interruption's report and questions go to `alerts`, the real stderr
 * (src/io.ts). It keeps the real stderr's `isTTY`: a question is still asked at a terminal.
 */
export function quietIo(io: Io): Io {
  const real = io.alerts ?? io.stderr;
  const sink = new Writable({ write: (_chunk, _enc, done) => done() }) as OutStream;
  sink.isTTY = real.isTTY;
  if (real.columns !== undefined) sink.columns = real.columns;
  return { stdout: io.stdout, stderr: sink, alerts: real };
}
