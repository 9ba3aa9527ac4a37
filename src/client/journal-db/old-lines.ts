// The lines of the file journals older versions wrote, read once when they are taken over
// (src/client/journal-db/takeover.ts): in the folder journal, `<crc32 of the JSON, 8 hex> <JSON>`;
// in the single operations.ndjson before it, the JSON alone. Read as bytes, 4 MiB at a time: a
// line's checksum is computed on its bytes (never twice), and a line a takeover already holds is
// recognised before it is decoded (src/client/journal-db/seen-records.ts). A damaged line
// (checksum, JSON, or shape) is reported as such, never read as another record nor skipped.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';

import type { DamagedLine, RawRecord } from './records.js';

export { parseRecord } from './records.js';

export const isDamaged = (r: RawRecord | DamagedLine): r is DamagedLine => (r as DamagedLine).damaged === true;

/**
 * Calls `line` with each line of a file as bytes, `buf[start, end)` (without its newline), and a
 * last line without its newline too (a write cut short: its checksum says so). `buf` is reused
 * for the next lines: whatever is kept of a line is copied out (toString) during the call.
 */
export function eachLine(file: string, line: (buf: Buffer, start: number, end: number) => void): void {
  const fd = openSync(file, 'r');
  try {
    let buf = Buffer.allocUnsafe(Math.min(4 << 20, fstatSync(fd).size + 1)); // (a folder journal is thousands of small files)
    let kept = 0; // the bytes of a line begun in the piece before, moved to the start of buf
    for (;;) {
      if (kept === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]); // a line longer than buf (an hour of a busy key can be)
      const n = readSync(fd, buf, kept, buf.length - kept, null);
      const end = kept + n;
      let start = 0;
      for (let nl = buf.indexOf(0x0a, kept); nl !== -1 && nl < end; nl = buf.indexOf(0x0a, nl + 1)) {
        line(buf, start, nl);
        start = nl + 1;
      }
      if (n === 0) {
        if (start < end) line(buf, start, end);
        return;
      }
      buf.copy(buf, 0, start, end);
      kept = end - start;
    }
  } finally {
    closeSync(fd);
  }
}

/** Whether the bytes are only white space (a blank line between records). */
export function isBlank(buf: Buffer, start: number, end: number): boolean {
  const first = buf[start];
  if (first === 0x7b || (first !== undefined && hexValue(first) >= 0)) return false; // `{` or a checksum: every record's line
  return buf.toString('utf8', start, end).trim() === '';
}

const hexValue = (c: number): number => (c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1);

/** A folder journal's line, `<crc32, 8 lowercase hex> <JSON>`: the JSON's CRC-32 when it matches the line's, else undefined (damaged). */
export function checkedCrc(buf: Buffer, start: number, end: number): number | undefined {
  if (end - start < 9 || buf[start + 8] !== 0x20) return undefined;
  let said = 0;
  for (let i = start; i < start + 8; i++) {
    const d = hexValue(buf[i]!);
    if (d < 0) return undefined;
    said = said * 16 + d;
  }
  const crc = crc32(buf.subarray(start + 9, end));
  return crc === said ? crc : undefined;
}
