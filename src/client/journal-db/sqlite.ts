// The journal's tables in one SQLite file (node:sqlite, built into Node from 22.13): WAL, so
// readers never wait for a writer; synchronous=FULL, so a commit is on disk (the WAL synced) when
// it returns, which is what "recorded before the request's first byte" needs; a busy timeout, so
// two processes writing at once wait for each other instead of failing. The statements are
// tables.ts's, the same on PostgreSQL; here is what only SQLite has: the file, its pragmas and
// check, and the takeover of an old file journal (takeover.ts, straight on the connection).
import { dirname } from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { schemaSql, SCHEMA_VERSION } from './schema.js';
import type { SqlRunner, SqlValue } from './sql.js';
import { JournalTables } from './tables.js';
import { oldJournals } from './old-journals.js';
import type { TakeoverReport } from './takeover.js';

export type { OpRef, OpRow, SentColumns } from './tables.js';
export { keyDigest } from './tables.js';

/** How long a writer waits for another process's transaction before SQLite says busy. */
const BUSY_TIMEOUT_MS = 15_000;
/** How long a process waits for another taking over the old journals beside it. */
const TAKEOVER_WAIT_MS = 10 * 60_000;

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

/** One node:sqlite connection, its statements prepared once. */
class SqliteRunner implements SqlRunner {
  readonly engine = 'sqlite';
  private readonly st: Record<string, StatementSync> = {};
  /** the same statements answering arrays (values()) */
  private readonly arrays: Record<string, StatementSync> = {};
  private open = true;

  constructor(readonly db: DatabaseSync) {}

  private stmt(sql: string): StatementSync {
    let s = this.st[sql];
    if (!s) s = this.st[sql] = this.db.prepare(sql);
    return s;
  }

  // node:sqlite answers at once: each call is the statement run now, its answer already settled
  async all<T>(sql: string, args: readonly SqlValue[] = []): Promise<T[]> {
    return this.stmt(sql).all(...args) as T[];
  }

  async values<T extends unknown[]>(sql: string, args: readonly SqlValue[] = []): Promise<T[]> {
    let s = this.arrays[sql];
    if (!s) {
      s = this.arrays[sql] = this.db.prepare(sql);
      s.setReturnArrays(true);
    }
    return s.all(...args) as unknown as T[];
  }

  async get<T>(sql: string, args: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.stmt(sql).get(...args) as T | undefined;
  }

  async run(sql: string, args: readonly SqlValue[] = []): Promise<number> {
    return Number(this.stmt(sql).run(...args).changes);
  }

  async exec(sql: string): Promise<void> {
    this.db.exec(sql);
  }

  /** BEGIN IMMEDIATE: the write lock from the start (no deadlock between two writers). */
  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const out = await fn();
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

  async close(): Promise<void> {
    if (this.open) this.db.close();
    this.open = false;
  }
}

export class SqliteJournal extends JournalTables {
  private readonly db: DatabaseSync;

  constructor(readonly file: string) {
    const db = new DatabaseSync(file);
    super(new SqliteRunner(db));
    this.db = db;
    try {
      // beside old journals another process may be taking them over (in a rollback journal, its lock held throughout): wait for it
      this.db.exec(`PRAGMA busy_timeout = ${oldJournals(dirname(file)).length ? TAKEOVER_WAIT_MS : BUSY_TIMEOUT_MS}`);
      this.db.exec('PRAGMA journal_mode = WAL');
      this.db.exec('PRAGMA synchronous = FULL');
      this.migrate();
      this.setBusyTimeout(BUSY_TIMEOUT_MS);
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
    // at open, before any call of the journal's: synchronous, as the opening is
    this.db.exec('BEGIN IMMEDIATE');
    try {
      this.db.exec(schemaSql('sqlite'));
      this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      this.db
        .prepare('INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING')
        .run('created_at', new Date().toISOString());
      this.db.exec('COMMIT');
    } catch (err) {
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // SQLite rolled it back itself
      }
      throw err;
    }
  }

  /**
   * Takes over the older file journals beside this one, if there are any (src/client/journal-db/takeover.ts),
   * in one transaction; waits up to 10 minutes for another process taking over the same files.
   */
  async takeOver(stateFolder: string): Promise<TakeoverReport | undefined> {
    if (oldJournals(stateFolder).length === 0) return undefined;
    const { takeOver } = await import('./takeover.js'); // loaded only then (a money command loads none of it)
    this.setBusyTimeout(TAKEOVER_WAIT_MS);
    try {
      return await takeOver(this.db, stateFolder);
    } finally {
      this.setBusyTimeout(BUSY_TIMEOUT_MS);
    }
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
}
