// The takeover's writing of an older file journal's records into the database's tables, inside
// the takeover's one transaction, straight on node:sqlite (src/client/journal-db/takeover.ts
// gives it the records its reader thread read from the old files, in the order read). Each
// operation is held a moment (WINDOW) so that the answers written just after it are counted with
// it, then written with them in statements of many rows, its count of answers and whether its
// outcome is known (no answer: unknown) set once.
//
// Into an empty journal (every first run of this version), the tables are loaded without the
// indexes that would take each row in a random place (the ids, the keys, their digests, the
// answers' operations; the times too when the records do not come in their order) and those are
// made once the rows are in: sorting once is much faster than inserting into them row by row
// (measured at a million operations: 33 s against 71 s, the ids' unique index most of it). Which
// operations are written is then known here (OpIds), and what comes for an operation already
// written (an answer later than the window, its compacted form) is applied once the indexes are
// made. Into a journal that already holds operations (a backup of the old files restored beside
// it), each record is looked up first, so that running a takeover again adds nothing twice.
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { BatchSink } from './record-batches.js';
import { indexSql } from './schema.js';
import { OpIds } from './seen-records.js';
import type { SqlValue } from './sql.js';

/** Operations held before they are written (an answer within this many operations after its own is counted in memory). */
const WINDOW = 512;
/** Rows of one INSERT (13 values an operation, 3 an answer: far below SQLite's 32,766 variables). */
const OP_ROWS = 64;
const ANSWER_ROWS = 128;
/** Ids a statement of the end's corrections names at most. */
const IDS_PAGE = 1000;

/** The indexes an empty journal is loaded without, and which are made once its rows are in. */
const MADE_AFTER = ['operations_by_id', 'operations_by_key', 'operations_by_digest', 'answers_by_op'];
/** Made after too when the records do not come in the order of their times (the folder journal's key buckets). */
const BY_TIME = 'operations_by_time';

interface Answer {
  text: string;
  crc: number;
}

/** An operation read and not yet written: its columns (lookupColumns': its id first, then its key), its record, the answers read since. */
interface HeldOp {
  columns: SqlValue[];
  text: string;
  crc: number;
  compacted: boolean;
  answers: Answer[];
}

const OP_COLUMNS =
  '(id, idempotency_key, key_digest, time, key_id, method, path, body_sha256, unknown, compacted, answers, record, crc)';
const OP_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** The values of an operation's row, in OP_COLUMNS' order. */
function opValues(o: HeldOp): SqlValue[] {
  const answers = o.compacted ? 0 : o.answers.length;
  return [...o.columns, o.compacted || answers > 0 ? 0 : 1, o.compacted ? 1 : 0, answers, o.text, o.crc];
}

const idOf = (o: HeldOp): string => o.columns[0] as string;
const keyOf = (o: HeldOp): string => o.columns[1] as string;

/** The rows of the records read (a BatchSink's operations and answers: the caller counts what it reads). */
export class TakeoverLoad implements Pick<BatchSink, 'op' | 'answer'> {
  /** keys whose operations' outcomes need the whole fold (an answer that learned nothing, ...); keys sent several times are added at the end */
  private readonly foldKeys = new Set<string>();
  private readonly held = new Map<string, HeldOp>();
  /** the held operations in the order read (a Map's oldest entries, deleted from its front, are slow to find again) */
  private readonly order: HeldOp[] = [];
  private readonly answerRows: Array<string | number> = [];
  private readonly st: Record<string, StatementSync> = {};
  private readonly dropped: string[] = [];
  /** (into an empty journal) the operations written */
  private readonly written = new OpIds();
  /** operations given answers after they were written: their counts made again at the end */
  private readonly recount = new Set<string>();
  /** (into an empty journal) compacted forms of operations already written, applied at the end */
  private readonly lateCompacts: Array<{ id: string } & Answer> = [];

  /** `fresh`: the journal holds nothing yet; `timeOrdered`: the records come in the order of their times. */
  constructor(
    private readonly db: DatabaseSync,
    private readonly fresh: boolean,
    timeOrdered: boolean,
  ) {
    if (!fresh) return;
    for (const name of timeOrdered ? MADE_AFTER : [...MADE_AFTER, BY_TIME]) {
      db.exec(`DROP INDEX IF EXISTS ${name}`);
      this.dropped.push(name);
    }
  }

  private stmt(sql: string): StatementSync {
    let s = this.st[sql];
    if (!s) s = this.st[sql] = this.db.prepare(sql);
    return s;
  }

  /** An operation (or its compacted form) as read from the old files: its columns, its text as it will be stored, its CRC-32. */
  op(columns: SqlValue[], compact: boolean, text: string, crc: number): void {
    const id = columns[0] as string;
    const held = this.held.get(id);
    // the same operation again is kept as it was first read, unless this is its compacted form (which stands for it and its answers)
    if (held) {
      if (compact) Object.assign(held, { columns, text, crc, compacted: true, answers: [] });
      return;
    }
    if (this.isWritten(id)) {
      if (compact) this.compactWritten(id, { text, crc });
      return;
    }
    const op: HeldOp = { columns, text, crc, compacted: compact, answers: [] };
    this.held.set(id, op);
    this.order.push(op);
    if (this.order.length >= WINDOW) this.writeOldest(WINDOW / 4);
  }

  /** An answer (or a person's resolution) as read; `learnedNothing`: an outcome `unknown`. */
  answer(id: string, learnedNothing: boolean, text: string, crc: number): void {
    const a: Answer = { text, crc };
    const held = this.held.get(id);
    if (held) {
      if (held.compacted || held.answers.some((b) => b.crc === a.crc && b.text === a.text)) return; // stood for, or read twice
      held.answers.push(a);
      if (learnedNothing) this.foldKeys.add(keyOf(held));
      return;
    }
    // an answer of an operation written already (or of one not read yet, or of none: kept, as the old file had it)
    if (
      !this.fresh &&
      this.stmt('SELECT 1 AS one FROM answers WHERE op_id = ? AND crc = ? AND record = ?').get(id, a.crc, a.text)
    )
      return; // there already (a takeover run again)
    this.answerRows.push(id, a.text, a.crc);
    this.recount.add(id);
    if (!this.fresh || this.answerRows.length >= 3 * ANSWER_ROWS) this.writeAnswers(); // (looked up by the next one)
  }

  private isWritten(id: string): boolean {
    return this.fresh
      ? this.written.has(id)
      : this.stmt('SELECT 1 AS one FROM operations WHERE id = ?').get(id) !== undefined;
  }

  /** The compacted form of an operation already written replaces its record, its answers dropped (into an empty journal: at the end, once the ids' index is made). */
  private compactWritten(id: string, a: Answer): void {
    if (this.fresh) this.lateCompacts.push({ id, ...a });
    else {
      this.writeAnswers();
      this.applyCompact(id, a);
    }
  }

  private applyCompact(id: string, a: Answer): void {
    this.stmt('UPDATE operations SET record = ?, crc = ?, compacted = 1, unknown = 0, answers = 0 WHERE id = ?').run(
      a.text,
      a.crc,
      id,
    );
    this.stmt('DELETE FROM answers WHERE op_id = ?').run(id);
  }

  /** Writes the `n` operations held longest, with their answers. */
  private writeOldest(n: number): void {
    const ops = this.order.splice(0, n);
    for (const o of ops) this.held.delete(idOf(o));
    for (let i = 0; i < ops.length; i += OP_ROWS) {
      const page = ops.slice(i, i + OP_ROWS);
      this.stmt(`INSERT INTO operations ${OP_COLUMNS} VALUES ${page.map(() => OP_VALUES).join(', ')}`).run(
        ...page.flatMap(opValues),
      );
    }
    for (const o of ops) {
      if (this.fresh) this.written.add(idOf(o));
      else this.recount.add(idOf(o)); // answers of it may be there from before (read before it, in an earlier takeover)
      for (const a of o.answers) this.answerRows.push(idOf(o), a.text, a.crc);
      if (this.answerRows.length >= 3 * ANSWER_ROWS) this.writeAnswers();
    }
  }

  private writeAnswers(): void {
    const rows = this.answerRows;
    let i = 0;
    if (rows.length >= 3 * ANSWER_ROWS) {
      const many = this.stmt(
        `INSERT INTO answers (op_id, record, crc) VALUES ${Array(ANSWER_ROWS).fill('(?, ?, ?)').join(', ')}`,
      );
      for (; i + 3 * ANSWER_ROWS <= rows.length; i += 3 * ANSWER_ROWS) many.run(...rows.slice(i, i + 3 * ANSWER_ROWS));
    }
    const one = this.stmt('INSERT INTO answers (op_id, record, crc) VALUES (?, ?, ?)');
    for (; i < rows.length; i += 3) one.run(rows[i]!, rows[i + 1]!, rows[i + 2]!);
    rows.length = 0;
  }

  /**
   * Writes what is still held and makes the indexes dropped; applies the compacted forms read
   * late; counts again the answers of the operations given some after they were written. Returns
   * the keys whose outcomes need the whole fold: those sent several times, those with an answer
   * that learned nothing, those whose answers were counted again.
   */
  finish(): string[] {
    this.writeOldest(this.order.length);
    this.writeAnswers();
    for (const name of this.dropped) this.db.exec(indexSql('sqlite', name));
    for (const c of this.lateCompacts) this.applyCompact(c.id, c);
    const ids = [...this.recount];
    for (let i = 0; i < ids.length; i += IDS_PAGE) this.countAgain(JSON.stringify(ids.slice(i, i + IDS_PAGE)));
    for (const row of this.db
      .prepare(
        'SELECT idempotency_key AS k FROM operations INDEXED BY operations_by_key GROUP BY idempotency_key HAVING count(*) > 1',
      )
      .all() as Array<{ k: string }>)
      this.foldKeys.add(row.k);
    return [...this.foldKeys];
  }

  /** These operations' answers counted again (a compacted one's dropped: it stands for them), their keys to be folded. */
  private countAgain(idsJson: string): void {
    const these = 'id IN (SELECT value FROM json_each(?))';
    this.db
      .prepare(`DELETE FROM answers WHERE op_id IN (SELECT id FROM operations WHERE compacted = 1 AND ${these})`)
      .run(idsJson);
    this.db
      .prepare(
        `UPDATE operations SET answers = (SELECT count(*) FROM answers a WHERE a.op_id = operations.id)
         WHERE compacted = 0 AND ${these}`,
      )
      .run(idsJson);
    this.db.prepare(`UPDATE operations SET unknown = 0 WHERE answers > 0 AND ${these}`).run(idsJson);
    for (const row of this.db
      .prepare(`SELECT idempotency_key AS k FROM operations WHERE ${these}`)
      .all(idsJson) as Array<{
      k: string;
    }>)
      this.foldKeys.add(row.k);
  }
}
