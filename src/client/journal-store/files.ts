// The journal's file operations: an append is one write() on a file opened O_APPEND (concurrent
// processes never interleave within a record), then fdatasync when the record must be on disk
// before the caller goes on. A new file's folder is synced too, so the file itself survives.
import { closeSync, constants, createReadStream, fdatasyncSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { decodeText, encodeLine, type DamagedLine, type RawRecord } from './lines.js';

const made = new Set<string>();

/** Creates the folder (0700) and its parents once per process. */
export function ensureDir(dir: string): void {
  if (made.has(dir)) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  made.add(dir);
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, constants.O_RDONLY);
    try {
      fdatasyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // some platforms cannot sync a folder (Windows): the file's own sync is what they offer
  }
}

/** Appends records in one write; `sync`: on disk (fdatasync) before returning. */
export function appendLines(file: string, records: readonly object[], sync: boolean): void {
  ensureDir(dirname(file));
  const fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600);
  let wasNew = false;
  try {
    const size = fstatSync(fd).size;
    wasNew = size === 0;
    let prefix = '';
    if (size > 0) {
      // a write cut short (power loss) must not swallow this record: start on a line of its own
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    writeSync(fd, prefix + records.map(encodeLine).join(''));
    if (sync) fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (sync && wasNew) syncDir(dirname(file)); // the new file's name is on disk too
}

/** Every record of a small file (an index bucket); [] when it does not exist. */
export function readRecords(file: string): Array<RawRecord | DamagedLine> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return decodeText(text);
}

/** The lines of a file of any size, in order, holding one chunk at a time. */
export async function* streamLines(file: string): AsyncGenerator<string> {
  let rest = '';
  for await (const chunk of createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
    const text = rest + (chunk as string);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      yield text.slice(start, nl);
      start = nl + 1;
    }
    rest = text.slice(start);
  }
  if (rest !== '') yield rest;
}
