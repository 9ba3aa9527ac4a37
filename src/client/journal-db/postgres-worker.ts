// The thread that holds a shared journal's connection (src/client/journal-db/postgres.ts). The
// journal's calls are synchronous, a PostgreSQL client is not: the command's thread posts each
// statement here and waits (Atomics.wait, bounded) until this thread has its answer, posts it back
// and wakes it. One connection (`max: 1`): a transaction's statements and the advisory locks of the
// keys in flight all live on it, and all end with it.
import { enableCompileCache } from 'node:module';
import { workerData, type MessagePort } from 'node:worker_threads';
import type { Sql } from 'postgres';
import type { SslChoice } from './target.js';

export interface BridgeRequest {
  n: number;
  op: 'all' | 'run' | 'exec' | 'close';
  sql?: string;
  args?: ReadonlyArray<string | number | null>;
  /** while keys are held, the connection is kept busy enough that the server never ends it as idle */
  holding?: number;
}

export interface BridgeReply {
  n: number;
  rows?: unknown[];
  count?: number;
  /** the connection ended since the last answer (a new one answered this): keys held on it are no longer held */
  reconnected?: boolean;
  error?: { message: string; code?: string; errno?: string; severity?: string; detail?: string };
}

interface Data {
  port: MessagePort;
  flag: SharedArrayBuffer;
  /** postgres.js's options, the password among them (never posted back) */
  options: Record<string, unknown> & { url: string };
  /** how often a connection holding keys says it is alive (below the server's idle_session_timeout) */
  pingMs: number;
}

// the postgres package compiled once for every later run, as the command's own modules are (bin/run.js)
enableCompileCache?.();
const { port, flag, options, pingMs } = workerData as Data;
const wake = new Int32Array(flag);
let sql: Sql | undefined;
let ping: NodeJS.Timeout | undefined;
let closed = false;

async function connection(): Promise<Sql> {
  if (sql) return sql;
  const { default: postgres } = await import('postgres');
  const { url, ssl, ...rest } = options;
  sql = postgres(url, {
    ...rest,
    ssl: tls(ssl as SslChoice),
    max: 1,
    onnotice: () => {},
    onclose: () => void (closed = true),
    // int8 (counts, row numbers, digests of 52 bits, CRC-32s) as numbers: all fit in a double
    types: { bigint: { to: 20, from: [20], parse: (x: string) => Number(x), serialize: (x: number) => String(x) } },
  } as never);
  return sql;
}

/** src/client/journal-db/target.ts's choice as Node's TLS options (a function cannot cross to this thread). */
function tls(ssl: SslChoice): unknown {
  if (typeof ssl !== 'object') return ssl;
  const { verify, ...files } = ssl;
  // verify-ca: the chain only; verify-full: the chain and the host name too (Node's default check)
  return { ...files, rejectUnauthorized: true, ...(verify === 'ca' ? { checkServerIdentity: () => undefined } : {}) };
}

async function answer(req: BridgeRequest): Promise<BridgeReply> {
  const db = await connection();
  switch (req.op) {
    case 'close':
      await db.end({ timeout: 1 });
      return { n: req.n };
    case 'exec':
      await db.unsafe(req.sql!).simple();
      return { n: req.n };
    default: {
      const rows = await db.unsafe(req.sql!, (req.args ?? []) as never[], { prepare: true });
      return req.op === 'run' ? { n: req.n, count: rows.count } : { n: req.n, rows: [...rows] };
    }
  }
}

/** What the command's thread may say of a failure: the server's words and codes, never the options. */
function described(err: unknown): NonNullable<BridgeReply['error']> {
  const e = err as { message?: string; code?: string; errno?: string; severity?: string; detail?: string };
  return {
    message: String(e?.message ?? err),
    code: e?.code,
    errno: e?.errno,
    severity: e?.severity,
    detail: e?.detail,
  };
}

function keepAlive(holding: number | undefined): void {
  if (holding === undefined) return;
  if (holding > 0 && !ping) ping = setInterval(() => void sql?.unsafe('SELECT 1').catch(() => {}), pingMs);
  if (holding === 0 && ping) clearInterval(ping), (ping = undefined);
}

// connected at once, while the command's thread does its own work: the first statement finds the connection made (a failure is said by that statement)
void connection()
  .then((db) => db.unsafe('SELECT 1'))
  .catch(() => {});

port.on('message', async (req: BridgeRequest) => {
  let reply: BridgeReply;
  try {
    reply = await answer(req);
  } catch (err) {
    reply = { n: req.n, error: described(err) };
  }
  keepAlive(req.holding);
  if (closed && req.op !== 'close') (reply.reconnected = true), (closed = false);
  port.postMessage(reply);
  Atomics.store(wake, 0, 1);
  Atomics.notify(wake, 0);
  if (req.op === 'close') port.close();
});
