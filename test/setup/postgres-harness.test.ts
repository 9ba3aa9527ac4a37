// The PostgreSQL the shared journal's tests stand on (test/helpers/postgres.ts): a real server
// from the machine's binaries, reached with the `postgres` package cardctl uses and with psql
// (libpq, the reference client): password logins only, the password never in an error or the
// log (a canary), TLS verified against its CA and refused without it, and nothing left running
// or listening once it is stopped. Skipped (and named at the end of `npm test`) where PostgreSQL
// is not installed; CI installs it (.ci/run) and requires it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPostgres, makeCa, run } from '../helpers/postgres-cluster.js';
import { type Postgres, startPostgres } from '../helpers/postgres.js';
import { ROOT } from '../helpers/cli.js';
import { needs, needsPostgres } from '../helpers/programs.js';

const withPostgres = needsPostgres();
/** libpq's own client, from the same PostgreSQL */
const psql = (): string => join(findPostgres()!.dir, 'psql');

type Connect = postgres.Options<Record<string, never>>;
/** One query on a fresh connection, closed after; its rows or the error it failed with. */
async function query(options: Connect, text: string): Promise<{ rows?: Record<string, unknown>[]; error?: Error }> {
  const sql = postgres({ max: 1, connect_timeout: 10, onnotice: () => {}, ...options });
  try {
    return { rows: [...(await sql.unsafe(text))] };
  } catch (error) {
    return { error: error as Error };
  } finally {
    await sql.end({ timeout: 5 });
  }
}
const login = (pg: Postgres): Connect => ({
  host: pg.host,
  port: pg.port,
  user: pg.user,
  password: pg.password,
  database: pg.database,
});
/** An error as a user could see it: its message, stack, and every field as console.log prints them. */
const everything = (err: Error | undefined): string =>
  err ? `${err.message}\n${err.stack}\n${inspect(err, { depth: 4, showHidden: true })}` : '';

const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
/** Whether PID is a running process (an exited one its parent has not reaped yet, a zombie, is not). */
const alive = (pid: number): boolean => {
  const r = spawnSync('ps', ['-o', 'stat=', '-p', String(pid)], { encoding: 'utf8' });
  return r.status === 0 && !r.stdout.trim().startsWith('Z');
};

describe.runIf(withPostgres)('a throwaway PostgreSQL server', () => {
  let pg: Postgres;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.stop());

  it('is a PostgreSQL 15 or later on 127.0.0.1, logged in with its URL by the postgres package', async () => {
    expect(pg.url).toBe(`postgres://${pg.user}:${pg.password}@127.0.0.1:${pg.port}/${pg.database}`);
    const r = await query(login(pg), 'select 1 + 1 as two');
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([{ two: 2 }]);
    const fromUrl = postgres(pg.url, { max: 1, onnotice: () => {} });
    try {
      const [row] = await fromUrl`select current_user as who, current_database() as db,
        current_setting('server_version_num')::int as version, inet_server_addr()::text as addr`;
      expect(row).toEqual({ who: pg.user, db: pg.database, version: expect.any(Number), addr: '127.0.0.1/32' });
      expect(row!.version).toBeGreaterThanOrEqual(150000);
    } finally {
      await fromUrl.end({ timeout: 5 });
    }
    // the role is not a superuser: the journal must work with an ordinary owner of its database
    expect(await pg.psql(`select rolsuper from pg_roles where rolname = '${pg.user}'`)).toBe('f');
  });

  it('gives each test a fresh database of its own, which the role can build tables in', async () => {
    const url = await pg.createDatabase('harness_fresh');
    expect(url).toBe(pg.url.replace(/\/cardctl$/, '/harness_fresh'));
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      expect(await sql`select count(*)::int as n from pg_tables where schemaname = 'public'`).toEqual([{ n: 0 }]);
      await sql`create table ops (key text primary key)`;
      await sql`insert into ops values ('a')`;
    } finally {
      await sql.end({ timeout: 5 });
    }
    expect(await pg.psql('select key from ops', 'harness_fresh')).toBe('a');
    await expect(pg.createDatabase('no; drop')).rejects.toThrow('is not a plain name');
  });

  it('refuses a wrong password, and no password (wrong or right) appears in the error or the log', async () => {
    const canary = 'canary-pw-3f9a1c';
    const r = await query({ ...login(pg), password: canary }, 'select 1');
    expect(r.error).toMatchObject({ code: '28P01' });
    expect(r.error!.message).toBe(`password authentication failed for user "${pg.user}"`);
    const withUrl = postgres(pg.url.replace(pg.password, canary), { max: 1, onnotice: () => {} });
    const fromUrl = await withUrl`select 1`.then(
      () => ({ error: undefined }),
      (error: Error) => ({ error }),
    );
    await withUrl.end({ timeout: 5 });
    expect(fromUrl.error).toMatchObject({ code: '28P01' });
    for (const text of [everything(r.error), everything(fromUrl.error), pg.log()]) {
      expect(text).not.toContain(canary);
      expect(text).not.toContain(pg.password);
    }
    // psql, too: libpq's message, no password in it
    const viaPsql = await run(psql(), ['-X', '-c', 'select 1'], {
      env: { ...pg.env, PGPASSWORD: canary, PATH: process.env.PATH ?? '' },
    }).catch((e: Error) => e.message);
    expect(viaPsql).toContain(`password authentication failed for user "${pg.user}"`);
    expect(viaPsql).not.toContain(canary);
    expect(pg.log()).toContain(`password authentication failed for user "${pg.user}"`);
  });

  it('keeps its data across a restart on the same port, and refuses connections while stopped', async () => {
    const made = await query(login(pg), 'create table kept (n int); insert into kept values (42)');
    expect(made.error).toBeUndefined();
    const before = pg.pid();
    await pg.stopServer();
    expect(await listening(pg.port)).toBe(false);
    const refused = await query(login(pg), 'select 1');
    expect(refused.error).toMatchObject({ code: 'ECONNREFUSED' });
    await pg.startServer();
    expect(pg.pid()).not.toBe(before);
    expect(await pg.psql('select n from kept')).toBe('42');
    // an immediate shutdown (as if it crashed): the next start recovers, the committed row is there
    await pg.stopServer('immediate');
    await pg.restart();
    const after = await query(login(pg), 'select n from kept');
    expect(after.error, pg.log()).toBeUndefined();
    expect(after.rows).toEqual([{ n: 42 }]);
  });
});

describe.runIf(withPostgres)('a throwaway PostgreSQL server with TLS required', () => {
  let pg: Postgres;
  let otherCa: string;
  let scratch: string | undefined;
  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'cardctl-pg-other-ca-'));
    otherCa = await makeCa(scratch, 'another CA');
    pg = await startPostgres({ tls: true });
  });
  afterAll(async () => {
    await pg?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });
  const ca = () => readFileSync(pg.caFile!);

  it('is reached with verify-full against its CA (as 127.0.0.1), over TLS', async () => {
    expect(pg.url).toBe(
      `postgres://${pg.user}:${pg.password}@127.0.0.1:${pg.port}/${pg.database}?sslmode=verify-full&sslrootcert=${encodeURIComponent(pg.caFile!)}`,
    );
    const r = await query(
      { ...login(pg), ssl: { ca: ca(), rejectUnauthorized: true } },
      'select ssl from pg_stat_ssl where pid = pg_backend_pid()',
    );
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([{ ssl: true }]);
    // libpq with the URL as given: sslmode=verify-full&sslrootcert=CA
    expect(
      await run(psql(), [pg.url, '-X', '-A', '-t', '-c', 'select ssl from pg_stat_ssl where pid = pg_backend_pid()']),
    ).toBe('t');
  });

  it('is refused without its CA, with another CA, under another name, and without TLS', async () => {
    const noCa = await query({ ...login(pg), ssl: 'verify-full' }, 'select 1');
    expect(noCa.error).toMatchObject({
      code: expect.stringMatching(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN/),
    });
    const wrongCa = await query(
      { ...login(pg), ssl: { ca: readFileSync(otherCa), rejectUnauthorized: true } },
      'select 1',
    );
    expect(wrongCa.error).toMatchObject({
      code: expect.stringMatching(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN/),
    });
    const wrongName = await query(
      { ...login(pg), ssl: { ca: ca(), rejectUnauthorized: true, servername: 'journal.example.com' } },
      'select 1',
    );
    expect(wrongName.error).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    const plain = await query({ ...login(pg), ssl: false }, 'select 1');
    expect(plain.error).toMatchObject({ code: '28000' });
    expect(plain.error!.message).toContain('no encryption');
    for (const r of [noCa, wrongCa, wrongName, plain]) expect(everything(r.error)).not.toContain(pg.password);
    // libpq agrees: verify-full with another CA fails the certificate
    const psqlWrongCa = await run(psql(), [
      pg.url.replace(encodeURIComponent(pg.caFile!), encodeURIComponent(otherCa)),
      '-X',
      '-c',
      'select 1',
    ])
      .then(() => 'connected')
      .catch((e: Error) => e.message);
    expect(psqlWrongCa).toMatch(/certificate verify failed/);
    expect(psqlWrongCa).not.toContain(pg.password);
  });
});

describe.runIf(withPostgres)('stopping a throwaway PostgreSQL server', () => {
  it('leaves no process, no listening port and no folder; stopping twice is harmless', async () => {
    const pg = await startPostgres();
    try {
      const pid = pg.pid()!;
      const dataDir = await pg.psql('show data_directory');
      // the server's own processes (checkpointer, backends, ...): children of the postmaster
      const children = (await run('ps', ['-o', 'pid=', '--ppid', String(pid)])).split('\n').map(Number);
      expect(children.length).toBeGreaterThan(2);
      expect(alive(pid)).toBe(true);
      expect(await listening(pg.port)).toBe(true);
      await pg.stop();
      expect(pg.pid()).toBeUndefined();
      expect(alive(pid)).toBe(false);
      for (const child of children) expect(alive(child), `server process ${child}`).toBe(false);
      expect(await listening(pg.port)).toBe(false);
      expect(() => readFileSync(join(dataDir, 'PG_VERSION'))).toThrow(/ENOENT/);
      await pg.stop();
    } finally {
      await pg.stop();
    }
  });
});

describe.runIf(withPostgres && needs('setpriv'))('a throwaway PostgreSQL server whose test worker is killed', () => {
  it('shuts down with it (the parent-death signal), even after SIGKILL', async () => {
    // a process of its own (vite-node runs the TypeScript helper) that starts a server and waits
    const vite = join(ROOT, 'node_modules', 'vite-node', 'vite-node.mjs');
    const worker = spawn(process.execPath, [vite, 'test/fixtures/postgres-orphan.ts'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    worker.stdout.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const gone = new Promise((r) => worker.once('exit', r));
    for (let i = 0; i < 600 && !out.includes('\n') && worker.exitCode === null; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(out, 'the fixture printed its server').toMatch(/^\{"pid":\d+/);
    const server = JSON.parse(out.split('\n')[0]!) as { pid: number; port: number; folder: string };
    try {
      expect(alive(server.pid)).toBe(true);
      expect(await listening(server.port)).toBe(true);
      worker.kill('SIGKILL');
      await gone;
      for (let i = 0; i < 200 && alive(server.pid); i++) await new Promise((r) => setTimeout(r, 50));
      expect(alive(server.pid)).toBe(false);
      expect(await listening(server.port)).toBe(false);
      expect(readFileSync(join(server.folder, 'server.log'), 'utf8')).toContain('received fast shutdown request');
    } finally {
      if (alive(server.pid)) process.kill(server.pid, 'SIGQUIT');
      for (let i = 0; i < 100 && alive(server.pid); i++) await new Promise((r) => setTimeout(r, 50));
      rmSync(server.folder, { recursive: true, force: true });
    }
  });
});
