// Reading and rewriting the journal in tests, as a person with the sqlite3 shell or a text editor
// would: its records (each op and its outcomes), and the file older versions wrote, which the next
// cardctl command takes over.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { crc32 } from 'node:zlib';

export type JournalRecord = Record<string, unknown> & { type: string; id: string };

/** Every file under a folder, in name order. */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) => (d.isDirectory() ? filesUnder(join(dir, d.name)) : [join(dir, d.name)]));
}

/** The journal's database file in `<state>/cardctl`. */
export const journalDb = (cardctlState: string): string => join(cardctlState, 'journal.db');

/**
 * `<state>/cardctl` -> every record in the journal (each operation's, then what was learned after
 * it), oldest first, after those of an old file not taken over yet. Read with SQLite itself, as a
 * person with the sqlite3 shell would.
 */
export function journalRecords(cardctlState: string): JournalRecord[] {
  const legacy = join(cardctlState, 'operations.ndjson');
  const old = existsSync(legacy)
    ? readFileSync(legacy, 'utf8')
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l) as JournalRecord)
    : [];
  if (!existsSync(journalDb(cardctlState))) return old;
  // a busy timeout, as cardctl's own connections have: a test polling the journal while a batch
  // writes it would otherwise meet "database is locked" at the moment a writer holds it
  const db = new DatabaseSync(journalDb(cardctlState), { readOnly: true, timeout: 10_000 });
  try {
    const rows = db
      .prepare(
        `SELECT o.record AS op, a.record AS answer FROM operations o LEFT JOIN answers a ON a.op_id = o.id
         ORDER BY o.time, o.seq, a.seq`,
      )
      .all() as Array<{ op: string; answer: string | null }>;
    const out: JournalRecord[] = [];
    let last: string | undefined;
    for (const r of rows) {
      if (r.op !== last) out.push(JSON.parse(r.op) as JournalRecord);
      last = r.op;
      if (r.answer !== null) out.push(JSON.parse(r.answer) as JournalRecord);
    }
    return old.concat(out);
  } finally {
    db.close();
  }
}

/** The records as NDJSON text, one per line. */
export const journalText = (cardctlState: string): string =>
  journalRecords(cardctlState)
    .map((r) => JSON.stringify(r) + '\n')
    .join('');

/** The raw bytes of every journal file (the database, its WAL), concatenated (to look for what must never be written). */
export const journalBytes = (cardctlState: string): string =>
  ['journal.db', 'journal.db-wal']
    .map((f) => join(cardctlState, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f, 'latin1'))
    .join('\n');

/**
 * Rewrites the journal through `edit` (a record, or null to drop it): written back as the file
 * older versions kept, which the next cardctl command takes over (the database is removed).
 */
export function rewriteJournal(cardctlState: string, edit: (r: JournalRecord) => JournalRecord | null): void {
  const records = journalRecords(cardctlState)
    .map(edit)
    .filter((r): r is JournalRecord => r !== null);
  writeFileSync(join(cardctlState, 'operations.ndjson'), records.map((r) => JSON.stringify(r) + '\n').join(''), {
    mode: 0o600,
  });
  for (const f of ['journal.db', 'journal.db-wal', 'journal.db-shm']) rmSync(join(cardctlState, f), { force: true });
}

export interface LegacyOptions {
  /** operations to write */
  ops: number;
  baseUrl: string;
  keyId: string;
  /** the newest op's time; each earlier one `stepMs` before it */
  newestMs?: number;
  stepMs?: number;
  /** every Nth op has no outcome (unknown) */
  unknownEvery?: number;
  /** the card in each recharge's path */
  card?: string;
  keyPrefix?: string;
}

/** A journal in the format older versions wrote (an op line and an outcome line per operation), oldest first. */
export function legacyJournalText(o: LegacyOptions): string {
  const step = o.stepMs ?? 60_000;
  const newest = o.newestMs ?? Date.now();
  const body = Buffer.from('{"amount":100}');
  const lines: string[] = [];
  for (let i = 0; i < o.ops; i++) {
    const id = `op_${(0x100000000000 + i * 7919).toString(16).slice(-12)}`;
    const time = new Date(newest - (o.ops - 1 - i) * step).toISOString();
    const path = `/api/v1/cards/${o.card ?? '01JD2QA1B2C3D4E5F6G7H8J9KM'}/recharge`;
    lines.push(
      JSON.stringify({
        type: 'op',
        id,
        time,
        profile: null,
        source: 'env',
        mode: 'test',
        base_url: o.baseUrl,
        key_id: o.keyId,
        method: 'POST',
        path,
        query: '',
        idempotency_key: `${o.keyPrefix ?? 'gen'}-${i}`,
        body_b64: body.toString('base64'),
        body_sha256: 'f'.repeat(64),
      }),
    );
    if (o.unknownEvery && i % o.unknownEvery === 0) continue;
    lines.push(
      JSON.stringify({
        type: 'outcome',
        id,
        time,
        status: 200,
        outcome: 'resolved',
        code: null,
        resource_id: o.card ?? '01JD2QA1B2C3D4E5F6G7H8J9KM',
      }),
    );
  }
  return lines.join('\n') + '\n';
}

/** The key bucket an idempotency key's records were kept in by the folder journal (3 hex digits of its SHA-256). */
const keyBucketName = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 3);

/**
 * Writes records as the folder journal of the version before this one kept them (`journal/keys/`
 * and `journal/segments/`, each record in both, each line `<crc32> <JSON>`), which the next cardctl
 * command takes over. `leave` drops one of the two copies (a lost folder), `damage` changes one
 * byte of a record's line in one copy.
 */
export function writeFolderJournal(
  cardctlState: string,
  records: readonly JournalRecord[],
  o: { leave?: 'keys' | 'segments'; damage?: { id: string; copy: 'keys' | 'segments' } } = {},
): void {
  const dir = join(cardctlState, 'journal');
  const keyOf = new Map<string, string>();
  const timeOf = new Map<string, string>();
  for (const r of records)
    if (r.type === 'op' || r.type === 'compact') {
      keyOf.set(r.id, r.idempotency_key as string);
      timeOf.set(r.id, r.time as string);
    }
  const files = new Map<string, string[]>();
  const add = (file: string, line: string) => files.set(file, [...(files.get(file) ?? []), line]);
  for (const r of records) {
    const json = JSON.stringify(r);
    const line = (copy: 'keys' | 'segments') => {
      const text = o.damage?.id === r.id && o.damage.copy === copy ? json.replace('"time":"2', '"time":"3') : json;
      return `${crc32(json).toString(16).padStart(8, '0')} ${text}\n`;
    };
    const time = timeOf.get(r.id) ?? (r.time as string);
    if (o.leave !== 'keys') add(join(dir, 'keys', `${keyBucketName(keyOf.get(r.id) ?? '')}.ndjson`), line('keys'));
    if (o.leave !== 'segments')
      add(join(dir, 'segments', time.slice(0, 10), `${time.slice(11, 13)}.ndjson`), line('segments'));
  }
  for (const [file, lines] of files) {
    mkdirSync(join(file, '..'), { recursive: true, mode: 0o700 });
    writeFileSync(file, lines.join(''), { mode: 0o600 });
  }
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}
