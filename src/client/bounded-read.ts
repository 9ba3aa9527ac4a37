// Files the user names are read with a size limit: a device such as /dev/zero or a huge file
// must not fill memory (issue 22, item 4).
import { closeSync, openSync, readSync } from 'node:fs';

export class FileTooLargeError extends Error {
  constructor(readonly file: string, readonly limit: number) {
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
