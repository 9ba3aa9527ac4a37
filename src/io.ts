// The streams a command writes to: made once per command (BaseCommand, for oclif and the fast
// path alike) and handed down to what it calls. Commands and the client never read
// process.stdout or process.stderr themselves (issue 30): a test, or a later in-process runner,
// gives them other streams; `--jq` gives a stdout that filters what the command prints.
// Imports nothing: cheap enough for start-up, and below every part that writes.

/** A stream a command writes to, with what it knows of its terminal. */
export type OutStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number; destroyed?: boolean };

export interface Io {
  /** data: what --json, --ndjson, --jq, tables and blocks print */
  readonly stdout: OutStream;
  /** everything else: progress, hints, banners, notes, errors as text */
  readonly stderr: OutStream;
  /**
   * where what must be seen still goes under `--quiet` (which makes `stderr` drop its lines): an
   * error, an interruption's report, a question asked at the terminal. The stderr when absent.
   */
  readonly alerts?: OutStream;
}

/** The stream an error, an interruption's report or a question goes to (src/output/notes.ts `quietIo`). */
export const alertStream = (io: Io): OutStream => io.alerts ?? io.stderr;

/** The process's own streams, read only when first written to (nothing is touched at start-up). */
export function processIo(): Io {
  return {
    get stdout() {
      return process.stdout;
    },
    get stderr() {
      return process.stderr;
    },
  };
}

/** Writes text and resolves once the stream took it (backpressure), so long outputs stream in constant memory. */
export function writeDrained(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (stream.write(text)) return Promise.resolve();
  return new Promise<void>((r) => stream.once('drain', () => r()));
}
