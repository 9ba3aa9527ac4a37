// The journal's tables in one SQLite file (node:sqlite, built into Node from 22.13): WAL, so
// readers never wait for a writer; synchronous=FULL, so a commit is on disk (the WAL synced) when
// it returns, which is what "recorded before the request's first byte" needs; a busy timeout, so
// two processes writing at once wait for each other instead of failing. Statements only: what the
// records mean is src/client/journal-db/records.ts, the rules are the money protocol's.
import { createHash } from 'node:crypto';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { crc32 } from 'node:zlib';
import { parseRecord, type RawRecord } from './records.js';
import { BULK_INDEXES, SCHEMA, SCHEMA_VERSION } from './schema.js';

/** How long a writer waits for another process's transaction before SQLite says busy. */
const BUSY_TIMEOUT_MS = 15_000;

/** What an operation's row holds besides its record (the columns the commands look it up by). */
export interface OpRow {
  id: string;
  idempotency_key: string;
  time: string;
  key_id: string | null;
  method: string;
  path: string;
  body_sha256: string;
  record: string;
}

/** An operation's row as listed: enough to find its key's history. */
export interface OpRef {
  seq: number;
  id: string;
  idempotency_key: string;
  time: string;
}

/** Where a takeover puts what it reads (bulkLoad). */
export interface BulkTarget {
  addAnswer: (opId: string, record: string) => void;
  compact: (id: string, record: string) => void;
}

/** What the repeat check looks at of a send before folding its records. */
export interface SentColumns extends OpRef {
  key_id: string | null;
  method: string;
  path: string;
  body_sha256: string;
}

/** A SQLite error as node:sqlite throws it. */
export interface SqliteError extends Error {
  code: 'ERR_SQLITE_ERROR';
  errcode: number;
  errstr: string;
}

export const isSqliteError = (err: unknown): err is SqliteError =>
  (err as { code?: unknown } | null)?.code === 'ERR_SQLITE_ERROR';

/** SQLite's primary result codes the journal tells apart (sqlite3.h). */
export const SQLITE = { BUSY: 5, LOCKED: 6, READONLY: 8, IOERR: 10, CORRUPT: 11, FULL: 13, CANTOPEN: 14, NOTADB: 26 };

/** A key's second way in (its own index): 52 bits of its SHA-256. */
export const keyDigest = (key: string): number =>
  Number.parseInt(createHash('sha256').update(key).digest('hex').slice(0, 13), 16);

/** A stored record parsed and its shape checked against its CRC-32: a damaged one is said, never read as another or skipped. */
function checked(text: string, crc: number, key: string): RawRecord {
  if (crc32(text) !== crc) throw damaged(key, 'its checksum does not match');
  const r = parseRecord(text);
  const why =
    'damaged' in r
      ? String(r.why)
      : (r.type === 'op' || r.type === 'compact') && r.idempotency_key !== key
        ? 'its record names another key than its row'
        : undefined;
  if (why !== undefined) throw damaged(key, why);
  return r as RawRecord;
}

const damaged = (key: string, why: string): Error =>
  Object.assign(new Error(`a record of Idempotency-Key ${key} is damaged (${why})`), { damagedKey: key });

export class SqliteJournal {
  private readonly db: DatabaseSync;
  private readonly st: Record<string, StatementSync> = {};
  private open = true;

  constructor(readonly file: string) {
    this.db = new DatabaseSync(file);
    try {
      this.db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec('PRAGMA synchronous = FULL');
      this.migrate();
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  private migrate(): void {
    const version = Number((this.db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
    if (version === SCHEMA_VERSION) return;
    if (version > SCHEMA_VERSION)
      throw Object.assign(new Error(`the journal ${this.file} was written by a newer cardctl (schema ${version})`), {
        newerSchema: version,
      });
    this.transaction(() => {
      this.db.exec(SCHEMA);
      this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      this.setMeta('created_at', new Date().toISOString(), false);
    });
  }

  private stmt(sql: string): StatementSync {
    let s = this.st[sql];
    if (!s) s = this.st[sql] = this.db.prepare(sql);
    return s;
  }

  /** `fn` in one transaction that holds the write lock from its start (BEGIN IMMEDIATE: no deadlock between two writers). */
  transaction<T>(fn: () => T): T {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = fn();
      this.db.exec('COMMIT');
      return out;
    } catch (err) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // SQLite rolled it back itself (a full disk, say)
      }
      throw err;
    }
  }

  insertOp(row: OpRow, unknown = true): void {
    this.stmt(
      `INSERT INTO operations (id, idempotency_key, key_digest, time, key_id, method, path, body_sha256, unknown, record, crc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    ).run(
      row.id,
      row.idempotency_key,
      keyDigest(row.idempotency_key),
      row.time,
      row.key_id,
      row.method,
      row.path,
      row.body_sha256,
      unknown ? 1 : 0,
      row.record,
      crc32(row.record),
    );
  }

  /** An answer or resolution after its operation (the same record twice is kept once: a takeover run again adds nothing); the operation counts its answers. */
  insertAnswer(opId: string, record: string): void {
    const crc = crc32(record);
    if (this.stmt('SELECT 1 AS one FROM answers WHERE op_id = ? AND crc = ? AND record = ?').get(opId, crc, record))
      return;
    this.stmt('INSERT INTO answers (op_id, record, crc) VALUES (?, ?, ?)').run(opId, record, crc);
    // an operation with an answer is known until its fold says otherwise (the journal refolds its key after)
    this.stmt('UPDATE operations SET answers = answers + 1, unknown = 0 WHERE id = ?').run(opId);
  }

  /**
   * For a takeover into an empty journal: `load` runs with the lookup indexes dropped (one large
   * transaction, its pages kept in memory), and they are made again after it (inside the caller's
   * transaction). `once`: every record comes once (a single old file): its answers are appended
   * without a look-up, the answers' index dropped too, and each operation's count set after.
   * Otherwise a record read twice (the folder journal's two copies) is kept once by looking it up.
   */
  bulkLoad(load: (to: BulkTarget) => void, once: boolean): void {
    const empty = this.isEmpty();
    const fast = empty && once;
    this.db.exec('PRAGMA cache_size = -262144'); // 256 MiB of pages for the one transaction
    try {
      if (empty)
        for (const name of BULK_INDEXES)
          if (fast || name !== 'answers_by_op') this.db.exec(`DROP INDEX IF EXISTS ${name}`);
      const append = this.db.prepare('INSERT INTO answers (op_id, record, crc) VALUES (?, ?, ?)');
      load(
        fast
          ? {
              addAnswer: (opId, record) => void append.run(opId, record, crc32(record)),
              compact: (id, record) => this.compactOp(id, record, false),
            }
          : {
              addAnswer: (opId, record) => this.insertAnswer(opId, record),
              compact: (id, record) => this.compactOp(id, record),
            },
      );
      if (empty) this.db.exec(SCHEMA);
      if (fast) {
        // a compacted operation stands for its answers; every other one counts its own
        this.db.exec('DELETE FROM answers WHERE op_id IN (SELECT id FROM operations WHERE compacted = 1)');
        this.db.exec(
          `UPDATE operations SET answers = c.n, unknown = 0
           FROM (SELECT op_id, count(*) AS n FROM answers GROUP BY op_id) AS c
           WHERE operations.id = c.op_id`,
        );
      }
    } finally {
      this.db.exec('PRAGMA cache_size = -2000');
    }
  }

  setUnknown(id: string, unknown: boolean): void {
    this.stmt('UPDATE operations SET unknown = ? WHERE id = ? AND unknown <> ?').run(
      unknown ? 1 : 0,
      id,
      unknown ? 1 : 0,
    );
  }

  /** Retention: an operation's record replaced by its compacted form, its answers dropped (folded into it). */
  compactOp(id: string, record: string, dropAnswers = true): void {
    this.stmt('UPDATE operations SET record = ?, crc = ?, compacted = 1, unknown = 0, answers = 0 WHERE id = ?').run(
      record,
      crc32(record),
      id,
    );
    if (dropAnswers) this.stmt('DELETE FROM answers WHERE op_id = ?').run(id);
  }

  /**
   * Every record of these keys' operations: each operation's, then its answers in the order
   * written. Each key is found through both of its indexes; where they disagree (a damaged page),
   * the key's history cannot be known and this throws, naming the key.
   */
  recordsOfKeys(keys: readonly string[]): Map<string, RawRecord[]> {
    const out = new Map<string, RawRecord[]>();
    if (keys.length === 0) return out;
    const rows = (
      keys.length === 1
        ? this.stmt(
            `SELECT o.idempotency_key AS k, o.seq AS seq, o.record AS op, o.crc AS op_crc, o.answers AS answers, a.record AS answer, a.crc AS answer_crc
             FROM operations o INDEXED BY operations_by_key LEFT JOIN answers a ON a.op_id = o.id
             WHERE o.idempotency_key = ? ORDER BY o.seq, a.seq`,
          ).all(keys[0]!)
        : this.stmt(
            `SELECT o.idempotency_key AS k, o.seq AS seq, o.record AS op, o.crc AS op_crc, o.answers AS answers, a.record AS answer, a.crc AS answer_crc
             FROM operations o INDEXED BY operations_by_key LEFT JOIN answers a ON a.op_id = o.id
             WHERE o.idempotency_key IN (SELECT value FROM json_each(?)) ORDER BY o.seq, a.seq`,
          ).all(JSON.stringify(keys))
    ) as Array<{
      k: string;
      seq: number;
      op: string;
      op_crc: number;
      answers: number;
      answer: string | null;
      answer_crc: number | null;
    }>;
    const seqs = new Map<string, Set<number>>();
    let last: { seq: number; k: string; answers: number; found: number } | undefined;
    const allAnswersFound = () => {
      if (last && last.found !== last.answers) throw damaged(last.k, 'an answer it counts is missing');
    };
    for (const r of rows) {
      let list = out.get(r.k);
      if (!list) out.set(r.k, (list = []));
      if (r.seq !== last?.seq) {
        allAnswersFound();
        list.push(checked(r.op, r.op_crc, r.k));
        last = { seq: r.seq, k: r.k, answers: Number(r.answers), found: 0 };
        seqs.set(r.k, (seqs.get(r.k) ?? new Set()).add(r.seq));
      }
      if (r.answer !== null) {
        list.push(checked(r.answer, r.answer_crc!, r.k));
        last.found++;
      }
    }
    allAnswersFound();
    this.crossCheck(keys, seqs);
    return out;
  }

  /** The same keys through their digest index: every send found there must be one found by the key's text, and the other way round. */
  private crossCheck(keys: readonly string[], byText: ReadonlyMap<string, Set<number>>): void {
    const digests = keys.map(keyDigest);
    const keyOf = new Map<number, string[]>();
    for (const [i, d] of digests.entries()) keyOf.set(d, [...(keyOf.get(d) ?? []), keys[i]!]);
    const rows = this.stmt(
      `SELECT key_digest AS d, seq FROM operations INDEXED BY operations_by_digest
       WHERE key_digest IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(digests)) as Array<{ d: number; seq: number }>;
    const byDigest = new Map<string, number>();
    for (const r of rows) {
      const ks = keyOf.get(Number(r.d));
      const k = ks?.find((key) => byText.get(key)?.has(r.seq));
      if (k !== undefined) byDigest.set(k, (byDigest.get(k) ?? 0) + 1);
      else if (ks) this.otherKeyOrDamaged(r.seq, ks);
    }
    for (const k of keys)
      if ((byText.get(k)?.size ?? 0) !== (byDigest.get(k) ?? 0)) throw damaged(k, 'its two indexes disagree');
  }

  /** A send the digest index finds and the key's text does not: another key of the same digest (checked whole), else damage. */
  private otherKeyOrDamaged(seq: number, keys: readonly string[]): void {
    const row = this.stmt('SELECT idempotency_key AS k, record, crc FROM operations WHERE seq = ?').get(seq) as
      | { k: string; record: string; crc: number }
      | undefined;
    if (row && !keys.includes(row.k) && checked(row.record, row.crc, row.k)) return; // (checked throws on a damaged one)
    throw damaged(keys[0]!, 'its two indexes disagree');
  }

  /** Keys whose operations' outcomes need the whole fold: several sends of one key, or an answer that learned nothing. */
  keysToFold(): string[] {
    return (
      this.stmt(
        `SELECT idempotency_key AS k FROM operations GROUP BY idempotency_key HAVING count(*) > 1
         UNION SELECT o.idempotency_key FROM answers a JOIN operations o ON o.id = a.op_id
         WHERE a.record LIKE '%"outcome":"unknown"%'`,
      ).all() as Array<{ k: string }>
    ).map((r) => r.k);
  }

  /** Whether any idempotency key starts with `prefix` (one step of the key index). */
  hasKeyStarting(prefix: string): boolean {
    const next = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    return (
      this.stmt('SELECT 1 AS one FROM operations WHERE idempotency_key >= ? AND idempotency_key < ? LIMIT 1').get(
        prefix,
        next,
      ) !== undefined
    );
  }

  keyOf(id: string): string | undefined {
    return (this.stmt('SELECT idempotency_key AS k FROM operations WHERE id = ?').get(id) as { k: string } | undefined)
      ?.k;
  }

  /** Ids starting with `prefix` (up to `limit`). */
  idsWithPrefix(prefix: string, limit: number): string[] {
    // ids are [A-Za-z0-9_.-]: every one that starts with the prefix sorts before prefix + '~'
    return (
      this.stmt('SELECT id FROM operations WHERE id >= ? AND id < ? ORDER BY id LIMIT ?').all(
        prefix,
        `${prefix}~`,
        limit,
      ) as Array<{ id: string }>
    ).map((r) => r.id);
  }

  /**
   * Operations newest first, `limit` at a time, from before `after` (the last one of the page
   * before), within [since, until]; `unknownOnly`: those whose outcome is not known.
   */
  newest(o: {
    after?: { time: string; seq: number };
    since?: string;
    until?: string;
    unknownOnly?: boolean;
    limit: number;
  }): OpRef[] {
    const where = [o.unknownOnly ? 'unknown = 1' : '1 = 1'];
    const args: Array<string | number> = [];
    if (o.after) {
      // a row value: SQLite seeks the index to it (an OR of the two parts scanned it from the top, every page)
      where.push('(time, seq) < (?, ?)');
      args.push(o.after.time, o.after.seq);
    }
    if (o.since !== undefined) where.push('time >= ?'), args.push(o.since);
    if (o.until !== undefined) where.push('time <= ?'), args.push(o.until);
    const index = o.unknownOnly ? 'operations_unknown' : 'operations_by_time';
    return this.stmt(
      `SELECT seq, id, idempotency_key, time FROM operations INDEXED BY ${index}
       WHERE ${where.join(' AND ')} ORDER BY time DESC, seq DESC LIMIT ?`,
    ).all(...args, o.limit) as unknown as OpRef[];
  }

  /** Operations sent since `since`, oldest first, `limit` at a time after `after`: their columns only (the repeat check looks at them before folding any). */
  sentSince(since: string, after: { time: string; seq: number } | undefined, limit: number): SentColumns[] {
    return (after
      ? this.stmt(
          `SELECT seq, id, idempotency_key, time, key_id, method, path, body_sha256 FROM operations INDEXED BY operations_by_time
             WHERE time >= ? AND (time > ? OR (time = ? AND seq > ?)) ORDER BY time, seq LIMIT ?`,
        ).all(since, after.time, after.time, after.seq, limit)
      : this.stmt(
          `SELECT seq, id, idempotency_key, time, key_id, method, path, body_sha256 FROM operations INDEXED BY operations_by_time
             WHERE time >= ? ORDER BY time, seq LIMIT ?`,
        ).all(since, limit)) as unknown as SentColumns[];
  }

  /** Resolved, not yet compacted operations older than `before`, oldest first (retention's work). */
  resolvedBefore(before: string, limit: number): OpRef[] {
    return this.stmt(
      `SELECT seq, id, idempotency_key, time FROM operations INDEXED BY operations_by_time
       WHERE time < ? AND unknown = 0 AND compacted = 0 ORDER BY time, seq LIMIT ?`,
    ).all(before, limit) as unknown as OpRef[];
  }

  isEmpty(): boolean {
    return this.stmt('SELECT 1 AS one FROM operations LIMIT 1').get() === undefined;
  }

  count(unknownOnly = false): number {
    const sql = unknownOnly
      ? 'SELECT count(*) AS n FROM operations WHERE unknown = 1'
      : 'SELECT count(*) AS n FROM operations';
    return Number((this.stmt(sql).get() as { n: number }).n);
  }

  oldestTime(): string | undefined {
    return (this.stmt('SELECT min(time) AS t FROM operations').get() as { t: string | null }).t ?? undefined;
  }

  addUnreadable(source: string, why: string, text: string): void {
    this.stmt('INSERT INTO unreadable (source, why, text) VALUES (?, ?, ?)').run(source, why, text);
  }

  unreadable(): Array<{ source: string; why: string; text: string }> {
    return this.stmt('SELECT source, why, text FROM unreadable ORDER BY seq').all() as Array<{
      source: string;
      why: string;
      text: string;
    }>;
  }

  unreadableCount(): number {
    return Number((this.stmt('SELECT count(*) AS n FROM unreadable').get() as { n: number }).n);
  }

  clearUnreadable(): number {
    return Number(this.stmt('DELETE FROM unreadable').run().changes);
  }

  meta(name: string): string | undefined {
    return (this.stmt('SELECT value FROM meta WHERE name = ?').get(name) as { value: string } | undefined)?.value;
  }

  setMeta(name: string, value: string, replace = true): void {
    this.stmt(
      replace
        ? 'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'
        : 'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
    ).run(name, value);
  }

  /** The database's size in bytes (its pages, wherever they are now: the file or the WAL). */
  bytes(): number {
    const pages = Number((this.db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count);
    const size = Number((this.db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    return pages * size;
  }

  /** SQLite's own check of the file (every page, every index entry): 'ok', or what is wrong. */
  quickCheck(): string[] {
    return (this.db.prepare('PRAGMA quick_check').all() as Array<{ quick_check: string }>).map((r) => r.quick_check);
  }

  /** How long a writer waits for another's transaction (a takeover of a large old journal takes longer than a send). */
  setBusyTimeout(ms: number): void {
    this.db.exec(`PRAGMA busy_timeout = ${Math.floor(ms)}`);
  }

  close(): void {
    if (this.open) this.db.close();
    this.open = false;
  }
}
