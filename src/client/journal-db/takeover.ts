// Takes over the file journals older versions wrote, in one transaction, the first time a
// journal is opened beside them: the folder (`journal/`: key buckets and hour segments, each record
// in both) and the single `operations.ndjson` before it. Every record is read from every copy and
// kept once (the same record twice is one row), so a lost index, a lost bucket or a lost segment
// loses nothing the other copy holds. Only once the transaction is committed is the old journal
// renamed aside (`journal.taken-over-<time>`), never deleted: the user removes it. A line that
// cannot be read is kept in `unreadable`: any key may be in it, so money commands refuse until a
// person has looked (`cardctl ops verify`). Run again over the same files, it adds nothing.
import { closeSync, existsSync, openSync, readdirSync, readSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { decodeLine, isDamaged, parseRecord, type DamagedLine } from './old-lines.js';
import type { RawRecord } from './records.js';
import type { BulkTarget, SqliteJournal } from './sqlite.js';

/** What a takeover found and did. */
export interface TakeoverReport {
  from: string[];
  records: number;
  unreadable: number;
  movedTo: string[];
  ms: number;
}

/** The old journals beside a state folder's database, oldest format first. */
export function oldJournals(stateFolder: string): string[] {
  const is = (p: string, folder: boolean): boolean => {
    try {
      return statSync(p).isDirectory() === folder;
    } catch {
      return false;
    }
  };
  return [
    ...(is(join(stateFolder, 'operations.ndjson'), false) ? [join(stateFolder, 'operations.ndjson')] : []),
    ...(is(join(stateFolder, 'journal'), true) ? [join(stateFolder, 'journal')] : []),
  ];
}

/** Every file of the old folder journal that holds records (key buckets, segments, what an earlier takeover could not read). */
function folderFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.ndjson')) files.push(p);
    }
  };
  for (const part of ['keys', 'segments']) walk(join(dir, part));
  if (existsSync(join(dir, 'damaged.ndjson'))) files.push(join(dir, 'damaged.ndjson'));
  return files;
}

/** The longest text of an unreadable line kept for `ops verify` (a line of megabytes is cut). */
const SHOWN = 4096;

/** The lines of a file as records, or what is wrong with each (a folder journal's lines carry a checksum); read 4 MiB at a time. */
function* recordsOf(file: string, checksummed: boolean): Generator<{ text: string; r: RawRecord | DamagedLine }> {
  for (const line of linesOf(file)) {
    if (line.trim() === '') continue;
    const r = checksummed ? decodeLine(line) : parseRecord(line);
    if (isDamaged(r)) yield { text: r.text.slice(0, SHOWN), r: { ...r, text: r.text.slice(0, SHOWN) } };
    else yield { text: checksummed ? line.slice(9) : line, r };
  }
}

/** A file's lines, read a piece at a time (an hour of a busy key can be larger than one string may be). */
function* linesOf(file: string): Generator<string> {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(4 << 20);
    let rest: Buffer = Buffer.alloc(0);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      const chunk = rest.length ? Buffer.concat([rest, buf.subarray(0, n)]) : buf.subarray(0, n);
      let start = 0;
      for (let nl = chunk.indexOf(0x0a); nl >= 0; nl = chunk.indexOf(0x0a, start)) {
        yield chunk.toString('utf8', start, nl);
        start = nl + 1;
      }
      rest = Buffer.from(chunk.subarray(start));
      if (n === 0) {
        if (rest.length) yield rest.toString('utf8'); // a last line without its newline (a write cut short: its checksum says so)
        return;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * Takes over every old journal beside `stateFolder` into `db`, in one transaction; returns what
 * it did, or undefined when there was nothing to take over. `foldKeys`: recomputes which
 * operations of these keys have an unknown outcome (the journal's own fold).
 */
export async function takeOver(
  db: SqliteJournal,
  stateFolder: string,
  foldKeys: (keys: string[]) => Promise<void>,
): Promise<TakeoverReport | undefined> {
  const from = oldJournals(stateFolder);
  if (from.length === 0) return undefined;
  const started = Date.now();
  let records = 0;
  let unreadable = 0;
  db.setBusyTimeout(10 * 60_000); // another process taking over the same files: wait for it
  try {
    await db.transaction(async () => {
      if (oldJournals(stateFolder).length === 0) return; // another process took them over meanwhile
      await db.bulkLoad(
        async (to) => {
          for (const old of from) {
            const files = old.endsWith('.ndjson') ? [old] : folderFiles(old);
            for (const file of files) {
              const checksummed = !old.endsWith('.ndjson');
              const lost = file.endsWith('damaged.ndjson');
              for (const { text, r } of recordsOf(file, checksummed)) {
                if (isDamaged(r) || lost) {
                  unreadable++;
                  await db.addUnreadable(
                    file,
                    isDamaged(r) ? r.why : 'unreadable in an older takeover',
                    isDamaged(r) ? r.text : text,
                  );
                } else {
                  records++;
                  await db.put(r, text, to);
                }
              }
            }
          }
        },
        from.length === 1 && from[0]!.endsWith('.ndjson'),
      );
      await foldKeys(await db.keysToFold());
    });
  } finally {
    db.setBusyTimeout(15_000);
  }
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const movedTo: string[] = [];
  for (const old of from) {
    if (!existsSync(old)) continue;
    const aside = `${old}.taken-over-${stamp}`;
    renameSync(old, aside);
    movedTo.push(aside);
  }
  return { from, records, unreadable, movedTo, ms: Date.now() - started };
}
