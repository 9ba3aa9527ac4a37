// The journal's file operations: an append is one write() on a file opened O_APPEND (concurrent
// processes never interleave within a record), then fdatasync when the record must be on disk
// before the caller goes on. A new file's folder is synced too, so the file itself survives.
// A --batch appends durably without blocking the event loop (appendLinesDurably): the write is
// done at once, the fdatasync in libuv's threadpool, and rows waiting on the same file meanwhile
// share the next write and fdatasync (group commit).
import {
  closeSync,
  constants,
  createReadStream,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
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

/**
 * Appends records in one write; `sync`: on disk (fdatasync) before returning. A file that
 * compaction or repair replaced (renamed a rewritten copy over it) while this write went to the
 * old copy is written again to the new one: a reader may then see the record twice, which folds
 * to the same operation, but never misses it.
 */
export function appendLines(file: string, records: readonly object[], sync: boolean): void {
  ensureDir(dirname(file));
  appendText(file, records.map(encodeLine).join(''), sync);
}

function appendText(file: string, text: string, sync: boolean): void {
  for (let tries = 0; ; tries++) {
    const { landed, wasNew } = appendOnce(file, text, sync);
    if (sync && wasNew) syncDir(dirname(file)); // the new file's name is on disk too
    if (landed || tries >= 64) return;
  }
}

const statOf = (file: string): { ino: number; dev: number } | undefined => {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
};

/** The file opened for appending, and `text` written to it whole (on a line of its own), or nothing of it left: see writeWhole. */
function openAndWrite(file: string, text: string): { fd: number; st: Stats } {
  const fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o600);
  try {
    const st = fstatSync(fd);
    let prefix = '';
    if (st.size > 0) {
      // a write cut short (power loss) must not swallow this record: start on a line of its own
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, st.size - 1);
      if (last[0] !== 0x0a) prefix = '\n';
    }
    writeWhole(fd, file, Buffer.from(prefix + text));
    return { fd, st };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/**
 * Appends `bytes` to the file opened O_APPEND as `fd`, all of them or none: write() may write
 * fewer bytes than asked (a full disk, a file size limit); the rest is written until done or
 * refused (ENOSPC, EFBIG, EDQUOT). When refused, the bytes already written are taken back
 * (truncated away) if they are still the file's last bytes, so no torn line is left for the next
 * append to be glued onto; the error is thrown with the file's path.
 */
function writeWhole(fd: number, file: string, bytes: Buffer): void {
  let done = 0;
  try {
    while (done < bytes.length) {
      const n = writeSync(fd, bytes, done, bytes.length - done);
      if (n <= 0) throw shortWrite(file, done, bytes.length);
      done += n;
    }
  } catch (err) {
    if (done > 0) takeBack(fd, bytes.subarray(0, done));
    throw withPath(err, file);
  }
}

/** A write that wrote nothing and said no error (seen as a full disk). */
function shortWrite(file: string, done: number, length: number): NodeJS.ErrnoException {
  return Object.assign(new Error(`write cut short after ${done} of ${length} bytes`), {
    code: 'ENOSPC',
    syscall: 'write',
    path: file,
  });
}

/** The error with the file's path and the call (Node's write errors name neither). */
function withPath(err: unknown, file: string): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e && typeof e === 'object' && typeof e.code === 'string' && !e.path)
    Object.assign(e, { path: file, syscall: e.syscall ?? 'write' });
  return err;
}

/**
 * Truncates away the `written` bytes of a refused append when they are still the file's last
 * bytes (another process appending since would have its record there: then they are left, a
 * line `ops repair` reports and rebuilds, and the next append starts on a line of its own).
 */
function takeBack(fd: number, written: Buffer): boolean {
  try {
    const size = fstatSync(fd).size;
    if (size < written.length) return false;
    const tail = Buffer.alloc(written.length);
    if (readSync(fd, tail, 0, tail.length, size - tail.length) !== tail.length || !tail.equals(written)) return false;
    ftruncateSync(fd, size - written.length);
    fdatasyncSync(fd);
    return true;
  } catch {
    return false; // the original error is the one to tell
  }
}

/** Whether the file's name still names the file `fd` (opened as `st`) wrote to: asked while `fd` is open. */
function landedIn(file: string, st: Stats): boolean {
  const now = statOf(file);
  return now !== undefined && now.ino === st.ino && now.dev === st.dev;
}

/**
 * One append. `landed`: the file's name still named the file written to when the write was done.
 * That is checked while the file is still open: once closed, a replaced file's inode number can be
 * given to the next rewrite's copy, and a check by number alone would then take a record written to
 * the dead file for one in the live file (a 4-writer test lost a record so).
 */
function appendOnce(file: string, text: string, sync: boolean): { landed: boolean; wasNew: boolean } {
  const { fd, st } = openAndWrite(file, text);
  try {
    if (sync) fdatasyncSync(fd);
    return { landed: landedIn(file, st), wasNew: st.size === 0 };
  } finally {
    closeSync(fd);
  }
}

/** Appends waiting for a file: the next group to be written to it, while one is being synced. */
interface Waiting {
  texts: string[];
  done: Array<(err?: unknown) => void>;
}

/** A group written to `fd` (opened as `st`) whose sync is under way. */
interface Syncing {
  fd?: number;
  st: Stats;
  text: string;
  /** set once the sync is done and the name checked */
  landed?: boolean;
}

/** Files with a group being synced and the group waiting behind it. */
const busy = new Map<string, { syncing?: Syncing; next?: Waiting }>();

/**
 * The same as appendLines(file, records, true), without blocking the event loop: resolves once
 * the records are on disk (fdatasync) in the file its name names, and a new file's folder is
 * synced too. The write() is done at once; appends to the same file while its fdatasync runs
 * share the next write and fdatasync. The same landing check and retries as appendLines.
 */
export function appendLinesDurably(file: string, records: readonly object[]): Promise<void> {
  return new Promise((resolve, reject) => {
    ensureDir(dirname(file)); // a failure rejects this promise (never a throw beside the others' promises)
    const text = records.map(encodeLine).join('');
    const settle = (err?: unknown): void => (err === undefined ? resolve() : reject(err));
    const state = busy.get(file);
    if (!state) {
      busy.set(file, {});
      flushDurably(file, { texts: [text], done: [settle] });
    } else if (state.next) {
      state.next.texts.push(text);
      state.next.done.push(settle);
    } else state.next = { texts: [text], done: [settle] };
  });
}

/** Writes and syncs one group, then the group that gathered meanwhile, until none waits. */
function flushDurably(file: string, group: Waiting): void {
  watchExit();
  void (async () => {
    for (let g: Waiting | undefined = group; g; ) {
      let failure: unknown;
      try {
        await appendTextDurably(file, g.texts.join(''));
      } catch (err) {
        failure = err ?? new Error('append failed');
      }
      for (const settle of g.done) settle(failure);
      const state = busy.get(file)!;
      g = state.next;
      state.next = undefined;
    }
    busy.delete(file);
  })();
}

async function appendTextDurably(file: string, text: string): Promise<void> {
  const state = busy.get(file)!;
  try {
    for (let tries = 0; ; tries++) {
      const { fd, st } = openAndWrite(file, text);
      const syncing: Syncing = (state.syncing = { fd, st, text });
      let landed: boolean;
      try {
        await new Promise<void>((resolve, reject) => fdatasync(fd, (err) => (err ? reject(err) : resolve())));
        landed = syncing.landed = landedIn(file, st);
      } finally {
        syncing.fd = undefined;
        closeSync(fd);
      }
      if (st.size === 0) await syncDirDurably(dirname(file));
      if (landed || tries >= 64) return;
    }
  } finally {
    state.syncing = undefined;
  }
}

/** At exit: the sync of a group already written, done here (its folder's too when the file is new), and the group written again if its file was replaced. */
function finishSync(file: string, { fd, st, text, landed }: Syncing): void {
  if (fd !== undefined) {
    try {
      fdatasyncSync(fd);
    } catch {
      // closed meanwhile: its own sync completed
    }
    landed = landedIn(file, st);
  }
  if (st.size === 0) syncDir(dirname(file));
  if (landed === false) appendText(file, text, true);
}

function syncDirDurably(dir: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY);
  } catch {
    return Promise.resolve(); // see syncDir
  }
  return new Promise((resolve) =>
    fdatasync(fd, () => {
      closeSync(fd);
      resolve();
    }),
  );
}

let exitWatched = false;

/**
 * A process that exits while appends are under way (an interrupted batch exits at once) finishes
 * them first, synchronously: the written groups are synced, the waiting ones written and synced.
 * So a record that a row handed over is on disk when the process has exited, as with appendLines.
 */
function watchExit(): void {
  if (exitWatched) return;
  exitWatched = true;
  // before the key locks' own exit handler (src/client/key-lock.ts) lets them go: a lock is held until its outcome is written
  process.prependListener('exit', () => {
    for (const [file, { syncing, next }] of busy) {
      try {
        if (syncing) finishSync(file, syncing);
        if (next) appendText(file, next.texts.join(''), true);
      } catch {
        // the process is ending: what could not be written now stays unknown (its row's key replays it)
      }
    }
  });
}

/**
 * Replaces a file by a rewritten copy while other processes may append to it: the copy is
 * written and synced beside it and renamed over it; lines appended to the old file after it was
 * read are carried over (before the rename, by reading again; after it, from the old file's
 * descriptor), and a writer that lands in the old file after that writes again itself
 * (appendLines). `rewrite` gets the file's text and returns the new text, or undefined to leave
 * it as it is.
 */
export function rewriteFile(file: string, rewrite: (text: string) => string | undefined): boolean {
  const fd = openSync(file, constants.O_RDONLY);
  try {
    let read = settledRead(fd);
    const next = rewrite(read.text);
    if (next === undefined) return false;
    let out = next;
    const tmp = `${file}.rewrite-${process.pid}`;
    for (let more = readFrom(fd, read.end); more.text !== ''; more = readFrom(fd, read.end)) {
      out += more.text; // appended while rewriting: kept as written
      read = { text: '', end: more.end };
    }
    writeCopy(tmp, out);
    renameSync(tmp, file);
    const late = readFrom(fd, read.end).text; // landed between the last read and the rename
    if (late !== '') appendRaw(file, late);
    syncDir(dirname(file));
    return true;
  } finally {
    closeSync(fd);
  }
}

const sleepSync = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * The file's text for a rewrite. A last line without its newline is either a record another
 * process is writing right now (a reader can see part of a write) or one cut short for good (a
 * power loss): it is read again 20 ms later; if it completed, only complete lines are taken (the
 * rest comes with the catch-up reads); if not, it is kept in the text, where it reads as damaged.
 */
function settledRead(fd: number): { text: string; end: number } {
  const lines = readFrom(fd, 0);
  if (fstatSync(fd).size === lines.end) return lines;
  sleepSync(20);
  const again = readFrom(fd, 0);
  return again.end > lines.end ? again : readFrom(fd, 0, true);
}

/** The complete lines from `start` to the end (a line still being written is left for the next read; `whole`: everything). */
function readFrom(fd: number, start: number, whole = false): { text: string; end: number } {
  const size = fstatSync(fd).size;
  if (size <= start) return { text: '', end: start };
  const buf = Buffer.alloc(size - start);
  let got = 0;
  while (got < buf.length) {
    const n = readSync(fd, buf, got, buf.length - got, start + got);
    if (n === 0) break;
    got += n;
  }
  if (whole) return { text: buf.subarray(0, got).toString('utf8'), end: start + got };
  const lastNl = buf.lastIndexOf(0x0a, got - 1);
  if (lastNl < 0) return { text: '', end: start };
  return { text: buf.subarray(0, lastNl + 1).toString('utf8'), end: start + lastNl + 1 };
}

/** A rewritten copy written whole and synced, or removed and the error thrown: a short copy is never renamed over the file. */
function writeCopy(file: string, text: string): void {
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC, 0o600);
  try {
    writeWhole(fd, file, Buffer.from(text));
    fdatasyncSync(fd);
  } catch (err) {
    rmSync(file, { force: true });
    throw err;
  } finally {
    closeSync(fd);
  }
}

function appendRaw(file: string, text: string): void {
  const fd = openSync(file, constants.O_RDWR | constants.O_APPEND, 0o600);
  try {
    writeWhole(fd, file, Buffer.from(text));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
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
