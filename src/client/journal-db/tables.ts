// The journal's statements, the same on both engines (src/client/journal-db/sql.ts): the local
// SQLite file (sqlite.ts) and a PostgreSQL shared by a fleet (postgres.ts). Statements only: what
// the records mean is src/client/journal-db/records.ts, the rules are the money protocol's.
//
// Every read of a key's history checks what it reads (schema.ts): each record against its CRC-32,
// each operation's answers against its count, and the key's sends found by its text against those
// found by its digest. A damaged byte hits one page, so one of the two still finds every send, and
// the two disagreeing refuses the money command (measured on SQLite: docs/journal.md, "Damage").
import { hash } from 'node:crypto';
import { crc32 } from './checksum.js';
import { parseRecord, type RawRecord } from './records.js';
import type { SqlRunner } from './sql.js';

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

/** What the repeat check looks at of a send before folding its records. */
export interface SentColumns extends OpRef {
  key_id: string | null;
  method: string;
  path: string;
  body_sha256: string;
}

/** A key's second way in (its own index): 52 bits of its SHA-256. */
export const keyDigest = (key: string): number => Number.parseInt(hash('sha256', key, 'hex').slice(0, 13), 16); // one-shot: no Hash object a key

/** The columns an operation is looked up by, from its record (an op or a compacted op), in the tables' order: id, idempotency_key, key_digest, time, key_id, method, path, body_sha256. */
export function lookupColumns(r: RawRecord): Array<string | number | null> {
  const key = r.idempotency_key as string;
  return [
    r.id,
    key,
    keyDigest(key),
    r.time as string,
    (r.key_id as string | undefined) ?? null,
    r.method as string,
    r.path as string,
    r.body_sha256 as string,
  ];
}

/** A stored record parsed and its shape checked against its CRC-32: a damaged one is said, never read as another or skipped. */
function checked(text: string, crc: number, key: string): RawRecord {
  if (crc32(text) !== Number(crc)) throw damaged(key, 'its checksum does not match');
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

/** A row of HISTORY: an operation, and one of its answers (null, null, null: none), as an array of its columns. */
type HistoryRow = [
  k: string,
  seq: number,
  id: string,
  op: string,
  opCrc: number,
  answers: number,
  unknown: number,
  answer: string | null,
  answerCrc: number | null,
  answerSeq: number | null,
];

// without ORDER BY: the rows are put in order here (sorting them with their records in SQLite cost
// a quarter of the statement), and arrays, not an object a row
const HISTORY = `SELECT o.idempotency_key, o.seq, o.id, o.record, o.crc, o.answers, o.unknown, a.record, a.crc, a.seq
  FROM operations o INDEXED BY operations_by_key LEFT JOIN answers a ON a.op_id = o.id`;

/** The order the records were written: each operation's, then its answers. */
const writtenOrder = (a: HistoryRow, b: HistoryRow): number => a[1] - b[1] || (a[9] ?? -1) - (b[9] ?? -1);

function inWrittenOrder(rows: HistoryRow[]): HistoryRow[] {
  for (let i = 1; i < rows.length; i++) if (writtenOrder(rows[i - 1]!, rows[i]!) > 0) return rows.sort(writtenOrder);
  return rows;
}

/** Rows a statement of putPage writes at most (12 values each: far below either engine's limit). */
const PAGE_ROWS = 256;

export class JournalTables {
  constructor(protected readonly q: SqlRunner) {}

  get engine() {
    return this.q.engine;
  }

  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.q.transaction(fn);
  }

  /** Returns whether the row is new (an operation already there, by its id, is kept as it is). */
  async insertOp(row: OpRow, unknown = true): Promise<boolean> {
    const changes = await this.q.run(
      `INSERT INTO operations (id, idempotency_key, key_digest, time, key_id, method, path, body_sha256, unknown, record, crc)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      [
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
      ],
    );
    if (changes > 0) this.sawOp(row.time);
    return changes > 0;
  }

  /**
   * An answer or resolution after its operation (the same record twice is kept once: a takeover or
   * copy run again adds nothing); the operation counts its answers. Two statements. Returns the
   * operation's idempotency key, or undefined when the journal has no such operation.
   */
  async insertAnswer(opId: string, record: string): Promise<string | undefined> {
    const crc = crc32(record);
    const added = await this.q.run(
      `INSERT INTO answers (op_id, record, crc) SELECT ?, ?, ?
       WHERE EXISTS (SELECT 1 FROM operations WHERE id = ?)
         AND NOT EXISTS (SELECT 1 FROM answers WHERE op_id = ? AND crc = ? AND record = ?)`,
      [opId, record, crc, opId, opId, crc, record],
    );
    if (added === 0) return this.keyOf(opId);
    // an operation with an answer is known until its fold says otherwise (the journal refolds its key after)
    const row = await this.q.get<{ k: string }>(
      'UPDATE operations SET answers = answers + 1, unknown = 0 WHERE id = ? RETURNING idempotency_key AS k',
      [opId],
    );
    return row?.k;
  }

  /** Marks these operations unknown or known (one statement each way, whatever their number). */
  async setUnknown(unknown: readonly string[], known: readonly string[]): Promise<void> {
    for (const [ids, u] of [
      [unknown, 1],
      [known, 0],
    ] as const)
      if (ids.length)
        await this.q.run(
          'UPDATE operations SET unknown = ? WHERE id IN (SELECT value FROM json_each(?)) AND unknown <> ?',
          [u, JSON.stringify(ids), u],
        );
  }

  /**
   * A page of records read from another journal (`ops copy`), in a few statements whatever its
   * size: its operations in one (those already there, by id, kept as they are), its answers in
   * another (each kept once), then each operation's count of answers. The caller refolds the
   * page's keys after. Returns how many operations were new.
   */
  async putPage(records: ReadonlyArray<{ r: RawRecord; text: string }>): Promise<number> {
    this.oldestRead = undefined; // older operations may come in: the next oldestTime() asks
    const ops = records.filter(({ r }) => r.type === 'op' || r.type === 'compact');
    const answers = records.filter(({ r }) => r.type === 'outcome' || r.type === 'resolution');
    let added = 0;
    for (let i = 0; i < ops.length; i += PAGE_ROWS) {
      const page = ops.slice(i, i + PAGE_ROWS);
      added += await this.q.run(
        `INSERT INTO operations (id, idempotency_key, key_digest, time, key_id, method, path, body_sha256, unknown, compacted, record, crc)
         VALUES ${page.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')} ON CONFLICT (id) DO NOTHING`,
        page.flatMap(({ r, text }) => {
          const compact = r.type === 'compact' ? 1 : 0;
          return [...lookupColumns(r), 1 - compact, compact, text, crc32(text)];
        }),
      );
    }
    // the answers these operations already have (one look-up through their index), so each is added once
    const ids = [...new Set(answers.map(({ r }) => r.id))];
    const had = new Set<string>();
    for (let i = 0; i < ids.length; i += PAGE_ROWS)
      for (const a of await this.q.all<{ op_id: string; crc: number; record: string }>(
        'SELECT op_id, crc, record FROM answers WHERE op_id IN (SELECT value FROM json_each(?))',
        [JSON.stringify(ids.slice(i, i + PAGE_ROWS))],
      ))
        had.add(`${a.op_id}\u0000${Number(a.crc)}\u0000${a.record}`);
    const fresh = answers
      .map(({ r, text }) => ({ id: r.id, text, crc: crc32(text) }))
      .filter((a) => !had.has(`${a.id}\u0000${a.crc}\u0000${a.text}`));
    for (let i = 0; i < fresh.length; i += PAGE_ROWS) {
      const page = fresh.slice(i, i + PAGE_ROWS);
      await this.q.run(
        `INSERT INTO answers (op_id, record, crc) VALUES ${page.map(() => '(?, ?, ?)').join(', ')}`,
        page.flatMap((a) => [a.id, a.text, a.crc]),
      );
    }
    if (ids.length)
      await this.q.run(
        `UPDATE operations SET answers = (SELECT count(*) FROM answers a WHERE a.op_id = operations.id)
         WHERE id IN (SELECT value FROM json_each(?)) AND compacted = 0`,
        [JSON.stringify(ids)],
      );
    return added;
  }

  /** Retention: an operation's record replaced by its compacted form, its answers dropped (folded into it). */
  async compactOp(id: string, record: string, dropAnswers = true): Promise<void> {
    await this.q.run(
      'UPDATE operations SET record = ?, crc = ?, compacted = 1, unknown = 0, answers = 0 WHERE id = ?',
      [record, crc32(record), id],
    );
    if (dropAnswers) await this.q.run('DELETE FROM answers WHERE op_id = ?', [id]);
  }

  /**
   * Every record of these keys' operations: each operation's, then its answers in the order
   * written. Each key is found through both of its indexes (the two queries sent at once: one
   * round trip to a shared journal); where they disagree (a damaged page), the key's history cannot
   * be known and this throws, naming the key. `unknownNow`: each operation's unknown mark as stored.
   */
  async recordsOfKeys(keys: readonly string[], unknownNow?: Map<string, boolean>): Promise<Map<string, RawRecord[]>> {
    const out = new Map<string, RawRecord[]>();
    if (keys.length === 0) return out;
    const digests = keys.map(keyDigest);
    const [rows, byDigest] = await Promise.all([
      keys.length === 1
        ? this.q.values<HistoryRow>(`${HISTORY} WHERE o.idempotency_key = ?`, [keys[0]!])
        : this.q.values<HistoryRow>(`${HISTORY} WHERE o.idempotency_key IN (SELECT value FROM json_each(?))`, [
            JSON.stringify(keys),
          ]),
      this.q.values<[d: number, seq: number]>(
        `SELECT key_digest, seq FROM operations INDEXED BY operations_by_digest
         WHERE key_digest IN (SELECT CAST(value AS BIGINT) FROM json_each(?))`,
        [JSON.stringify(digests)],
      ),
    ]);
    /** each send found by its key's text: its key */
    const keyOfSeq = new Map<number, string>();
    let last: { seq: number; k: string; answers: number; found: number } | undefined;
    const allAnswersFound = () => {
      if (last && last.found !== last.answers) throw damaged(last.k, 'an answer it counts is missing');
    };
    for (const [k, seq, id, op, opCrc, answers, unknown, answer, answerCrc] of inWrittenOrder(rows)) {
      let list = out.get(k);
      if (!list) out.set(k, (list = []));
      if (seq !== last?.seq) {
        allAnswersFound();
        list.push(checked(op, opCrc, k));
        unknownNow?.set(id, Number(unknown) === 1);
        last = { seq, k, answers: Number(answers), found: 0 };
        keyOfSeq.set(seq, k);
      }
      if (answer !== null) {
        list.push(checked(answer, answerCrc!, k));
        last.found++;
      }
    }
    allAnswersFound();
    await this.crossCheck(keys, digests, keyOfSeq, byDigest);
    return out;
  }

  /** The same keys through their digest index: every send found there must be one found by the key's text, and the other way round. */
  private async crossCheck(
    keys: readonly string[],
    digests: readonly number[],
    byText: ReadonlyMap<number, string>,
    rows: ReadonlyArray<[d: number, seq: number]>,
  ): Promise<void> {
    const digestOf = new Map<string, number>();
    for (const [i, k] of keys.entries()) digestOf.set(k, digests[i]!);
    /** sends found by text less those found by digest, by key: 0 for every key when the two indexes agree */
    const unmatched = new Map<string, number>();
    for (const k of byText.values()) unmatched.set(k, (unmatched.get(k) ?? 0) + 1);
    for (const [d, seq] of rows) {
      const k = byText.get(Number(seq));
      if (k !== undefined && digestOf.get(k) === Number(d)) unmatched.set(k, unmatched.get(k)! - 1);
      else {
        const same = keys.filter((_, i) => digests[i] === Number(d));
        if (same.length > 0) await this.otherKeyOrDamaged(Number(seq), same);
      }
    }
    for (const [k, n] of unmatched) if (n !== 0) throw damaged(k, 'its two indexes disagree');
  }

  /** A send the digest index finds and the key's text does not: another key of the same digest (checked whole), else damage. */
  private async otherKeyOrDamaged(seq: number, keys: readonly string[]): Promise<void> {
    const row = await this.q.get<{ k: string; record: string; crc: number }>(
      'SELECT idempotency_key AS k, record, crc FROM operations WHERE seq = ?',
      [seq],
    );
    if (row && !keys.includes(row.k) && checked(row.record, row.crc, row.k)) return; // (checked throws on a damaged one)
    throw damaged(keys[0]!, 'its two indexes disagree');
  }

  /**
   * Whether any idempotency key is `prefix` followed by a decimal number (what the version before
   * gave a batch's rows: `P-ROW`): one walk of the key index over the keys after `prefix` whose
   * first character is a digit, at most `maxDigits` after it (today's keys there, `P-<16 hex>-<n>`,
   * are longer). Another key that fits the pattern says yes: the caller then looks at every row's.
   */
  async hasNumberedKey(prefix: string, maxDigits: number): Promise<boolean> {
    return (
      (await this.q.get(
        'SELECT 1 AS one FROM operations WHERE idempotency_key >= ? AND idempotency_key < ? AND length(idempotency_key) <= ? LIMIT 1',
        [`${prefix}0`, `${prefix}:`, prefix.length + maxDigits], // ':' follows '9'
      )) !== undefined
    );
  }

  async keyOf(id: string): Promise<string | undefined> {
    return (await this.q.get<{ k: string }>('SELECT idempotency_key AS k FROM operations WHERE id = ?', [id]))?.k;
  }

  /** Ids starting with `prefix` (up to `limit`). */
  async idsWithPrefix(prefix: string, limit: number): Promise<string[]> {
    // ids are [A-Za-z0-9_.-]: every one that starts with the prefix sorts before prefix + '~' (byte order: the columns are COLLATE "C" on PostgreSQL)
    const rows = await this.q.all<{ id: string }>(
      'SELECT id FROM operations WHERE id >= ? AND id < ? ORDER BY id LIMIT ?',
      [prefix, `${prefix}~`, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Operations newest first, `limit` at a time, from before `after` (the last one of the page
   * before), within [since, until]; `unknownOnly`: those whose outcome is not known.
   */
  async newest(o: {
    after?: { time: string; seq: number };
    since?: string;
    until?: string;
    unknownOnly?: boolean;
    limit: number;
  }): Promise<OpRef[]> {
    const where = [o.unknownOnly ? 'unknown = 1' : '1 = 1'];
    const args: Array<string | number> = [];
    if (o.after) {
      // a row value: the index is sought to it (an OR of the two parts scanned it from the top, every page)
      where.push('(time, seq) < (?, ?)');
      args.push(o.after.time, o.after.seq);
    }
    if (o.since !== undefined) where.push('time >= ?'), args.push(o.since);
    if (o.until !== undefined) where.push('time <= ?'), args.push(o.until);
    const index = o.unknownOnly ? 'operations_unknown' : 'operations_by_time';
    return await this.q.all<OpRef>(
      `SELECT seq, id, idempotency_key, time FROM operations INDEXED BY ${index}
       WHERE ${where.join(' AND ')} ORDER BY time DESC, seq DESC LIMIT ?`,
      [...args, o.limit],
    );
  }

  /** Operations sent since `since`, oldest first, `limit` at a time after `after`: their columns only (the repeat check looks at them before folding any). */
  async sentSince(
    since: string,
    after: { time: string; seq: number } | undefined,
    limit: number,
  ): Promise<SentColumns[]> {
    const columns = 'seq, id, idempotency_key, time, key_id, method, path, body_sha256';
    return after
      ? await this.q.all<SentColumns>(
          `SELECT ${columns} FROM operations INDEXED BY operations_by_time
             WHERE time >= ? AND (time, seq) > (?, ?) ORDER BY time, seq LIMIT ?`,
          [since, after.time, after.seq, limit],
        )
      : await this.q.all<SentColumns>(
          `SELECT ${columns} FROM operations INDEXED BY operations_by_time WHERE time >= ? ORDER BY time, seq LIMIT ?`,
          [since, limit],
        );
  }

  /** The idempotency keys of the operations sent since `since`, oldest first, `limit` at a time after `after` (as arrays: the repeat check looks at a day's sends). */
  async sentKeysSince(
    since: string,
    after: { time: string; seq: number } | undefined,
    limit: number,
  ): Promise<Array<[time: string, seq: number, key: string]>> {
    return after
      ? await this.q.values(
          `SELECT time, seq, idempotency_key FROM operations INDEXED BY operations_by_time
             WHERE time >= ? AND (time, seq) > (?, ?) ORDER BY time, seq LIMIT ?`,
          [since, after.time, after.seq, limit],
        )
      : await this.q.values(
          `SELECT time, seq, idempotency_key FROM operations INDEXED BY operations_by_time WHERE time >= ? ORDER BY time, seq LIMIT ?`,
          [since, limit],
        );
  }

  /** Resolved, not yet compacted operations older than `before`, oldest first (retention's work). */
  async resolvedBefore(before: string, limit: number): Promise<OpRef[]> {
    return await this.q.all<OpRef>(
      `SELECT seq, id, idempotency_key, time FROM operations INDEXED BY operations_by_time
       WHERE time < ? AND unknown = 0 AND compacted = 0 ORDER BY time, seq LIMIT ?`,
      [before, limit],
    );
  }

  /** Operations after `afterSeq` in the order written, `limit` at a time (`ops copy` reads the whole journal this way). */
  async opsAfter(afterSeq: number, limit: number): Promise<Array<{ seq: number; idempotency_key: string }>> {
    return await this.q.all('SELECT seq, idempotency_key FROM operations WHERE seq > ? ORDER BY seq LIMIT ?', [
      afterSeq,
      limit,
    ]);
  }

  async isEmpty(): Promise<boolean> {
    return (await this.q.get('SELECT 1 AS one FROM operations LIMIT 1')) === undefined;
  }

  async count(unknownOnly = false): Promise<number> {
    const sql = unknownOnly
      ? 'SELECT count(*) AS n FROM operations WHERE unknown = 1'
      : 'SELECT count(*) AS n FROM operations';
    return Number((await this.q.get<{ n: number }>(sql))!.n);
  }

  /** The first send time of the oldest operation (sent at or after `from`, when given). */
  async oldestTime(from?: string): Promise<string | undefined> {
    if (this.oldestRead !== undefined && from === this.known.get('compacted_before'))
      return this.oldestRead ?? undefined;
    return (
      (from === undefined
        ? await this.q.get<{ t: string | null }>('SELECT min(time) AS t FROM operations')
        : await this.q.get<{ t: string | null }>('SELECT min(time) AS t FROM operations WHERE time >= ?', [from]))!.t ??
      undefined
    );
  }

  async addUnreadable(source: string, why: string, text: string): Promise<void> {
    await this.q.run('INSERT INTO unreadable (source, why, text) VALUES (?, ?, ?)', [source, why, text]);
  }

  async unreadable(): Promise<Array<{ source: string; why: string; text: string }>> {
    return await this.q.all('SELECT source, why, text FROM unreadable ORDER BY seq');
  }

  async unreadableCount(): Promise<number> {
    return Number((await this.q.get<{ n: number }>('SELECT count(*) AS n FROM unreadable'))!.n);
  }

  async clearUnreadable(): Promise<number> {
    return await this.q.run('DELETE FROM unreadable');
  }

  /** The meta rows as last read (metaAll) and written here since: what a command asks of them without a statement. */
  known = new Map<string, string>();

  /** oldestTime() as it was when the meta rows were read (null: no operation), until a compaction marks the journal again */
  private oldestRead: string | null | undefined;

  /** An operation recorded here: the oldest one known may be it (a copy or a test records old ones). */
  private sawOp(time: string): void {
    if (this.oldestRead === undefined || time < (this.known.get('compacted_before') ?? '')) return;
    if (this.oldestRead === null || time < this.oldestRead) this.oldestRead = time;
  }

  /**
   * Every meta row (a handful), read once when a journal opens, and in the same statement the
   * oldest operation not yet past a compaction (what retention asks at the command's end).
   */
  async metaAll(): Promise<Map<string, string>> {
    const rows = await this.q.all<{ name: string; value: string | null }>(
      `SELECT name, value FROM meta UNION ALL
       SELECT '', min(time) FROM operations WHERE time >= COALESCE((SELECT value FROM meta WHERE name = 'compacted_before'), '')`,
    );
    this.oldestRead = rows.find((r) => r.name === '')?.value ?? null;
    this.known = new Map(rows.filter((r) => r.name !== '').map((r) => [r.name, r.value ?? '']));
    return this.known;
  }

  async meta(name: string): Promise<string | undefined> {
    return (await this.q.get<{ value: string }>('SELECT value FROM meta WHERE name = ?', [name]))?.value;
  }

  /** Returns whether it wrote the row (`replace` false: only when there was none). */
  async setMeta(name: string, value: string, replace = true): Promise<boolean> {
    const changed = await this.q.run(
      replace
        ? 'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value'
        : 'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
      [name, value],
    );
    if (changed > 0) this.known.set(name, value);
    if (name === 'compacted_before') this.oldestRead = undefined;
    return changed > 0;
  }

  /** The engine's statistics of the tables brought up to date (after a bulk load). */
  async analyze(): Promise<void> {
    await this.q.exec(this.q.engine === 'postgres' ? 'ANALYZE operations, answers' : 'ANALYZE');
  }

  close(): Promise<void> {
    return this.q.close();
  }
}
