// What happens when a command fails: an oclif parse error is said in cardctl's words (with the
// command's usage lines), the error is printed by the renderer (src/output/error.ts), and its exit
// code comes from the one mapping (src/cli/exit-codes.ts). No oclif import: the fast path uses it too.
import { CardctlError } from '../errors.js';
import { exitCodeFor } from './exit-codes.js';
import { explainParseError } from './usage-errors.js';
import { writeError } from '../output/error.js';
import { processIo, type Io } from '../io.js';

/** Prints `err` (text on stderr, or `{"error": ...}` on stdout with --json) and returns its exit code. */
export function renderError(err: unknown, json: boolean, commandId?: string, io: Io = processIo()): number {
  let code = exitCodeFor(err);
  if (!(err instanceof CardctlError) && code === 2 && err instanceof Error) {
    const explained = explainParseError(err.message, commandId);
    if (explained) {
      err = explained;
      code = exitCodeFor(err);
    }
  }
  writeError(io, err, {
    json,
    parseError: code === 2 && !(err instanceof CardctlError),
    commandId,
    debug: Boolean(process.env.CARDCTL_DEBUG),
  });
  return code;
}
