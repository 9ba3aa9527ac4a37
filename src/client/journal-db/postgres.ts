// A journal shared by a fleet, in PostgreSQL (15 and later): the same tables and statements as the
// local SQLite file (tables.ts), in a schema of their own, `cardctl_journal`. One connection a
// process, in the command's own thread (the postgres package, loaded only when a shared journal
// is used), every statement bounded (connect_timeout + 20 s): a server that does not answer is a refusal
// (exit 8), never a wait without end. The connection's socket keeps the process alive only while a
// statement is out: a command that ends with the connection open exits at once. The connection
// (postgres-connection.ts) may have been started by bin/run.js before the command's code was
// compiled (early-connection.ts): the journal takes it over.
//
// A key in flight is held across machines by a session advisory lock on that connection: taken
// before the journal is read for the key, released after its outcome is recorded, and ended by
// the server with the connection when the process dies. A connection that stops answering loses
// its keys too: the server ends a session silent for longer than idle_session_timeout, and one
// whose peer is gone after its TCP keepalives (both set at connect); a live holder pings meanwhile.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Sql } from 'postgres';
import { atCommandEnd } from '../exiting.js';
import {
  earlyConnections,
  type Postgres,
  PostgresConnection,
  takeEarlyConnection,
  targetKey,
} from './postgres-connection.js';
import { schemaSql, SCHEMA_VERSION } from './schema.js';
import { forPostgres, type SqlRunner, type SqlValue } from './sql.js';
import { JournalTables } from './tables.js';
import { PG_SCHEMA, type PostgresTarget } from './target.js';

/** What the server or the connection said of a failure: its words and codes, never the options. */
export interface FailureDetail {
  message: string;
  code?: string;
  errno?: string;
  severity?: string;
  detail?: string;
  timedOut?: boolean;
}

/** A server error, or the connection failing. */
export class PostgresFailure extends Error {
  constructor(
    readonly detail: FailureDetail,
    readonly target: PostgresTarget,
  ) {
    super(detail.message);
  }
}

export const isPostgresFailure = (err: unknown): err is PostgresFailure => err instanceof PostgresFailure;

const described = (err: unknown): FailureDetail => {
  const e = err as { message?: string; code?: string; errno?: string; severity?: string; detail?: string };
  return {
    message: String(e?.message ?? err),
    code: e?.code,
    errno: e?.errno,
    severity: e?.severity,
    detail: e?.detail,
  };
};

/** The postgres package: the build's one-module bundle of it (scripts/build-bundle.mjs), else the package (also the demo's, src/demo/postgres.ts). */
export async function loadPostgres(): Promise<Postgres> {
  const here = import.meta.url;
  const bundled = here.endsWith('.ts') ? undefined : new URL('../../bundle/journal-postgres.mjs', new URL('./', here));
  let mod: unknown = bundled && existsSync(bundled) ? await import(bundled.href) : await import('postgres');
  // the package's function, however a bundler wrapped its module (the single executable wraps it twice)
  while (typeof mod !== 'function' && mod && typeof mod === 'object' && 'default' in mod) mod = mod.default;
  return mod as Postgres;
}

/** The statements of tables.ts over one connection (the journal runs one call at a time on it). */
class PostgresRunner implements SqlRunner {
  readonly engine = 'postgres';
  private failed: PostgresFailure | undefined;
  private readonly waitMs: number;
  private ping: NodeJS.Timeout | undefined;
  /** keys held (advisory locks): while there are any, the connection says it is alive */
  private holdingKeys = 0;
  /** how many times the connection ended and a new one answered while keys were held */
  reconnects = 0;
  private inTransaction = false;
  private readonly conn: PostgresConnection;

  /** On the connection bin/run.js started for this target, when there is one. */
  constructor(private readonly target: PostgresTarget) {
    this.waitMs = (target.connectTimeoutS + 20) * 1000;
    this.conn = takeEarlyConnection(target) ?? new PostgresConnection(target, loadPostgres);
  }

  /** Connects now (the first statement then finds it made); a failure is said by that statement. */
  warm(): void {
    void this.run('SELECT 1').catch(() => {});
  }

  /** One statement: the socket held meanwhile, at most waitMs. */
  private async call<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    if (this.failed) throw this.failed;
    this.conn.hold();
    let timer: NodeJS.Timeout | undefined;
    let stopWaiting: (() => void) | undefined;
    try {
      const sql = await this.conn.open();
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(this.timedOut()), this.waitMs);
      });
      const unreachable = new Promise<never>((_, reject) => {
        stopWaiting = this.conn.whenRefused((err) => reject(this.unreachable(err)));
      });
      const got = await Promise.race([fn(sql), timeout, unreachable]);
      this.conn.answered();
      this.sawReconnect();
      return got;
    } catch (err) {
      if (err instanceof PostgresFailure) throw err;
      const failure = new PostgresFailure(described(err), this.target);
      // a lost connection in a transaction: what was committed is not known (the caller refuses)
      if (this.inTransaction && !failure.detail.severity) this.failed = failure;
      this.sawReconnect();
      throw failure;
    } finally {
      clearTimeout(timer);
      stopWaiting?.();
      this.conn.release();
    }
  }

  /** The server refused a new connection: this one is not used again (the statements the package holds are dropped, never run later). */
  private unreachable(err: unknown): PostgresFailure {
    this.failed ??= new PostgresFailure(described(err), this.target);
    void this.conn.end(0);
    return this.failed;
  }

  /** What the server did with a statement that got no answer cannot be known: this connection is not used again. */
  private timedOut(): PostgresFailure {
    this.failed = new PostgresFailure(
      { message: `no answer within ${this.waitMs / 1000} s`, timedOut: true },
      this.target,
    );
    void this.conn.end(0);
    return this.failed;
  }

  private sawReconnect(): void {
    if (this.conn.sawClose() && this.holdingKeys > 0) this.reconnects++;
  }

  /** Keys held now: while any are, a ping at a third of the server's idle limit keeps the session. */
  set holding(n: number) {
    this.holdingKeys = n;
    if (n > 0 && !this.ping) {
      this.ping = setInterval(() => void this.run('SELECT 1').catch(() => {}), (this.target.holdS * 1000) / 3);
      this.ping.unref();
    }
    if (n === 0 && this.ping) clearInterval(this.ping), (this.ping = undefined);
  }

  async all<T>(sql: string, args: readonly SqlValue[] = []): Promise<T[]> {
    return this.call(async (db) => [...(await db.unsafe(forPostgres(sql), args as never[], { prepare: true }))] as T[]);
  }

  async values<T extends unknown[]>(sql: string, args: readonly SqlValue[] = []): Promise<T[]> {
    return this.call(
      async (db) => [...(await db.unsafe(forPostgres(sql), args as never[], { prepare: true }).values())] as T[],
    );
  }

  async get<T>(sql: string, args: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, args))[0];
  }

  async run(sql: string, args: readonly SqlValue[] = []): Promise<number> {
    return this.call(async (db) => (await db.unsafe(forPostgres(sql), args as never[], { prepare: true })).count);
  }

  async exec(sql: string): Promise<void> {
    await this.call((db) => db.unsafe(sql).simple());
  }

  async transaction<T>(fn: () => Promise<T>): Promise<T> {
    await this.exec('BEGIN');
    this.inTransaction = true;
    try {
      const out = await fn();
      await this.exec('COMMIT');
      return out;
    } catch (err) {
      try {
        if (!this.failed) await this.exec('ROLLBACK');
      } catch {
        // the connection is gone: the server rolled it back
      }
      throw err;
    } finally {
      this.inTransaction = false;
    }
  }

  async close(): Promise<void> {
    this.holding = 0;
    await this.conn.end(1);
  }
}

/** One connection a process for each shared journal, whoever opens it (a command may open it more than once): by target. */
const journals = new Map<string, Promise<PostgresJournal>>();
/** Connections started ahead of their journal (prewarm), by target. */
const warm = new Map<string, PostgresRunner>();

/** Starts connecting now, for the journal opened a little later: a money command's first statement then waits less. */
export function prewarm(target: PostgresTarget): void {
  atCommandEnd(closeSharedJournals);
  const key = targetKey(target);
  if (warm.has(key) || journals.has(key)) return;
  const runner = new PostgresRunner(target);
  runner.warm();
  warm.set(key, runner);
}

/** This process's journal of `target`, connected (on the prewarmed connection, when there is one) and its tables made. */
export function sharedJournal(target: PostgresTarget): Promise<PostgresJournal> {
  atCommandEnd(closeSharedJournals);
  const key = targetKey(target);
  let journal = journals.get(key);
  if (!journal) {
    const runner = warm.get(key) ?? new PostgresRunner(target);
    warm.delete(key);
    journal = opened(new PostgresJournal(target, runner));
    journals.set(key, journal);
    journal.catch(() => journals.delete(key)); // the next open tries again (its error is said by this one)
  }
  return journal;
}

/** Whether a cardctl made the journal's tables in this database (a dry run reads a journal, never makes one). */
export async function sharedTablesExist(target: PostgresTarget): Promise<boolean> {
  if (journals.has(targetKey(target))) return true; // opened (made) by this process already
  prewarm(target);
  const runner = warm.get(targetKey(target))!;
  const row = await runner.get<{ t: string | null }>('SELECT to_regclass(?) AS t', [`${PG_SCHEMA}.meta`]);
  return Boolean(row?.t);
}

async function opened(journal: PostgresJournal): Promise<PostgresJournal> {
  try {
    await journal.migrate();
    return journal;
  } catch (err) {
    await journal.end();
    throw err;
  }
}

/** Ends this process's connections (a command done with its journal: the server told, not left to notice). */
export async function closeSharedJournals(): Promise<void> {
  const all = [...journals.values()];
  const idle = [...warm.values()];
  journals.clear();
  warm.clear();
  const early = [...earlyConnections().values()]; // started for a journal the command did not open
  earlyConnections().clear();
  await Promise.all([
    ...all.map((j) => j.then((journal) => journal.end()).catch(() => {})),
    ...idle.map((r) => r.close()),
    ...early.map((c) => c.end(1)),
  ]);
}

/** A 64-bit advisory lock key for an idempotency key within an account (the same on every machine). */
function lockId(keyId: string, idempotencyKey: string): string {
  const digest = createHash('sha256')
    .update(JSON.stringify(['cardctl.key', keyId, idempotencyKey]))
    .digest();
  return digest.readBigInt64BE(0).toString();
}

export class PostgresJournal extends JournalTables {
  private readonly runner: PostgresRunner;
  /** the keys held, each with the connection's reconnects when it was taken */
  private readonly held = new Map<string, number>();

  constructor(
    readonly target: PostgresTarget,
    runner: PostgresRunner,
  ) {
    super(runner);
    this.runner = runner;
  }

  /** Ends the connection (its keys go with it). */
  end(): Promise<void> {
    return this.runner.close();
  }

  /** A shared journal's connection serves the whole process: closeSharedJournals ends it. */
  override async close(): Promise<void> {}

  /** The tables made once, by whichever machine comes first (an advisory lock for the migration); a newer cardctl's refused. */
  async migrate(): Promise<void> {
    const version = await this.version();
    if (version === SCHEMA_VERSION) return;
    await this.create(version);
    await this.metaAll();
  }

  private async create(version: number | undefined): Promise<void> {
    if (version !== undefined && version > SCHEMA_VERSION)
      throw Object.assign(new Error(`the shared journal was written by a newer cardctl (schema ${version})`), {
        newerSchema: version,
      });
    await this.transaction(async () => {
      await this.q.all('SELECT pg_advisory_xact_lock(?)', [lockId('', 'cardctl.schema')]);
      await this.q.exec(`CREATE SCHEMA IF NOT EXISTS ${PG_SCHEMA}`);
      await this.q.exec(schemaSql('postgres'));
      await this.setMeta('schema_version', String(SCHEMA_VERSION));
      await this.setMeta('created_at', new Date().toISOString(), false);
    });
  }

  /** The tables' version, read with the rest of the meta rows (one statement); undefined: no tables yet. */
  private async version(): Promise<number | undefined> {
    try {
      const v = (await this.metaAll()).get('schema_version');
      return v === undefined ? undefined : Number(v);
    } catch (err) {
      if (isPostgresFailure(err) && err.detail.code === '42P01') return undefined; // undefined_table: a new journal
      throw err;
    }
  }

  /**
   * Holds a key across every machine using this journal, or says who holds it: false when another
   * connection (another process, on any machine) holds it, or this process already does.
   */
  async tryHold(keyId: string, idempotencyKey: string): Promise<boolean> {
    const id = lockId(keyId, idempotencyKey);
    if (this.held.has(id)) return false;
    const got = await this.q.get<{ ok: boolean }>('SELECT pg_try_advisory_lock(CAST(? AS BIGINT)) AS ok', [id]);
    if (!got?.ok) return false;
    this.held.set(id, this.runner.reconnects);
    this.runner.holding = this.held.size;
    return true;
  }

  /** Returns false when the connection holding the key ended meanwhile (another process may have taken it). */
  async release(keyId: string, idempotencyKey: string): Promise<boolean> {
    const id = lockId(keyId, idempotencyKey);
    const since = this.held.get(id);
    if (since === undefined) return true;
    this.held.delete(id);
    this.runner.holding = this.held.size;
    if (this.runner.reconnects !== since) return false; // the lock went with that connection
    try {
      await this.q.get('SELECT pg_advisory_unlock(CAST(? AS BIGINT)) AS ok', [id]);
    } catch {
      return false; // the connection is gone: so is the lock
    }
    return true;
  }

  /** Who holds a key elsewhere, as the server knows them: its application name (cardctl, host and pid) and since when. */
  async holderOf(keyId: string, idempotencyKey: string): Promise<string | undefined> {
    const id = BigInt(lockId(keyId, idempotencyKey));
    const hi = Number(BigInt.asUintN(32, id >> 32n));
    const lo = Number(BigInt.asUintN(32, id));
    try {
      const row = await this.q.get<{ app: string; since: string }>(
        `SELECT a.application_name AS app, to_char(a.backend_start AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS since
         FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
         WHERE l.locktype = 'advisory' AND l.classid = CAST(? AS OID) AND l.objid = CAST(? AS OID) AND l.objsubid = 1 AND l.granted LIMIT 1`,
        [hi, lo],
      );
      return row ? `${row.app || 'a client'} (connected since ${row.since})` : undefined;
    } catch {
      return undefined;
    }
  }

  /** The tables' size on the server. */
  async bytes(): Promise<number> {
    return Number(
      (await this.q.get<{ n: number }>(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c
         JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = ? AND c.relkind = 'r'`,
        [PG_SCHEMA],
      ))!.n,
    );
  }

  /** The server's side of a check: reachable, the tables there and readable through their indexes. */
  async quickCheck(): Promise<string[]> {
    const version = await this.version();
    if (version !== SCHEMA_VERSION) return [`the tables are missing or of another version (${version ?? 'none'})`];
    await this.count();
    return ['ok'];
  }
}
