// A real, throwaway PostgreSQL server for the tests of the shared journal, from the machine's own
// binaries (the newest /usr/lib/postgresql/N/bin, else PATH): initdb into a temp folder (as the
// `postgres` user when the tests run as root), the postmaster in the foreground on 127.0.0.1 and a
// free port, its socket in that folder, password logins only (scram-sha-256) for a role with a
// random password and a database it owns. About a second to start; nothing printed on success; a
// failure says why with the server log's tail (never a password).
//
//   const withPostgres = needsPostgres();            // test/helpers/programs.ts; describe.runIf(withPostgres)(...)
//   let pg: Postgres;
//   beforeAll(async () => { pg = await startPostgres(); });
//   afterAll(() => pg?.stop());
//
// Teardown: stop() in the test file's afterAll (or a test's finally). Backstops, so that no server
// outlives `npm test`: the postmaster gets SIGINT (a fast shutdown) when the worker that started
// it dies, even by SIGKILL (`setpriv --pdeathsig`, where util-linux has it); the worker's exit
// shuts down every server still running; and test/setup/children.ts kills a forgotten one after
// its file (it would kill it after the test that restarted it, so the postmaster is marked to
// outlive the test: it belongs to the file, like the pg object).
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import * as cluster from './postgres-cluster.js';
import { Server } from './postgres-server.js';

export interface StartOptions {
  /** TLS required (hostssl only): a CA and a server certificate for 127.0.0.1 and localhost */
  tls?: boolean;
  /** fsync on, for a benchmark's figures; tests leave it off (a thrown-away server) */
  durable?: boolean;
}

export interface Postgres {
  /** postgres://USER:PASSWORD@127.0.0.1:PORT/DB; with tls, ?sslmode=verify-full&sslrootcert=CA (libpq's form) */
  url: string;
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  database: string;
  /** the CA that signed the server's certificate (tls only) */
  caFile?: string;
  /** libpq's variables for the same login (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, PGSSLMODE, PGSSLROOTCERT) */
  env: Record<string, string>;
  /** the temp folder of its data, socket, certificates and server.log (removed by stop()) */
  folder: string;
  /** the postmaster's pid while it runs */
  pid(): number | undefined;
  /** the server's log so far (passwords never reach it) */
  log(): string;
  /** a new empty database owned by `user` (a test's own): its URL */
  createDatabase(name: string): Promise<string>;
  /** SQL run by psql as the cluster's superuser (over the socket), in DATABASE (default: `database`): psql's unaligned output */
  psql(sql: string, database?: string): Promise<string>;
  /** shuts the server down, keeping its data (`immediate`: as if it crashed; the next start recovers) */
  stopServer(mode?: 'fast' | 'immediate'): Promise<void>;
  /** starts it again on the same port with the same data */
  startServer(): Promise<void>;
  restart(): Promise<void>;
  /** stops the server and removes its folder; safe to call twice */
  stop(): Promise<void>;
}

const INSTALL =
  'PostgreSQL is not installed (no initdb, postgres and psql in /usr/lib/postgresql/N/bin or on PATH), and the ' +
  'shared journal tests run a real server: install it (Debian/Ubuntu: apt-get install postgresql; .ci/run does).';

/** Servers of this process not yet stopped: the exit hook's list. */
const running = new Set<Server>();
process.once('exit', () => {
  for (const server of running) {
    const pid = server.pid();
    try {
      if (pid) process.kill(pid, 'SIGQUIT'); // an immediate shutdown: the postmaster ends its backends and exits
      rmSync(server.dir, { recursive: true, force: true, maxRetries: 5 });
    } catch {} // a folder in /tmp left behind: never an error at exit
  }
});

export async function startPostgres(options: StartOptions = {}): Promise<Postgres> {
  const bin = cluster.findPostgres();
  // (this module imports nothing of vitest's, so that a script can start a server too)
  if (!bin)
    throw new Error(process.env.CARDCTL_REQUIRE_PROGRAMS === '1' ? `${INSTALL} (CARDCTL_REQUIRE_PROGRAMS=1)` : INSTALL);
  const user = await cluster.serverUser();
  const dir = cluster.clusterFolder(user);
  const secret = (): string => randomBytes(18).toString('hex');
  const admin = secret();
  const login = { user: 'cardctl_test', password: secret(), database: 'cardctl' };
  const server = new Server(bin, dir, user, [admin, login.password]);
  running.add(server);
  try {
    const [caFile] = await Promise.all([
      options.tls ? cluster.makeServerCertificate(dir, user) : undefined,
      cluster.initCluster(bin, dir, user, admin),
    ]);
    await server.startOnFreePort({ tls: options.tls === true, durable: options.durable === true });
    const psql = (sql: string, database = login.database): Promise<string> =>
      server.redacting(() =>
        cluster.run(join(bin.dir, 'psql'), ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', sql], {
          // a clean environment: no PG* variable of the developer's shell, the password never on a command line
          env: {
            PATH: process.env.PATH ?? '',
            LC_ALL: 'C',
            PGHOST: dir,
            PGPORT: String(server.port),
            PGUSER: cluster.ADMIN,
            PGPASSWORD: admin,
            PGDATABASE: database,
            PGCONNECT_TIMEOUT: '10',
          },
        }),
      );
    // the role, and initdb's `postgres` database made its own (a rename: CREATE DATABASE takes 0.2 s here)
    await psql(
      `CREATE ROLE ${login.user} LOGIN PASSWORD '${cluster.scramVerifier(login.password)}';` +
        `ALTER DATABASE postgres RENAME TO ${login.database}; ALTER DATABASE ${login.database} OWNER TO ${login.user}`,
      'template1',
    );
    return handle(server, login, caFile, psql);
  } catch (err) {
    await server.remove();
    running.delete(server);
    throw err;
  }
}

function handle(
  server: Server,
  login: { user: string; password: string; database: string },
  caFile: string | undefined,
  psql: (sql: string, database?: string) => Promise<string>,
): Postgres {
  const port = server.port;
  const urlOf = (database: string): string =>
    `postgres://${login.user}:${encodeURIComponent(login.password)}@127.0.0.1:${port}/${database}` +
    (caFile ? `?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}` : '');
  const env: Record<string, string> = {
    PGHOST: '127.0.0.1',
    PGPORT: String(port),
    PGUSER: login.user,
    PGPASSWORD: login.password,
    PGDATABASE: login.database,
    ...(caFile ? { PGSSLMODE: 'verify-full', PGSSLROOTCERT: caFile } : {}),
  };
  return {
    url: urlOf(login.database),
    host: '127.0.0.1',
    port,
    ...login,
    caFile,
    env,
    folder: server.dir,
    pid: () => server.pid(),
    log: () => server.log(),
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
        throw new Error(`createDatabase: ${JSON.stringify(name)} is not a plain name`);
      await psql(`CREATE DATABASE ${name} OWNER ${login.user}`);
      return urlOf(name);
    },
    psql,
    stopServer: (mode = 'fast') => server.shutdown(mode),
    startServer: () => server.start(),
    restart: async () => {
      await server.shutdown('fast');
      await server.start();
    },
    stop: async () => {
      await server.remove();
      running.delete(server);
    },
  };
}
