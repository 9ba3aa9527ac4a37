// Streams that keep what is written to them, for running the renderer or a built command in the
// test's own process (src/io.ts): one stream, or an Io of two that also logs both in the order
// written. `terminal` is what the stream says of itself (isTTY, columns), as a terminal would.
import { Writable } from 'node:stream';

export type MemoryStream = Writable & { isTTY?: boolean; columns?: number };

export function memoryStream(
  terminal: { isTTY?: boolean; columns?: number } = {},
  onWrite?: (text: string) => void,
): { stream: MemoryStream; text: () => string } {
  const chunks: string[] = [];
  const stream = Object.assign(
    new Writable({
      decodeStrings: false,
      write(chunk: string | Buffer, _enc, cb) {
        chunks.push(String(chunk));
        onWrite?.(String(chunk));
        cb();
      },
    }),
    terminal,
  );
  return { stream, text: () => chunks.join('') };
}

/** An Io whose stdout and stderr keep what is written: each stream's text, and both in one log, in order. */
export function memoryIo(terminal: { isTTY?: boolean; columns?: number } = {}) {
  const log: Array<['out' | 'err', string]> = [];
  const out = memoryStream(terminal, (t) => log.push(['out', t]));
  const err = memoryStream({}, (t) => log.push(['err', t]));
  return { io: { stdout: out.stream, stderr: err.stream }, out: out.text, err: err.text, log };
}
