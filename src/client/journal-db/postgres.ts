// A journal shared by a fleet, in PostgreSQL (15 and later): the same tables and statements as the
// local SQLite file (tables.ts), in a schema of their own, `cardctl_journal`. The journal's calls
// are synchronous; this one's connection lives in a worker thread (postgres-worker.ts), which this
// thread waits for, at most CALL_WAIT_MS a statement: a server that does not answer is a refusal
// (exit 8), never a wait without end.
//
// A key in flight is held across machines by a session advisory lock on that connection: taken
// before the journal is read for the key, released after its outcome is recorded, and ended by
// the server with the connection when the process dies. A connection that stops answering loses
// its keys too: the server ends a session silent for longer than idle_session_timeout, and one
// whose peer is gone after its TCP keepalives (both set at connect); a live holder pings meanwhile.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { BridgeReply, BridgeRequest } from './postgres-worker.js';
import { schemaSql, SCHEMA_VERSION } from './schema.js';
import { forPostgres, type SqlRunner, type SqlValue } from './sql.js';
import { JournalTables } from './tables.js';
import { PG_SCHEMA, type PostgresTarget } from './target.js';

/** A server error, or the connection failing, as this thread receives it. */
export class PostgresFailure extends Error {
  constructor(
    readonly detail: NonNullable<BridgeReply['error']> & { timedOut?: boolean },
    readonly target: PostgresTarget,
  ) {
    super(detail.message);
  }
}

export const isPostgresFailure = (err: unknown): err is PostgresFailure => err instanceof PostgresFailure;

/** The connection's thread: the build's one-file bundle of it and the postgres package (scripts/build-bundle.mjs), else its module. */
function workerUrl(): URL {
  const here = import.meta.url;
  const dist = here.endsWith('.ts') ? new URL('../../../dist/client/journal-db/', here) : new URL('./', here);
  const bundled = new URL('../../bundle/journal-postgres-worker.mjs', dist);
  return existsSync(bundled) ? bundled : new URL('./postgres-worker.js', dist);
}

/** The statements of tables.ts, one at a time over the worker's connection. */
class PostgresRunner implements SqlRunner {
  readonly engine = 'postgres';
  private readonly worker: Worker;
  private readonly port: MessageChannel['port1'];
  private readonly wake = new Int32Array(new SharedArrayBuffer(4));
  private n = 0;
  private failed: PostgresFailure | undefined;
  private readonly waitMs: number;
  /** keys held (advisory locks): the worker keeps the connection alive while there are any */
  holding = 0;
  /** how many times the connection ended and a new one answered while keys were held */
  reconnects = 0;
  private inTransaction = false;

  constructor(private readonly target: PostgresTarget) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.waitMs = (target.connectTimeoutS + 20) * 1000;
    this.worker = new Worker(workerUrl(), {
      workerData: {
        port: port2,
        flag: this.wake.buffer,
        options: target.options,
        pingMs: (target.holdS * 1000) / 3,
      },
      transferList: [port2],
      execArgv: [],
      env: {}, // the options say everything (src/client/journal-db/target.ts read the PG* variables)
    });
    this.worker.unref();
    this.worker.on('error', () => {}); // said by the call waiting for it (its time runs out)
  }

  private call(req: Omit<BridgeRequest, 'n' | 'holding'>): BridgeReply {
    if (this.failed) throw this.failed;
    const n = ++this.n;
    Atomics.store(this.wake, 0, 0);
    this.port.postMessage({ ...req, n, holding: this.holding });
    for (;;) {
      if (Atomics.wait(this.wake, 0, 0, this.waitMs) === 'timed-out') {
        // what the server did with it cannot be known: this connection is not used again
        this.failed = new PostgresFailure(
          { message: `no answer within ${this.waitMs / 1000} s`, timedOut: true },
          this.target,
        );
        throw this.failed;
      }
      const got = receiveMessageOnPort(this.port)?.message as BridgeReply | undefined;
      if (got?.n === n) return this.answered(got);
      Atomics.store(this.wake, 0, 0); // an answer to a call given up on: wait for this one's
    }
  }

  private answered(got: BridgeReply): BridgeReply {
    if (got.reconnected && this.holding > 0) this.reconnects++;
    if (got.error) {
      const failure = new PostgresFailure(got.error, this.target);
      // a lost connection in a transaction: what was committed is not known (the caller refuses)
      if (this.inTransaction && !got.error.severity) this.failed = failure;
      throw failure;
    }
    return got;
  }

  all<T>(sql: string, args: readonly SqlValue[] = []): T[] {
    return this.call({ op: 'all', sql: forPostgres(sql), args }).rows as T[];
  }

  get<T>(sql: string, args: readonly SqlValue[] = []): T | undefined {
    return this.all<T>(sql, args)[0];
  }

  run(sql: string, args: readonly SqlValue[] = []): number {
    return this.call({ op: 'run', sql: forPostgres(sql), args }).count ?? 0;
  }

  exec(sql: string): void {
    this.call({ op: 'exec', sql });
  }

  transaction<T>(fn: () => T): T {
    this.exec('BEGIN');
    this.inTransaction = true;
    try {
      const out = fn();
      this.exec('COMMIT');
      return out;
    } catch (err) {
      try {
        if (!this.failed) this.exec('ROLLBACK');
      } catch {
        // the connection is gone: the server rolled it back
      }
      throw err;
    } finally {
      this.inTransaction = false;
    }
  }

  close(): void {
    if (!this.failed)
      try {
        this.call({ op: 'close' });
      } catch {
        // the process ends the connection with it
      }
    void this.worker.terminate();
  }
}

/** One connection a process for each shared journal, whoever opens it (a command may open it more than once): by target. */
const journals = new Map<string, PostgresJournal>();
/** Connections started ahead of their journal (prewarm), by target. */
const warm = new Map<string, PostgresRunner>();
const targetKey = (t: PostgresTarget): string => `${t.url}\u0000${JSON.stringify(t.options)}`;

/** Starts the connection's thread now (it connects on its own), for the journal opened a little later: a money command's first statement then waits less. */
export function prewarm(target: PostgresTarget): void {
  const key = targetKey(target);
  if (!warm.has(key) && !journals.has(key)) warm.set(key, new PostgresRunner(target));
}

/** This process's journal of `target`, connected (on the prewarmed connection, when there is one) and its tables made. */
export function sharedJournal(target: PostgresTarget): PostgresJournal {
  const key = targetKey(target);
  let journal = journals.get(key);
  if (!journal) journals.set(key, (journal = new PostgresJournal(target)));
  return journal;
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

  constructor(readonly target: PostgresTarget) {
    const key = targetKey(target);
    const runner = warm.get(key) ?? new PostgresRunner(target);
    warm.delete(key);
    super(runner);
    this.runner = runner;
    try {
      this.migrate();
    } catch (err) {
      runner.close();
      throw err;
    }
  }

  /** The tables made once, by whichever machine comes first (an advisory lock for the migration); a newer cardctl's refused. */
  private migrate(): void {
    const version = this.version();
    if (version === SCHEMA_VERSION) return;
    if (version !== undefined && version > SCHEMA_VERSION)
      throw Object.assign(new Error(`the shared journal was written by a newer cardctl (schema ${version})`), {
        newerSchema: version,
      });
    this.transaction(() => {
      this.q.all('SELECT pg_advisory_xact_lock(?)', [lockId('', 'cardctl.schema')]);
      this.q.exec(`CREATE SCHEMA IF NOT EXISTS ${PG_SCHEMA}`);
      this.q.exec(schemaSql('postgres'));
      this.setMeta('schema_version', String(SCHEMA_VERSION));
      this.setMeta('created_at', new Date().toISOString(), false);
    });
  }

  private version(): number | undefined {
    const exists = this.q.get<{ t: string | null }>('SELECT to_regclass(?) AS t', [`${PG_SCHEMA}.meta`]);
    if (!exists?.t) return undefined;
    const v = this.meta('schema_version');
    return v === undefined ? undefined : Number(v);
  }

  /**
   * Holds a key across every machine using this journal, or says who holds it: false when another
   * connection (another process, on any machine) holds it, or this process already does.
   */
  tryHold(keyId: string, idempotencyKey: string): boolean {
    const id = lockId(keyId, idempotencyKey);
    if (this.held.has(id)) return false;
    const got = this.q.get<{ ok: boolean }>('SELECT pg_try_advisory_lock(CAST(? AS BIGINT)) AS ok', [id]);
    if (!got?.ok) return false;
    this.held.set(id, this.runner.reconnects);
    this.runner.holding = this.held.size;
    return true;
  }

  /** Returns false when the connection holding the key ended meanwhile (another process may have taken it). */
  release(keyId: string, idempotencyKey: string): boolean {
    const id = lockId(keyId, idempotencyKey);
    const since = this.held.get(id);
    if (since === undefined) return true;
    this.held.delete(id);
    this.runner.holding = this.held.size;
    if (this.runner.reconnects !== since) return false; // the lock went with that connection
    try {
      this.q.get('SELECT pg_advisory_unlock(CAST(? AS BIGINT)) AS ok', [id]);
    } catch {
      return false; // the connection is gone: so is the lock
    }
    return true;
  }

  /** Who holds a key elsewhere, as the server knows them: its application name (cardctl, host and pid) and since when. */
  holderOf(keyId: string, idempotencyKey: string): string | undefined {
    const id = BigInt(lockId(keyId, idempotencyKey));
    const hi = Number(BigInt.asUintN(32, id >> 32n));
    const lo = Number(BigInt.asUintN(32, id));
    try {
      const row = this.q.get<{ app: string; since: string }>(
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
  bytes(): number {
    return Number(
      this.q.get<{ n: number }>(
        `SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS n FROM pg_class c
         JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = ? AND c.relkind = 'r'`,
        [PG_SCHEMA],
      )!.n,
    );
  }

  /** The server's side of a check: reachable, the tables there and readable through their indexes. */
  quickCheck(): string[] {
    const version = this.version();
    if (version !== SCHEMA_VERSION) return [`the tables are missing or of another version (${version ?? 'none'})`];
    this.count();
    return ['ok'];
  }
}
