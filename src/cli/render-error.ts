// How an error reaches the user: on stderr for people, as `{"error": ...}` on stdout with
// --json. Returns the exit code. No oclif import: the fast path uses it too.
import { CardctlError } from '../errors.js';
import { cleanParseMessage, errorJson, exitCodeFor } from './exit-codes.js';
import { explainParseError } from './usage-errors.js';
import { terminalSafe } from '../terminal-text.js';
import { processIo, type Io } from '../io.js';

export function renderError(err: unknown, json: boolean, commandId?: string, io: Io = processIo()): number {
  const { stdout, stderr } = io;
  // oclif's parse errors (exit 2) are said in cardctl's words, with the command's usage lines
  if (!(err instanceof CardctlError) && exitCodeFor(err) === 2 && err instanceof Error) {
    const explained = explainParseError(err.message, commandId);
    if (explained) err = explained;
  }
  const code = exitCodeFor(err);
  const e = err instanceof Error ? err : new Error(String(err));
  if (json) {
    stdout.write(JSON.stringify(errorJson(err)) + '\n');
  } else if (err instanceof CardctlError) {
    stderr.write(`Error: ${terminalSafe(err.message)}\n`);
    for (const [field, messages] of Object.entries(err.errors)) {
      if (Array.isArray(messages))
        for (const m of messages) stderr.write(terminalSafe(`  ${field}: ${String(m)}`) + '\n');
    }
    if (err.hint) stderr.write(`${terminalSafe(err.hint)}\n`);
  } else if (code === 2) {
    // oclif parse errors carry a usable message; show it without a stack
    // oclif's own "See more help with --help" goes: the line below names the command
    stderr.write(
      `Error: ${terminalSafe(cleanParseMessage(e.message))}\nSee \`cardctl ${commandId ? commandId.replaceAll(':', ' ') + ' ' : ''}--help\`.\n`,
    );
  } else {
    stderr.write(`Error: ${terminalSafe(e.message)}\n`);
    if (process.env.CARDCTL_DEBUG) stderr.write(`${e.stack ?? ''}\n`);
  }
  return code;
}
