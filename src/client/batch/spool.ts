// A batch file's bytes, read from a private copy (once, to check every row: the rows are then
// sent as src/client/batch/checked-rows.ts kept them): a file edited while the batch runs, or rows
// on stdin, are sent exactly as they were checked. The copy is unlinked as soon as it is open (POSIX), so nothing is left behind, even
// after a SIGKILL; it is read in chunks, never whole.
import { closeSync, copyFileSync, createWriteStream, mkdtempSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { usageError } from '../../errors.js';

export interface Spool {
  /** what the user named: the file, or `-` */
  name: string;
  fd: number;
  close(): void;
}

/**
 * Read 16 KiB at a time: a chunk's records are alive together until the last is used; a
 * megabyte's (34,000 CSV rows) outlived young-generation collections and grew the heap by 80
 * MiB, and 64 KiB still left a million-row rerun at 145-150 MiB (16 KiB: 122 MiB, and faster).
 */
const CHUNK_BYTES = 1 << 14;

function cannotRead(file: string, err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code;
  return usageError(`cannot read the batch file ${file}: ${code === 'ENOENT' ? 'no such file' : (code ?? (err as Error).message)}.`, 'Check the path (or pass - to read the rows from stdin).');
}

/** Copies the file (`-`: stdin) to a private, already unlinked file and opens it. */
export async function openSpool(file: string, opts: { stdin?: NodeJS.ReadableStream } = {}): Promise<Spool> {
  if (file !== '-') {
    let isFile: boolean;
    try {
      isFile = statSync(file).isFile();
    } catch (err) {
      throw cannotRead(file, err);
    }
    if (!isFile) throw usageError(`the batch file ${file} is not a regular file.`, 'Pass a CSV or NDJSON file, or - to read the rows from stdin.');
  }
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-batch-'));
  const copy = join(dir, 'rows');
  let fd: number | undefined;
  try {
    if (file === '-') await pipeline(opts.stdin ?? process.stdin, createWriteStream(copy, { mode: 0o600 }));
    else {
      try {
        copyFileSync(file, copy);
      } catch (err) {
        throw cannotRead(file, err);
      }
    }
    fd = openSync(copy, 'r');
  } finally {
    try {
      rmSync(dir, { recursive: true, force: true }); // open or not, the name goes now
    } catch {
      // Windows cannot remove an open file: the temporary folder is the system's to clean
    }
  }
  const opened = fd;
  return { name: file, fd: opened, close: () => closeSync(opened) };
}

/** Bytes already in memory as a spool (tests, and small batches built in-process). */
export async function spoolBytes(bytes: Buffer, name = '-'): Promise<Spool> {
  const spool = await openSpool('-', { stdin: Readable.from([bytes]) });
  return { ...spool, name };
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
