// A shared journal's one connection (the postgres package's, max 1): its socket, held by the
// process only while a statement is out, and the statements waiting to be told when a new
// connection is refused. What the connection's statements mean (timeouts, failures, keys held)
// is postgres.ts's; this module knows the package and the socket only, so that bin/run.js can
// start the connection before the command's code is compiled (early-connection.ts) and the
// journal then takes it over.
import { connect as connectTcp, type Socket } from 'node:net';
import type postgresType from 'postgres';
import type { Sql } from 'postgres';
import type { PostgresTarget, SslChoice } from './target.js';

export type Postgres = typeof postgresType;

/** src/client/journal-db/target.ts's choice as Node's TLS options. */
function tls(ssl: SslChoice): unknown {
  if (typeof ssl !== 'object') return ssl;
  const { verify, ...files } = ssl;
  // verify-ca: the chain only; verify-full: the chain and the host name too (Node's default check)
  return { ...files, rejectUnauthorized: true, ...(verify === 'ca' ? { checkServerIdentity: () => undefined } : {}) };
}

/** One connection a process for each shared journal: by target (its URL and every option). */
export const targetKey = (t: PostgresTarget): string => `${t.url}\u0000${JSON.stringify(t.options)}`;

export class PostgresConnection {
  private sql: Promise<Sql> | undefined;
  private socket: Socket | undefined;
  /** statements out: while there are any, the socket keeps the process alive */
  private out = 0;
  /** the connection ended since `sawClose` was last asked (the next statement opens a new one) */
  private closed = false;
  /** the statements waiting, told when a new connection's socket is refused (the package would keep them for its next try) */
  private readonly waiting = new Set<(err: unknown) => void>();
  /** a statement was answered on it (the server is there) */
  private up = false;
  /** the early start's statement failed (bin/run.js's): the journal makes a connection of its own */
  failedEarly = false;
  /** told when the package asks for its socket (the connection's first step) */
  onSocket: (() => void) | undefined;

  constructor(
    readonly target: PostgresTarget,
    private readonly load: () => Postgres | Promise<Postgres>,
  ) {}

  /** The package's connection, made at the first call. */
  open(): Promise<Sql> {
    this.sql ??= Promise.resolve(this.load()).then((postgres) => {
      const { url, ssl, ...rest } = this.target.options;
      return postgres(url, {
        ...rest,
        ssl: tls(ssl as SslChoice),
        max: 1,
        onnotice: () => {},
        onclose: () => void (this.closed = true),
        socket: () => this.openSocket(),
        // int8 (counts, row numbers, digests of 52 bits, CRC-32s) as numbers: all fit in a double
        types: { bigint: { to: 20, from: [20], parse: (x: string) => Number(x), serialize: (x: number) => String(x) } },
      } as never) as Sql;
    });
    return this.sql;
  }

  /**
   * The connection's socket, held by the process only while a statement is out. Returned while it
   * connects: the package writes its first message when it is given the socket (buffered until
   * connected), and a refusal, or its connect_timeout, fails the statement waiting.
   */
  private openSocket(): Socket {
    const { host, port } = this.target.options as unknown as { host: string; port: number };
    const socket = host.startsWith('/') ? connectTcp(`${host}/.s.PGSQL.${port}`) : connectTcp(port, host);
    socket.setKeepAlive(true, 10_000);
    socket.setNoDelay(true);
    socket.once('error', (err) => {
      if (socket.connecting) for (const refused of this.waiting) refused(err); // a server gone (stopped, unreachable): said now, not after waitMs
    });
    this.socket = socket;
    if (this.out === 0) socket.unref();
    this.onSocket?.();
    return socket;
  }

  /** A statement goes out: the process waits for it. */
  hold(): void {
    this.out++;
    this.socket?.ref();
  }

  /** The statement is done. */
  release(): void {
    if (--this.out === 0) this.socket?.unref();
  }

  /** `refused` is called if a new connection's socket is refused while the statement waits; the returned function stops that. */
  whenRefused(refused: (err: unknown) => void): () => void {
    this.waiting.add(refused);
    return () => this.waiting.delete(refused);
  }

  /** Whether the connection ended since the last ask (a statement after it ran on a new one). */
  sawClose(): boolean {
    const closed = this.closed;
    this.closed = false;
    return closed;
  }

  /** A statement was answered on it: the server is there (an ending connection is then given time to say goodbye). */
  answered(): void {
    this.up = true;
  }

  /**
   * Ends the connection within `timeoutS` (0: at once, the statements it holds dropped); the next
   * call opens a new one. One that never answered ends at once, and its socket goes with it: the
   * package's connect timer would otherwise keep the process alive for connect_timeout (a command
   * that failed before it used a journal whose server takes connections and never answers).
   */
  async end(timeoutS: number): Promise<void> {
    const sql = this.sql;
    this.sql = undefined;
    if (sql) await (await sql.catch(() => undefined))?.end({ timeout: this.up ? timeoutS : 0 }).catch(() => {});
    this.socket?.destroy();
  }
}

/** The connections bin/run.js started before the command's code was loaded, by target: one registry a process, whichever script of the build reads it. */
const early = ((globalThis as Record<symbol, unknown>)[Symbol.for('cardctl.journal.early-connections')] ??= new Map<
  string,
  PostgresConnection
>()) as Map<string, PostgresConnection>;

export const earlyConnections = (): Map<string, PostgresConnection> => early;

/** The connection started early for `target`, taken (once), or undefined: none, or its start failed. */
export function takeEarlyConnection(target: PostgresTarget): PostgresConnection | undefined {
  const key = targetKey(target);
  const conn = early.get(key);
  early.delete(key);
  if (!conn?.failedEarly) return conn;
  void conn.end(0);
  return undefined;
}
