// The PostgreSQL of the tour's section on a journal shared by a fleet (sections/52-shared-journal.ts):
//
// - CARDCTL_DEMO_JOURNAL_URL=postgres://USER@HOST:PORT/DB (the password in PGPASSWORD, ~/.pgpass or
//   the URL, read as cardctl reads a journal URL): a server of yours. The tour makes a new database
//   on it for this run (its role needs CREATEDB) and drops it at the end (kept with --keep), so a
//   rerun starts afresh and nothing else on the server is touched.
// - CARDCTL_DEMO_JOURNAL_URL=off: the section is skipped.
// - Unset: a throwaway server of the tour's own, when the machine has PostgreSQL's binaries (15 or
//   later; the newest /usr/lib/postgresql/N/bin, else `initdb` on PATH): initdb into a new temp
//   folder (as the `postgres` user when the demo runs as root: the server refuses root), the
//   postmaster in the foreground, a child of the demo, on 127.0.0.1 and a free port, password
//   logins only (scram-sha-256) with a random password. It is stopped and its folder removed at
//   the end, also when a step fails and on Ctrl-C (index.ts); if the demo itself is killed, the
//   postmaster gets SIGINT from the kernel (`setpriv --pdeathsig`, where util-linux has it).
//   Without the binaries the section is skipped, saying in one line how to see it.
//
// The password is never printed and never on a command line: initdb reads it from a 0600 file that
// is removed at once, the machines get it in PGPASSWORD, and the runner fails any step whose output
// shows it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, appendFileSync, chownSync, closeSync, constants, existsSync, mkdtempSync } from 'node:fs';
import { openSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';

/** The shared journal the section's machines record in. */
export interface DemoJournal {
  /** CARDCTL_JOURNAL_URL for the machines: postgres://USER@HOST:PORT/DATABASE, never with a password */
  url: string;
  /** what the machines need besides: PGPASSWORD (and, for a server of yours, your other PG* variables) */
  env: Record<string, string>;
  /** the password (never shown: the runner fails a step that prints it) */
  password: string;
  /** the database made for this run */
  database: string;
  /** one line: which server this is, and what happens to it at the end */
  origin: string;
  /** the tour's own server (undefined: a server of yours) */
  server?: { dir: string; pid: number | undefined; major: number };
}

/** A journal, or why there is none here (`skipped`) and what would give one (`howToSee`). */
export type JournalOffer = { journal: DemoJournal } | { skipped: string; howToSee: string };

/** The variable that names a server of yours (or `off`). */
export const DEMO_JOURNAL_VARIABLE = 'CARDCTL_DEMO_JOURNAL_URL';

const HOW_TO_SEE =
  `install PostgreSQL 15 or later (the demo then starts a throwaway server of its own), or set ${DEMO_JOURNAL_VARIABLE}=postgres://USER@HOST/DB ` +
  'to a server of yours (the password in PGPASSWORD; the demo makes a new database there and drops it at the end)';

/** PostgreSQL's libpq variables a server of yours may need (passed to the machines as they are). */
const LIBPQ_VARIABLES = /^PG[A-Z_]+$/;

/** The folder holding `initdb` and `postgres`, and its version's major. */
export interface PostgresBinaries {
  dir: string;
  major: number;
}

const isExecutable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
};

/**
 * The newest /usr/lib/postgresql/N/bin (Debian, Ubuntu), else the folder of `initdb` on PATH
 * (Homebrew, Fedora), holding every one of `programs`; undefined: none. (The tests' harness finds
 * its binaries here too, psql among them: test/helpers/postgres-cluster.ts.)
 */
export function findPostgres(
  root = '/usr/lib/postgresql',
  path = process.env.PATH ?? '',
  programs: readonly string[] = ['initdb', 'postgres'],
): PostgresBinaries | undefined {
  const complete = (dir: string): boolean => programs.every((p) => isExecutable(join(dir, p)));
  let versions: string[] = [];
  try {
    versions = readdirSync(root).filter((v) => /^\d+$/.test(v) && complete(join(root, v, 'bin')));
  } catch {}
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest) return { dir: join(root, newest, 'bin'), major: Number(newest) };
  for (const dir of path.split(delimiter).filter(Boolean)) {
    if (!isExecutable(join(dir, 'initdb'))) continue;
    const real = dirname(realpathSync(join(dir, 'initdb')));
    if (complete(real)) return { dir: real, major: Number(/(\d+)(?:\/bin)?$/.exec(real)?.[1] ?? 0) };
  }
  return undefined;
}

/** A program's stdout; rejects with its stderr's last lines (never with its arguments or environment). */
function run(
  file: string,
  args: string[],
  o: { user?: { uid: number; gid: number }; cwd?: string } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
        cwd: o.cwd,
        timeout: 60_000,
        ...(o.user ? { uid: o.user.uid, gid: o.user.gid } : {}),
      },
      (err, stdout, stderr) =>
        err
          ? reject(
              new Error(
                `${basename(file)} failed: ${String(stderr).trim().split('\n').slice(-3).join(' ') || (err.killed ? 'timed out' : `exit ${err.code}`)}`,
              ),
            )
          : resolve(String(stdout).trim()),
    );
  });
}

const exited = (child: ChildProcess): boolean => child.exitCode !== null || child.signalCode !== null;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const onPath = (program: string): boolean =>
  (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, program)));

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** The role of the tour's own server (its superuser: the server is the tour's alone). */
const OWN_USER = 'cardctl_demo';

/** A throwaway cluster: its folder, its postmaster (a child of this process), stopped and removed by `stop`. */
class OwnServer {
  port = 0;
  child: ChildProcess | undefined;
  readonly password = randomBytes(18).toString('hex');
  private stopping: Promise<void> | undefined;
  private readonly atExit = (): void => {
    // the demo exits without having stopped it (an error past every handler): an immediate shutdown
    if (this.child && !exited(this.child)) this.child.kill('SIGQUIT');
    rmSync(this.dir, { recursive: true, force: true });
  };

  constructor(
    readonly bin: PostgresBinaries,
    readonly dir: string,
    private readonly user: { uid: number; gid: number } | undefined,
  ) {
    process.once('exit', this.atExit);
  }

  get stopped(): boolean {
    return this.stopping !== undefined;
  }

  /** initdb, then the postmaster on a free port (another one if a process takes it first). */
  async start(): Promise<void> {
    const pwfile = join(this.dir, 'pw');
    writeFileSync(pwfile, this.password, { mode: 0o600 });
    if (this.user) chownSync(pwfile, this.user.uid, this.user.gid);
    try {
      await run(
        join(this.bin.dir, 'initdb'),
        [
          '-D',
          join(this.dir, 'data'),
          '-U',
          OWN_USER,
          `--pwfile=${pwfile}`,
          '--auth=scram-sha-256',
          '-E',
          'UTF8',
        ].concat(['--locale=C', '--no-sync', '--no-instructions']),
        { user: this.user, cwd: this.dir },
      );
    } finally {
      rmSync(pwfile, { force: true });
    }
    const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
    writeFileSync(
      join(this.dir, 'data', 'pg_hba.conf'),
      'local all all scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\n',
    );
    for (let attempt = 1; ; attempt++) {
      this.port = await freePort();
      appendFileSync(
        join(this.dir, 'data', 'postgresql.conf'),
        [
          '',
          "# cardctl demo's throwaway server (src/demo/postgres.ts)",
          "listen_addresses = '127.0.0.1'",
          `port = ${this.port}`,
          `unix_socket_directories = ${q(this.dir)}`,
          'max_connections = 20',
          'shared_buffers = 16MB',
          "timezone = 'UTC'",
          'fsync = off',
          'full_page_writes = off',
          '',
        ].join('\n'),
      );
      try {
        return await this.launch();
      } catch (err) {
        if (this.stopped || attempt === 3 || !/could not bind|Address already in use/.test((err as Error).message))
          throw err;
      }
    }
  }

  private async launch(): Promise<void> {
    if (this.stopped) throw new Error('the demo is stopping');
    const args = ['-D', join(this.dir, 'data')];
    // SIGINT (a fast shutdown) to the postmaster if the demo dies, however it dies (Linux, util-linux)
    const [file, argv] = onPath('setpriv')
      ? ['setpriv', ['--pdeathsig', 'INT', '--', join(this.bin.dir, 'postgres'), ...args]]
      : [join(this.bin.dir, 'postgres'), args];
    const logFile = join(this.dir, 'server.log');
    const log = openSync(logFile, 'a');
    const from = statSync(logFile).size;
    let child: ChildProcess;
    try {
      child = spawn(file, argv, {
        cwd: this.dir,
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C', TZ: 'UTC' },
        stdio: ['ignore', log, log],
        ...(this.user ? { uid: this.user.uid, gid: this.user.gid } : {}),
      });
    } finally {
      closeSync(log);
    }
    this.child = child;
    child.once('error', () => {});
    const started = Date.now();
    while (!exited(child) && !this.stopped && Date.now() - started < 30_000) {
      let lines: string[] = [];
      try {
        lines = readFileSync(join(this.dir, 'data', 'postmaster.pid'), 'utf8').split('\n');
      } catch {}
      if (Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return;
      await sleep(20);
    }
    if (!exited(child)) await this.shutdown();
    let tail = '';
    try {
      tail = readFileSync(logFile, 'utf8').slice(from).trim().split('\n').slice(-3).join(' ');
    } catch {}
    throw new Error(`the server did not start${this.stopped ? ' (the demo is stopping)' : ''}: ${tail || 'no log'}`);
  }

  /** SIGINT (a fast shutdown), SIGQUIT after 5 s, SIGKILL after 10 s; resolves when the postmaster is gone. */
  private async shutdown(): Promise<void> {
    const child = this.child;
    if (!child || exited(child)) return;
    const gone = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGINT');
    const quit = setTimeout(() => child.kill('SIGQUIT'), 5_000);
    const kill = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(quit);
    clearTimeout(kill);
  }

  /** Stops the server and removes its folder; at any time, once. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      await this.shutdown();
      rmSync(this.dir, { recursive: true, force: true, maxRetries: 3 });
      process.removeListener('exit', this.atExit);
    })();
    return this.stopping;
  }
}

/** As root, the server runs as `postgres` (it refuses to run as root): its uid and gid; undefined when not root. */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  try {
    return { uid: Number(await run('id', ['-u', 'postgres'])), gid: Number(await run('id', ['-g', 'postgres'])) };
  } catch {
    throw new Skip(
      'the demo runs as root, and PostgreSQL refuses to: there is no `postgres` user to run its server as',
      `run the demo as another user, or set ${DEMO_JOURNAL_VARIABLE}=postgres://USER@HOST/DB to a server of yours`,
    );
  }
}

/** The section is skipped, for this reason (said in one line, with what would show it). */
class Skip extends Error {
  constructor(
    why: string,
    readonly howToSee: string,
  ) {
    super(why);
  }
}

/** A new database's name: the time and a random part, so that two runs never share one. */
function databaseName(): string {
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  return `cardctl_demo_${stamp}_${randomBytes(3).toString('hex')}`;
}

/** An administrative statement on `url`'s server, with cardctl's own reading of the URL (libpq's, the PG* variables, ~/.pgpass). */
async function admin(
  url: string,
  env: NodeJS.ProcessEnv,
  from: string,
): Promise<{
  shown: string;
  password: string;
  statement: (sql: string) => Promise<Array<Record<string, unknown>>>;
  end: () => Promise<void>;
}> {
  const [{ postgresTarget }, { PostgresConnection }, { loadPostgres }] = await Promise.all([
    import('../client/journal-db/target.js'),
    import('../client/journal-db/postgres-connection.js'),
    import('../client/journal-db/postgres.js'),
  ]);
  const target = postgresTarget({ source: 'environment', from, value: url }, env);
  if (!target) throw new Error(`${from} is not a PostgreSQL URL: give postgres://USER@HOST:PORT/DATABASE, or off`);
  // a statement on the URL's own database (CREATE DATABASE): the journal's search_path does not matter
  const conn = new PostgresConnection(target, loadPostgres);
  const clean = (text: string): string => (target.password ? text.replaceAll(target.password, '[redacted]') : text);
  return {
    shown: target.shown,
    password: target.password,
    statement: async (sql) => {
      conn.hold();
      try {
        const db = await conn.open();
        return [...(await db.unsafe(sql))] as Array<Record<string, unknown>>;
      } catch (err) {
        const e = err as { message?: string; code?: string };
        throw new Error(`${target.shown}: ${clean(String(e.message ?? err))}${e.code ? ` (${e.code})` : ''}`);
      } finally {
        conn.release();
      }
    },
    end: () => conn.end(1),
  };
}

/** `url` naming `database` instead, without a password: what the machines are given. */
function onDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.password = '';
  u.pathname = `/${database}`;
  u.searchParams.delete('dbname');
  u.searchParams.delete('password');
  return u.toString();
}

/**
 * Finds the section's PostgreSQL (see the top of this file), once; `close` undoes what it made,
 * at any time (also while it is starting: Ctrl-C), once.
 */
export class JournalProvider {
  private offered: Promise<JournalOffer> | undefined;
  private server: OwnServer | undefined;
  private drop: (() => Promise<void>) | undefined;
  private closing: Promise<void> | undefined;
  private keptDatabase: string | undefined;

  constructor(
    private readonly o: {
      /** the user's environment (CARDCTL_DEMO_JOURNAL_URL, the PG* variables, PATH) */
      env: NodeJS.ProcessEnv;
      /** --keep: a database made on a server of yours is kept */
      keep: boolean;
      /** where to look for the binaries (tests) */
      find?: () => PostgresBinaries | undefined;
    },
  ) {}

  /** Whether CARDCTL_DEMO_JOURNAL_URL names a server (not unset, not `off`). */
  namedByUser(): boolean {
    const given = this.o.env[DEMO_JOURNAL_VARIABLE]?.trim();
    return Boolean(given) && given !== 'off';
  }

  offer(): Promise<JournalOffer> {
    this.offered ??= this.provide().catch((err) => {
      if (err instanceof Skip) return { skipped: err.message, howToSee: err.howToSee };
      throw err;
    });
    return this.offered;
  }

  private async provide(): Promise<JournalOffer> {
    const given = this.o.env[DEMO_JOURNAL_VARIABLE]?.trim();
    if (given === 'off') throw new Skip(`${DEMO_JOURNAL_VARIABLE}=off`, 'unset it, or set it to a server of yours');
    if (given) return { journal: await this.yours(given) };
    const bin = (this.o.find ?? findPostgres)();
    if (!bin) throw new Skip('no PostgreSQL on this machine', HOW_TO_SEE);
    if (bin.major < 15)
      throw new Skip(
        `PostgreSQL ${bin.major} is installed (${bin.dir}); the shared journal needs 15 or later`,
        HOW_TO_SEE,
      );
    try {
      return { journal: await this.own(bin) };
    } catch (err) {
      if (err instanceof Skip || this.closing) throw err;
      throw new Skip(
        `PostgreSQL ${bin.major} (${bin.dir}) could not be started here: ${(err as Error).message}`,
        `set ${DEMO_JOURNAL_VARIABLE}=postgres://USER@HOST/DB to a server of yours`,
      );
    }
  }

  /** A server of yours: a new database on it for this run. */
  private async yours(url: string): Promise<DemoJournal> {
    const db = await admin(url, this.o.env, DEMO_JOURNAL_VARIABLE);
    const database = databaseName();
    try {
      const [version] = await db.statement('SHOW server_version_num');
      const major = Math.floor(Number(version?.server_version_num) / 10000);
      if (major < 15) throw new Error(`${db.shown} is PostgreSQL ${major}: the shared journal needs 15 or later`);
      await db.statement(`CREATE DATABASE ${database}`);
    } catch (err) {
      const message = (err as Error).message;
      throw new Error(
        `${DEMO_JOURNAL_VARIABLE}: ${message}` +
          (/\(42501\)$/.test(message) ? '; the demo makes a new database for each run: its role needs CREATEDB' : ''),
      );
    } finally {
      await db.end();
    }
    if (this.o.keep)
      this.keptDatabase = `the database ${database} on ${db.shown.replace(/\/[^/]*$/, '')} (drop it with DROP DATABASE ${database})`;
    else
      this.drop = async () => {
        const again = await admin(url, this.o.env, DEMO_JOURNAL_VARIABLE);
        try {
          await again.statement(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        } catch (err) {
          throw new Error(`the database ${database} could not be dropped: ${(err as Error).message}`);
        } finally {
          await again.end();
        }
      };
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.o.env)) if (LIBPQ_VARIABLES.test(k) && v !== undefined) env[k] = v;
    if (db.password) env.PGPASSWORD = db.password;
    const journalUrl = onDatabase(url, database);
    return {
      url: journalUrl,
      env,
      password: db.password,
      database,
      origin: `your server (${DEMO_JOURNAL_VARIABLE}, ${db.shown}): a new database ${database} for this run, ${this.o.keep ? 'kept (--keep)' : 'dropped at the end'}`,
    };
  }

  /** The tour's own throwaway server. */
  private async own(bin: PostgresBinaries): Promise<DemoJournal> {
    const user = await serverUser();
    const dir = mkdtempSync(join(tmpdir(), 'cardctl-demo-pg-'));
    if (user) chownSync(dir, user.uid, user.gid);
    const server = new OwnServer(bin, dir, user);
    this.server = server;
    if (this.closing) await server.stop(); // Ctrl-C came while the user was looked up
    await server.start();
    const url = `postgres://${OWN_USER}@127.0.0.1:${server.port}/postgres`;
    const env = { PGPASSWORD: server.password };
    const db = await admin(url, env, 'the demo');
    const database = databaseName();
    try {
      await db.statement(`CREATE DATABASE ${database}`);
    } finally {
      await db.end();
    }
    return {
      url: onDatabase(url, database),
      env,
      password: server.password,
      database,
      origin: `PostgreSQL ${bin.major} of this machine (${bin.dir}), started for the tour on 127.0.0.1:${server.port}, data in ${dir}: stopped and removed at the end`,
      server: { dir, pid: server.child?.pid, major: bin.major },
    };
  }

  /** With --keep, the database made on a server of yours (it is not dropped), for the closing lines. */
  kept(): string | undefined {
    return this.keptDatabase;
  }

  /** Stops the tour's server, or drops the database made on yours; at any time, once. Rejects when the database could not be dropped (its name in the message). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.server?.stop();
      await this.offered?.catch(() => undefined);
      await this.server?.stop(); // one that was still starting
      await this.drop?.();
    })();
    return this.closing;
  }
}
