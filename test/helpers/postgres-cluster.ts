// The files of a throwaway PostgreSQL cluster (test/helpers/postgres.ts starts and stops it): where
// the machine's PostgreSQL binaries are, the temp folder the server's user owns, initdb, the
// server's settings and pg_hba.conf, the TLS certificates (openssl), the SCRAM verifier of a
// password (so the password itself never reaches the server, its log or a command line).
import { execFile } from 'node:child_process';
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { findPostgres as findInstalled, type PostgresBinaries } from '../../src/demo/postgres.js';

export type { PostgresBinaries };

/**
 * The newest of /usr/lib/postgresql/N/bin (Debian, Ubuntu; CARDCTL_TEST_PG_ROOT names another
 * such folder, or none), else the folder of `initdb` on PATH (Homebrew, Fedora); undefined when
 * neither has initdb, postgres and psql. The demo's own search (src/demo/postgres.ts), psql added.
 */
export const findPostgres = (
  root = process.env.CARDCTL_TEST_PG_ROOT ?? '/usr/lib/postgresql',
  path = process.env.PATH ?? '',
): PostgresBinaries | undefined => findInstalled(root, path, ['initdb', 'postgres', 'psql']);

/** As root, the server runs as `postgres` (it refuses to run as root): its uid and gid. */
export interface ServerUser {
  uid: number;
  gid: number;
}

/** The `postgres` account when this process is root (undefined otherwise: the server runs as us). */
export async function serverUser(): Promise<ServerUser | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = await run('id', ['-u', 'postgres']).then(
    async (uid) => ({ uid: Number(uid), gid: Number(await run('id', ['-g', 'postgres'])) }),
    () => undefined,
  );
  if (!ids)
    throw new Error('the tests run as root, and PostgreSQL refuses to: there is no `postgres` user to run it as');
  return ids;
}

/** A command's stdout; rejects with its stderr (never with its arguments or environment: a URL there holds a password). */
export function run(
  file: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; user?: ServerUser; cwd?: string } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        env: options.env ?? { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' },
        cwd: options.cwd,
        timeout: 60_000,
        ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
      },
      (err, stdout, stderr) =>
        err
          ? reject(
              new Error(
                err.code === 'ENOENT'
                  ? `${basename(file)} is not installed, and the PostgreSQL tests run it: install it (Debian/Ubuntu: apt-get install ${basename(file)}; .ci/run does)`
                  : `${basename(file)} failed: ${String(stderr).trim() || (err.killed ? 'timed out' : `exit ${err.code}`)}`,
              ),
            )
          : resolve(String(stdout).trim()),
    );
  });
}

/** A temp folder the server's user owns (0700), under os.tmpdir(). */
export function clusterFolder(user: ServerUser | undefined): string {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  return dir;
}

/** A file in the cluster's folder, owned by the server's user, mode 0600. */
function privateFile(path: string, content: string, user: ServerUser | undefined): void {
  writeFileSync(path, content, { mode: 0o600 });
  if (user) chownSync(path, user.uid, user.gid);
}

export const ADMIN = 'cardctl_admin';

/** `initdb` into DIR/data: the superuser ADMIN with a SCRAM password, UTF-8, locale C, no fsync. */
export async function initCluster(
  bin: PostgresBinaries,
  dir: string,
  user: ServerUser | undefined,
  adminPassword: string,
): Promise<void> {
  const pwfile = join(dir, 'admin.pw');
  privateFile(pwfile, adminPassword, user);
  try {
    await run(
      join(bin.dir, 'initdb'),
      ['-D', join(dir, 'data'), '-U', ADMIN, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '-E', 'UTF8'].concat([
        '--locale=C',
        '--no-sync',
        '--no-instructions',
      ]),
      { user, cwd: dir },
    );
  } finally {
    rmSync(pwfile, { force: true });
  }
}

export interface ClusterSettings {
  port: number;
  tls: boolean;
  /** fsync on (a benchmark's numbers); off by default: a test server, thrown away */
  durable: boolean;
}

/** postgresql.conf's test settings (appended: later lines win) and a pg_hba.conf of password logins only. */
export function writeSettings(dir: string, settings: ClusterSettings): void {
  const data = join(dir, 'data');
  const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
  const lines = [
    "listen_addresses = '127.0.0.1'",
    `port = ${settings.port}`,
    `unix_socket_directories = ${q(dir)}`,
    'max_connections = 50',
    'shared_buffers = 16MB',
    "timezone = 'UTC'",
    "password_encryption = 'scram-sha-256'",
    ...(settings.durable ? [] : ['fsync = off', 'full_page_writes = off']),
    ...(settings.tls
      ? ['ssl = on', `ssl_cert_file = ${q(join(dir, 'server.crt'))}`, `ssl_key_file = ${q(join(dir, 'server.key'))}`]
      : []),
  ];
  appendFileSync(
    join(data, 'postgresql.conf'),
    `\n# cardctl's test server (test/helpers/postgres.ts)\n${lines.join('\n')}\n`,
  );
  const tcp = settings.tls
    ? ['hostssl all all 127.0.0.1/32 scram-sha-256', 'hostnossl all all 127.0.0.1/32 reject']
    : ['host all all 127.0.0.1/32 scram-sha-256'];
  writeFileSync(join(data, 'pg_hba.conf'), ['local all all scram-sha-256', ...tcp, ''].join('\n'));
}

/** Changes the port in postgresql.conf (a retry after another process took the one picked). */
export function setPort(dir: string, port: number): void {
  appendFileSync(join(dir, 'data', 'postgresql.conf'), `port = ${port}\n`);
}

/**
 * A CA (ca.crt, its key ca.key) in DIR, made with openssl: EC P-256, valid 30 days (the tests move
 * clocks a day ahead).
 */
export async function makeCa(dir: string, name = 'cardctl test CA'): Promise<string> {
  await run(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '30'].concat([
      '-keyout',
      join(dir, 'ca.key'),
      '-out',
      join(dir, 'ca.crt'),
      '-subj',
      `/CN=${name}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]),
  );
  return join(dir, 'ca.crt');
}

/** server.crt (CN 127.0.0.1, SAN IP:127.0.0.1 and DNS:localhost) signed by a new CA, and server.key for the server's user. */
export async function makeServerCertificate(dir: string, user: ServerUser | undefined): Promise<string> {
  const ca = await makeCa(dir);
  const ext = join(dir, 'server.ext');
  writeFileSync(
    ext,
    'subjectAltName = IP:127.0.0.1, DNS:localhost\nbasicConstraints = CA:FALSE\n' +
      'keyUsage = digitalSignature, keyEncipherment\nextendedKeyUsage = serverAuth\n',
  );
  const key = join(dir, 'server.key');
  await run(
    'openssl',
    ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'].concat([
      '-keyout',
      key,
      '-out',
      join(dir, 'server.csr'),
      '-subj',
      '/CN=127.0.0.1',
    ]),
  );
  await run(
    'openssl',
    ['x509', '-req', '-in', join(dir, 'server.csr'), '-CA', ca, '-CAkey', join(dir, 'ca.key')].concat([
      '-CAcreateserial',
      '-days',
      '30',
      '-extfile',
      ext,
      '-out',
      join(dir, 'server.crt'),
    ]),
  );
  rmSync(join(dir, 'ca.key'));
  if (user) for (const f of [key, join(dir, 'server.crt')]) chownSync(f, user.uid, user.gid);
  return ca;
}

/** PostgreSQL's stored form of a SCRAM-SHA-256 password (RFC 5802, 4096 iterations). */
export function scramVerifier(password: string): string {
  const salt = randomBytes(16);
  const salted = pbkdf2Sync(password, salt, 4096, 32, 'sha256');
  const hmac = (key: Buffer, text: string) => createHmac('sha256', key).update(text).digest();
  const stored = createHash('sha256').update(hmac(salted, 'Client Key')).digest();
  const server = hmac(salted, 'Server Key');
  return `SCRAM-SHA-256$4096:${salt.toString('base64')}$${stored.toString('base64')}:${server.toString('base64')}`;
}
