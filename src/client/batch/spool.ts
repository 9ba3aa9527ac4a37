// A batch file's bytes, read from a private copy (once, to check every row: the rows are then
// sent as src/client/batch/checked-rows.ts kept them): a file edited while the batch runs, or rows
// on stdin, are sent exactly as they were checked. The copy is unlinked as soon as it is open (POSIX), so nothing is left behind, even
// after a SIGKILL; it is read in chunks, never whole.
import {
  closeSync,
  copyFileSync,
  createReadStream,
  createWriteStream,
  fstatSync,
  mkdtempSync,
  openSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { usageError } from '../../errors.js';

export interface Spool {
  /** what the user named: the file, or `-` */
  name: string;
  fd: number;
  close(): void;
  /** read from a pipe, a FIFO or stdin, its last line had no line end: the producer may have been cut short mid-row */
  cut?: CutShort;
  /** a regular file (or stdin redirected from one) whose last line has no line end: accepted (many exports end so), and said before the first row */
  unended?: CutShort;
}

/** The bytes of a last line with no line end: the first SHOWN_BYTES of them, and how many there were. */
export interface CutShort {
  head: Buffer;
  length: number;
}

/** Bytes of a cut-short row shown in the message (a 1 MiB row is not printed). */
const SHOWN_BYTES = 64;

/** Bytes shown on a terminal as they are only when printable ASCII; every other byte as \xNN (a quote and a backslash escaped too). */
export function escapeBytes(bytes: Buffer): string {
  let out = '';
  for (const b of bytes)
    out +=
      b === 0x22 || b === 0x5c
        ? `\\${String.fromCharCode(b)}`
        : b >= 0x20 && b < 0x7f
          ? String.fromCharCode(b)
          : `\\x${b.toString(16).padStart(2, '0')}`;
  return out;
}

/** What a row cut short is told: the bytes it got (escaped, at most SHOWN_BYTES), and what to do. */
export function cutShortMessage(cut: CutShort): string {
  const more = cut.length > cut.head.length ? ` and ${cut.length - cut.head.length} more` : '';
  return (
    `the input ended inside this row: its line has no line end (got ${cut.length} ${cut.length === 1 ? 'byte' : 'bytes'}: "${escapeBytes(cut.head)}"${more}). ` +
    'The program writing the rows may have been stopped mid-row, so this row may not be what was meant: nothing was sent. Send the whole input again, each row ending with a newline.'
  );
}

/** The note said on stderr before the first row of a regular file whose last row has no line end (accepted). */
export function unendedNote(unended: CutShort, row: number, line: number, file: string): string {
  const shown =
    unended.head.length > 0
      ? `: "${escapeBytes(unended.head)}"${unended.length > unended.head.length ? '...' : ''}`
      : '';
  return `Note: the last row of ${file === '-' ? 'stdin' : file} (row ${row}, line ${line}${shown}) has no line end. It is accepted (many exports end so), but if the file was cut short in transit that row may not be what was meant: check it before the rows are sent.`;
}

/** Passes the bytes through, noting the last line's: whether the input ended with a line end. */
class LastLine extends Transform {
  private head = Buffer.alloc(0);
  private length = 0;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void): void {
    const nl = Math.max(chunk.lastIndexOf(0x0a), chunk.lastIndexOf(0x0d));
    if (nl >= 0) {
      this.head = Buffer.from(chunk.subarray(nl + 1, nl + 1 + SHOWN_BYTES));
      this.length = chunk.length - nl - 1;
    } else {
      if (this.head.length < SHOWN_BYTES)
        this.head = Buffer.concat([this.head, chunk.subarray(0, SHOWN_BYTES - this.head.length)]);
      this.length += chunk.length;
    }
    done(null, chunk);
  }

  /** The last line, when it had no line end. */
  cut(): CutShort | undefined {
    return this.length > 0 ? { head: this.head, length: this.length } : undefined;
  }
}

/** How much of a file's end is read to find its last line (a longer last line is said by its length alone). */
const TAIL_BYTES = 1 << 16;

/** The last line of the file open on `fd` when it has no line end (read from the file's end only), else undefined. */
function unendedLastLine(fd: number): CutShort | undefined {
  const size = fstatSync(fd).size;
  if (size === 0) return undefined;
  const tail = Buffer.alloc(Math.min(size, TAIL_BYTES));
  readSync(fd, tail, 0, tail.length, size - tail.length);
  const lastByte = tail[tail.length - 1];
  if (lastByte === 0x0a || lastByte === 0x0d) return undefined;
  const nl = Math.max(tail.lastIndexOf(0x0a), tail.lastIndexOf(0x0d));
  if (nl < 0 && size > tail.length) return { head: Buffer.alloc(0), length: size }; // longer than the tail: at least this long
  const line = tail.subarray(nl + 1);
  return { head: Buffer.from(line.subarray(0, SHOWN_BYTES)), length: line.length };
}

/** Whether a descriptor is a regular file (stdin redirected from a file: complete, whatever its last byte). */
function isRegular(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/**
 * Read 16 KiB at a time: a chunk's records are alive together until the last is used; a
 * megabyte's (34,000 CSV rows) outlived young-generation collections and grew the heap by 80
 * MiB, and 64 KiB still left a million-row rerun at 145-150 MiB (16 KiB: 122 MiB, and faster).
 */
const CHUNK_BYTES = 1 << 14;

function cannotRead(file: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  return usageError(
    `cannot read the batch file ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`,
    'Check the path (or pass - to read the rows from stdin).',
  );
}

/**
 * Copies the file (`-`: stdin; a FIFO, a pipe or /dev/stdin: read as a stream) to a private,
 * already unlinked file and opens it. Read from a stream that is not a regular file, a last line
 * with no line end is noted (`cut`): the planner refuses it.
 */
export async function openSpool(file: string, opts: { stdin?: NodeJS.ReadableStream } = {}): Promise<Spool> {
  const stream = file === '-' || streamed(file);
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-batch-'));
  const copy = join(dir, 'rows');
  let fd: number | undefined;
  let cut: CutShort | undefined;
  let unended: CutShort | undefined;
  try {
    if (stream) {
      const last = new LastLine();
      const source = file === '-' ? (opts.stdin ?? process.stdin) : createReadStream(file);
      try {
        await pipeline(source, last, createWriteStream(copy, { mode: 0o600 }));
      } catch (err) {
        if (file !== '-') throw cannotRead(file, err);
        throw err;
      }
      const regular = file === '-' ? opts.stdin === undefined && isRegular(0) : false;
      if (!regular) cut = last.cut();
      else unended = last.cut();
    } else {
      try {
        copyFileSync(file, copy);
      } catch (err) {
        throw cannotRead(file, err);
      }
    }
    fd = openSync(copy, 'r');
    if (!stream) unended = unendedLastLine(fd);
  } finally {
    try {
      rmSync(dir, { recursive: true, force: true }); // open or not, the name goes now
    } catch {
      // Windows cannot remove an open file: the temporary folder is the system's to clean
    }
  }
  const opened = fd;
  return { name: file, fd: opened, close: () => closeSync(opened), cut, unended };
}

/** A named file read as a stream (a FIFO, a pipe such as /dev/stdin or `<(...)`): true; a regular file: false; anything else is refused. */
function streamed(file: string): boolean {
  let st;
  try {
    st = statSync(file);
  } catch (err) {
    throw cannotRead(file, err);
  }
  if (st.isFile()) return false;
  if (st.isFIFO()) return true;
  throw usageError(
    `the batch file ${file} is not a regular file or a pipe.`,
    'Pass a CSV or NDJSON file, or - to read the rows from stdin.',
  );
}

/** Bytes already in memory as a spool (tests, and small batches built in-process): complete, as a regular file is. */
export async function spoolBytes(bytes: Buffer, name = '-'): Promise<Spool> {
  const spool = await openSpool('-', { stdin: Readable.from([bytes]) });
  return { ...spool, name, cut: undefined };
}

/** The spool's text from its start, in chunks (UTF-8 decoded across chunk ends; a leading BOM dropped). */
export async function* spoolText(spool: Spool): AsyncGenerator<string> {
  const decoder = new StringDecoder('utf8');
  const buf = Buffer.allocUnsafe(CHUNK_BYTES);
  let first = true;
  for (let pos = 0; ; ) {
    const n = readSync(spool.fd, buf, 0, CHUNK_BYTES, pos); // a local private file: a read is a copy from the page cache
    if (n === 0) break;
    pos += n;
    let text = decoder.write(buf.subarray(0, n));
    if (first && text !== '') {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (text !== '') yield text;
  }
  const rest = decoder.end();
  if (rest !== '') yield rest;
}
