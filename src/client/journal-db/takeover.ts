// Takes over the file journals older versions wrote, in one transaction, the first time a
// journal is opened beside them: the folder (`journal/`: key buckets and hour segments, each record
// in both) and the single `operations.ndjson` before it. Every record is read from every copy and
// kept once (the second copy of a record is recognised by its bytes: seen-records.ts), so a lost
// index, a lost bucket or a lost segment loses nothing the other copy holds. Only once the
// transaction is committed is the old journal renamed aside (`journal.taken-over-<time>`), never
// deleted: the user removes it. A line that cannot be read is kept in `unreadable`: any key may be
// in it, so money commands refuse until a person has looked (`cardctl ops verify`). Run again over
// the same files, it adds nothing. Straight on node:sqlite (the takeover is SQLite's only): the
// old files are read, checked and decoded in a thread of their own (reader-thread.ts,
// old-records.ts) while this thread writes the rows (takeover-load.ts) of the batches read
// before, and the outcomes that need the whole fold are folded here.
import { existsSync, renameSync } from 'node:fs';
import type { DatabaseSync } from 'node:sqlite';
import { boundedYoungGeneration, keepOldGenerationTight } from '../heap.js';
import { readBatch } from './record-batches.js';
import { entriesOf, type RawRecord } from './records.js';
import { readInThread } from './reader-thread.js';
import { TakeoverLoad } from './takeover-load.js';
import { oldJournals } from './old-journals.js';

export { oldJournals };

/** What a takeover found and did. */
export interface TakeoverReport {
  from: string[];
  records: number;
  unreadable: number;
  movedTo: string[];
  ms: number;
}

/** SQLite's page cache while the takeover's one transaction is written (its default: 2 MiB). */
const CACHE_KIB = 64 * 1024;
/** V8's young generation while the batches come (each batch's strings die young; at its first size, 1 MiB, the scavenges took a sixth of the takeover). */
const YOUNG_BYTES = 8 << 20;

/**
 * Takes over every old journal beside `stateFolder` into `db` (the caller gives it a long busy
 * timeout: another process may be taking over the same files), in one transaction; returns what
 * it did, or undefined when there was nothing to take over. The connection is used by nothing
 * else until this settles (the files are read in a thread of their own meanwhile).
 */
export async function takeOver(db: DatabaseSync, stateFolder: string): Promise<TakeoverReport | undefined> {
  const from = oldJournals(stateFolder);
  if (from.length === 0) return undefined;
  const started = Date.now();
  keepOldGenerationTight(); // two million lines, each alive a moment: V8's heap otherwise grew to 180 MiB of them
  // into an empty journal, with a rollback journal instead of the WAL: the rows are written once, into the file,
  // instead of into the WAL and again into the file (at a million operations 18 s against 32 s). Atomic all the same:
  // killed in the middle, the next opening rolls it back. Where another process has the journal open it stays WAL.
  const rollback = isEmpty(db) && journalMode(db, 'delete') === 'delete';
  db.exec('BEGIN IMMEDIATE');
  let counts: { records: number; unreadable: number } | undefined;
  try {
    // another process took them over while this one waited for the write lock: nothing left to do
    counts = oldJournals(stateFolder).length === 0 ? undefined : await load(db, from);
    db.exec('COMMIT');
  } catch (err) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // SQLite rolled it back itself (a full disk, say)
    }
    throw err;
  } finally {
    if (rollback) journalMode(db, 'wal'); // (another process's opening makes it WAL too, if this one cannot now)
  }
  if (!counts) return undefined;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const movedTo: string[] = [];
  for (const old of from) {
    if (!existsSync(old)) continue;
    const aside = `${old}.taken-over-${stamp}`;
    renameSync(old, aside);
    movedTo.push(aside);
  }
  return { from, ...counts, movedTo, ms: Date.now() - started };
}

const isEmpty = (db: DatabaseSync): boolean =>
  db.prepare('SELECT 1 AS one FROM operations UNION ALL SELECT 1 FROM answers LIMIT 1').get() === undefined;

/** Sets SQLite's journal mode, if it can; returns the mode it is in. */
function journalMode(db: DatabaseSync, mode: 'delete' | 'wal'): string {
  try {
    return (db.prepare(`PRAGMA journal_mode = ${mode}`).get() as { journal_mode: string }).journal_mode;
  } catch {
    return '';
  }
}

/**
 * Every record of the old journals into the tables, the outcomes folded; in the caller's
 * transaction. The records are read, checked and decoded in the reader thread
 * (reader-thread.ts) while this thread writes the rows of the batches it read before.
 */
async function load(db: DatabaseSync, from: readonly string[]): Promise<{ records: number; unreadable: number }> {
  const empty = isEmpty(db);
  const folder = from.some((f) => !f.endsWith('.ndjson'));
  db.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
  try {
    const to = new TakeoverLoad(db, empty, !folder);
    const keep = db.prepare('INSERT INTO unreadable (source, why, text) VALUES (?, ?, ?)');
    let records = 0;
    let unreadable = 0;
    const sink = {
      op: to.op.bind(to),
      answer: to.answer.bind(to),
      unreadable: (file: string, why: string, text: string) => {
        unreadable++;
        keep.run(file, why, text);
      },
    };
    // a record read twice is kept once: the folder's two copies (or the old file beside it) recognised by their bytes;
    // a journal that held operations already looks each one up (takeover-load.ts)
    const young = boundedYoungGeneration(YOUNG_BYTES);
    await readInThread(from, empty && (folder || from.length > 1), (batch) => {
      records += readBatch(batch, sink);
      young.grown();
    });
    fold(db, to.finish());
    return { records, unreadable };
  } finally {
    db.exec('PRAGMA cache_size = -2000');
  }
}

/** Keys folded a page at a time: every operation of each marked unknown or known as its records' fold says. */
const FOLD_PAGE = 256;

/** Sets each operation of these keys unknown or known, as the fold of the key's records says (records.ts: a later send may resolve an earlier one). */
function fold(db: DatabaseSync, keys: readonly string[]): void {
  if (keys.length === 0) return;
  const read = db.prepare(
    `SELECT o.idempotency_key AS k, o.seq AS seq, o.record AS op, a.record AS answer
     FROM operations o INDEXED BY operations_by_key LEFT JOIN answers a ON a.op_id = o.id
     WHERE o.idempotency_key IN (SELECT value FROM json_each(?)) ORDER BY o.seq, a.seq`,
  );
  const mark = db.prepare(
    'UPDATE operations SET unknown = ? WHERE id IN (SELECT value FROM json_each(?)) AND unknown <> ?',
  );
  for (let i = 0; i < keys.length; i += FOLD_PAGE) {
    const byKey = new Map<string, RawRecord[]>();
    let last: number | undefined;
    for (const row of read.all(JSON.stringify(keys.slice(i, i + FOLD_PAGE))) as Array<{
      k: string;
      seq: number;
      op: string;
      answer: string | null;
    }>) {
      let records = byKey.get(row.k);
      if (!records) byKey.set(row.k, (records = []));
      if (row.seq !== last) records.push(JSON.parse(row.op) as RawRecord); // (each was read and checked as it was taken over)
      last = row.seq;
      if (row.answer !== null) records.push(JSON.parse(row.answer) as RawRecord);
    }
    const unknown: string[] = [];
    const known: string[] = [];
    for (const records of byKey.values())
      for (const e of entriesOf(records)) (e.outcome === 'unknown' ? unknown : known).push(e.id);
    if (unknown.length) mark.run(1, JSON.stringify(unknown), 1);
    if (known.length) mark.run(0, JSON.stringify(known), 0);
  }
}
