// The result of a command that runs until it is stopped (issue 30): `webhooks listen` (a line
// per delivery as it comes), `mock start` (its banner, then it serves until SIGINT/SIGTERM). The
// command returns a StreamResult once it is under way; BaseCommand hands it to renderStream,
// which writes each item as it comes: a line of text for people, or with --json its JSON value
// (one compact line each: NDJSON, which --jq filters as it goes, src/output/jq-stream.ts).
// Imports nothing heavy: the listener and the mock load it when they start.
import { type Io, writeDrained } from '../io.js';
import { writeNotes } from './notes.js';

/** One thing the command has to say, as it happens. */
export interface StreamItem {
  /** what --json prints for it: one compact line; none: nothing on stdout (an item that is only notes) */
  readonly json?: unknown;
  /** its line(s) for people, with their line end; null: nothing on stdout for people (said on stderr instead) */
  readonly text: string | null;
  /** lines for stderr right after it (a hint the first time a kind of refusal shows up) */
  readonly notes?: readonly string[];
}

/** How the stream ended: known only then. */
export interface StreamEnd {
  /** lines for stderr after the last item (a count, "stopping the mock") */
  readonly notes?: readonly string[];
  /** the process's exit code (`webhooks listen --max-events` with a delivery that did not verify: 3) */
  readonly exitCode?: number;
}

const STREAM = Symbol.for('cardctl.stream'); // BaseCommand checks it without loading this module

export interface StreamResult {
  /** the items, as they come; the iteration ends when the command stops */
  readonly items: AsyncIterable<StreamItem>;
  /** asked once the items ended */
  readonly end?: () => StreamEnd | Promise<StreamEnd>;
}

/** A streaming result to return from `run()`. */
export function streamResult(
  items: AsyncIterable<StreamItem>,
  end?: () => StreamEnd | Promise<StreamEnd>,
): StreamResult {
  return { [STREAM]: true, items, end } as StreamResult;
}

export function isStreamResult(value: unknown): value is StreamResult {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[STREAM] === true;
}

/**
 * Writes each item as it comes (waiting for stdout to take it, so a slow reader slows the
 * stream, not the memory), then the end's notes; resolves with the end's exit code.
 */
export async function renderStream(io: Io, r: StreamResult, json: boolean): Promise<number | undefined> {
  for await (const item of r.items) {
    const out = json ? (item.json === undefined ? null : JSON.stringify(item.json) + '\n') : item.text;
    if (out) await writeDrained(io.stdout, out);
    writeNotes(io, item.notes);
  }
  const end = (await r.end?.()) ?? {};
  writeNotes(io, end.notes);
  return end.exitCode;
}

/**
 * Items pushed by event handlers (a server's requests), read by renderStream in order. Nothing
 * is dropped; `close` ends the iteration once what was pushed before it has been read.
 */
export class ItemQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private closed = false;
  private wake: (() => void) | undefined;

  push(item: T): void {
    if (this.closed) return;
    this.items.push(item);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      while (this.items.length > 0) yield this.items.shift()!;
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
