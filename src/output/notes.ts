// Lines a command says on stderr beside its output (a result's notes, a stream item's, a list's
// after its pages): escaped, as a note may quote an argument, a file or a server (src/terminal-text.ts).
import type { Io } from '../io.js';
import { terminalSafe } from '../terminal-text.js';

export function writeNotes(io: Io, notes: readonly string[] | undefined): void {
  for (const line of notes ?? []) io.stderr.write(terminalSafe(line) + '\n');
}
