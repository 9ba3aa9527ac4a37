// Files the user names are read with a size limit: a device such as /dev/zero or a huge file
// must not fill memory (issue 22, item 4).
import { closeSync, openSync, readSync } from 'node:fs';
import { type CardctlError, usageError } from '../errors.js';

export class FileTooLargeError extends Error {
  constructor(
    readonly file: string,
    readonly limit: number,
  ) {
    super(`${file} is larger than ${limit} bytes`);
  }
}

/** The file's bytes, at most `limit` of them; FileTooLargeError past it (reading stops there). */
export function readFileBounded(file: string, limit: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(Math.min(limit + 1, 1 << 20));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > limit) throw new FileTooLargeError(file, limit);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/** What a file or stdin named by a flag may hold: far above any request body, webhook payload or request dump. */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

const mib = (n: number): string => `${n / 1024 / 1024} MiB`;

/** The usage error (exit 2) for an input past its limit: the flag, the file and the limit. */
export function inputTooLarge(flag: string, source: string, limit: number = MAX_INPUT_BYTES): CardctlError {
  return usageError(
    `${flag} ${source} is larger than ${mib(limit)}: not read (cardctl reads at most ${mib(limit)} from a file or stdin).`,
    `Check that ${source === 'stdin' ? 'the right data is piped in' : 'the path names the file you mean'}: no request body, payload or request dump is that large.`,
  );
}

/**
 * A file named by a flag, read whole up to `limit` bytes (a device such as /dev/zero or a huge
 * file stops there): past it, a usage error naming the flag, the file and the limit. Other errors
 * (ENOENT, EISDIR) are thrown as they are, for the caller's own message.
 */
export function readInputFile(file: string, flag: string, limit: number = MAX_INPUT_BYTES): Buffer {
  try {
    return readFileBounded(file, limit);
  } catch (err) {
    if (err instanceof FileTooLargeError) throw inputTooLarge(flag, file, limit);
    throw err;
  }
}

/** stdin (`-`) for a flag, read to its end up to `limit` bytes; past it, the same usage error. */
export async function readInputStream(
  stream: NodeJS.ReadableStream,
  flag: string,
  limit: number = MAX_INPUT_BYTES,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8');
    size += b.length;
    if (size > limit) {
      (stream as { destroy?: () => void }).destroy?.();
      throw inputTooLarge(flag, 'stdin', limit);
    }
    chunks.push(b);
  }
  return Buffer.concat(chunks, size);
}
