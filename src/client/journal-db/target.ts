// Which journal a command records in (docs/journal.md, "A journal shared by a fleet"): `--journal`,
// then CARDCTL_JOURNAL_URL, else the local SQLite file in the state folder (no profile field: the
// `ops` commands take no profile, and every command must read the same journal). A shared one is a PostgreSQL URL, read as libpq reads it (its parameters, and the PG*
// variables for what it leaves out), so a URL that works with psql works here. Its password is
// never shown: the journal is named everywhere by `shown`, without it.
import { readFileSync, statSync } from 'node:fs';
import { homedir, hostname, userInfo } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { CardctlError } from '../../errors.js';

/** The schema a shared journal's tables live in, beside whatever else the database holds. */
export const PG_SCHEMA = 'cardctl_journal';

/** How long a holder of keys may stay silent before the server ends its session (and its keys), by default: it pings at a third of it. */
export const HOLD_SILENCE_S = 60;

export interface PostgresTarget {
  engine: 'postgres';
  /** postgres://user@host:port/database: what messages name (never the password) */
  shown: string;
  /** postgres.js's options, the password among them: only for the connection (src/client/journal-db/postgres.ts) */
  options: Record<string, unknown> & { url: string };
  connectTimeoutS: number;
  /** the password, for taking it out of anything a server or library says */
  password: string;
  /** the URL as given (it may hold the password): only for the background compaction's environment */
  url: string;
  /** seconds a silent holder keeps its keys (CARDCTL_JOURNAL_HOLD, else HOLD_SILENCE_S) */
  holdS: number;
}

export type JournalChoice = { source: 'flag' | 'environment'; from: string; value: string };

/** The journal's URL and where it came from, or undefined: the local file. */
export function chooseJournal(o: { flag?: string; env: NodeJS.ProcessEnv }): JournalChoice | undefined {
  if (o.flag !== undefined && o.flag !== '') return { source: 'flag', from: '--journal', value: o.flag };
  const env = o.env.CARDCTL_JOURNAL_URL?.trim();
  if (env) return { source: 'environment', from: 'CARDCTL_JOURNAL_URL', value: env };
  return undefined;
}

/** libpq's parameters cardctl reads from a URL (any other is refused: it would be ignored, or sent to the server as a setting). */
const PARAMETERS = new Set([
  'host',
  'port',
  'user',
  'password',
  'dbname',
  'sslmode',
  'sslrootcert',
  'sslcert',
  'sslkey',
  'connect_timeout',
  'application_name',
  'options',
  'service',
]);

const SSLMODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'];

const bad = (what: string, hint: string, from: string) =>
  new CardctlError(`${from}: ${what}; nothing was sent.`, { kind: 'usage', code: 'journal_url_invalid', hint });

/**
 * Where the journal is, as chosen: `shared` (a PostgreSQL), else `file` (a SQLite file named by
 * its path; undefined: the state folder's). `chosen` says where the choice came from (undefined:
 * nothing chose, the local file). A URL or path out of shape is a usage error.
 */
export function journalPlace(o: { flag?: string; env: NodeJS.ProcessEnv }): {
  chosen?: JournalChoice;
  shared?: PostgresTarget;
  file?: string;
} {
  const chosen = chooseJournal(o);
  if (!chosen) return {};
  const file = localFileOf(chosen);
  return file !== undefined ? { chosen, file } : { chosen, shared: postgresTarget(chosen, o.env) };
}

/** A SQLite journal file named by its absolute path (a journal on a volume, a copy), or undefined: not a path. */
export function localFileOf(choice: JournalChoice): string | undefined {
  if (choice.value === 'local' || /^[a-z][a-z0-9+.-]*:\/\//i.test(choice.value)) return undefined;
  if (!isAbsolute(choice.value))
    throw bad(
      'a journal file must be named by an absolute path (a relative one would be another journal in another folder)',
      'Give /path/to/journal.db, `local`, or a PostgreSQL URL.',
      choice.from,
    );
  return choice.value;
}

/** `local` (the state folder's SQLite file), an absolute path, or a PostgreSQL URL, read with the PG* variables beside it. */
export function postgresTarget(choice: JournalChoice, env: NodeJS.ProcessEnv): PostgresTarget | undefined {
  if (choice.value === 'local' || localFileOf(choice) !== undefined) return undefined;
  const hint =
    'Give a PostgreSQL URL, postgres://USER@HOST:PORT/DATABASE (the password in PGPASSWORD), `local`, or the absolute path of a journal file.';
  let url: URL;
  try {
    url = new URL(choice.value);
  } catch {
    throw bad('is not a URL (the text is not shown: it may hold a password)', hint, choice.from);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw bad(`a ${url.protocol.replace(/:$/, '')}: URL is not a journal cardctl can use`, hint, choice.from);
  const q = Object.fromEntries(url.searchParams);
  for (const name of Object.keys(q))
    if (!PARAMETERS.has(name))
      throw bad(
        `the parameter ${name} is not one cardctl reads`,
        `It reads ${[...PARAMETERS].join(', ')}.`,
        choice.from,
      );
  // libpq's order: the URL, then its service's section (service= or PGSERVICE), then the PG* variables
  Object.assign(q, { ...serviceSection(q.service || env.PGSERVICE, env, choice.from), ...q });
  const pick = (param: string, variable: string): string | undefined => q[param] || env[variable] || undefined;
  const host = decodeURIComponent(url.hostname.replace(/^\[|\]$/g, '')) || pick('host', 'PGHOST') || 'localhost';
  const port = Number(url.port || pick('port', 'PGPORT') || 5432);
  const user = decodeURIComponent(url.username) || pick('user', 'PGUSER') || userInfo().username;
  const database = decodeURIComponent(url.pathname.slice(1)) || pick('dbname', 'PGDATABASE') || user;
  const password =
    decodeURIComponent(url.password) ||
    pick('password', 'PGPASSWORD') ||
    passwordFileEntry({ host, port, database, user }, env) ||
    '';
  const connectTimeoutS = Number(pick('connect_timeout', 'PGCONNECT_TIMEOUT') ?? 10);
  const holdS = holdSeconds(env);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw bad(`the port ${port} is not a port`, hint, choice.from);
  if (!Number.isFinite(connectTimeoutS) || connectTimeoutS <= 0)
    throw bad('connect_timeout is not a number of seconds', 'Give connect_timeout=10, say.', choice.from);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const shown = `postgres://${encodeURIComponent(user)}@${host.startsWith('/') ? encodeURIComponent(host) : shownHost}:${port}/${encodeURIComponent(database)}`;
  const options = {
    url: 'postgres://',
    host,
    port,
    user,
    pass: password,
    database,
    ssl: sslOption(pick('sslmode', 'PGSSLMODE') ?? 'prefer', q, env, choice.from),
    connect_timeout: connectTimeoutS,
    idle_timeout: 0,
    max_lifetime: 0,
    keep_alive: 10,
    fetch_types: false,
    connection: {
      application_name: pick('application_name', 'PGAPPNAME') ?? `cardctl on ${hostname()} (pid ${process.pid})`,
      search_path: PG_SCHEMA,
      // a holder that stops answering loses its keys (src/client/journal-db/postgres.ts)
      idle_session_timeout: `${holdS}s`,
      idle_in_transaction_session_timeout: `${holdS}s`, // a process frozen inside a transaction holds its rows no longer
      tcp_keepalives_idle: '10',
      tcp_keepalives_interval: '5',
      tcp_keepalives_count: '3',
      statement_timeout: '15s',
      lock_timeout: '15s',
      ...(q.options ? { options: q.options } : {}),
    },
  };
  return { engine: 'postgres', shown, options, connectTimeoutS, password, url: choice.value, holdS };
}

/**
 * The password of the password file (PGPASSFILE, else ~/.pgpass), as libpq reads it: lines of
 * `host:port:database:user:password`, `*` for any, `\` escaping `:` and `\`, the first line that
 * matches; `localhost` also names a socket connection. A file others can read is not used (libpq
 * ignores it too), nor one that cannot be read.
 */
function passwordFileEntry(
  at: { host: string; port: number; database: string; user: string },
  env: NodeJS.ProcessEnv,
): string | undefined {
  const home = env.HOME || homedir();
  const file = env.PGPASSFILE || (home ? join(home, '.pgpass') : undefined);
  let text: string;
  try {
    if (!file || (statSync(file).mode & 0o077) !== 0) return undefined;
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const host = at.host.startsWith('/') ? 'localhost' : at.host;
  const wanted = [host, String(at.port), at.database, at.user];
  for (const line of text.split(/\r?\n/)) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const fields = passwordFileFields(line);
    if (fields.length !== 5) continue;
    if (wanted.every((w, i) => fields[i] === '*' || fields[i] === w)) return fields[4];
  }
  return undefined;
}

/**
 * A service's parameters from libpq's connection service file (`[name]` sections of `key=value`
 * lines): PGSERVICEFILE, else ~/.pg_service.conf; a service not there, from PGSYSCONFDIR's
 * pg_service.conf (else /etc/postgresql-common's, where Debian's libpq looks). None named: none.
 */
function serviceSection(name: string | undefined, env: NodeJS.ProcessEnv, from: string): Record<string, string> {
  if (!name) return {};
  const home = env.HOME || homedir();
  const files = [
    env.PGSERVICEFILE || (home ? join(home, '.pg_service.conf') : undefined),
    join(env.PGSYSCONFDIR || '/etc/postgresql-common', 'pg_service.conf'),
  ].filter((f): f is string => f !== undefined);
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    const section = sectionOf(text, name, file, from);
    if (section) return section;
  }
  throw bad(
    `the service ${JSON.stringify(name)} is in no service file (${files.join(', ')})`,
    `Add a [${name}] section of host=, port=, dbname=, user= lines to ${files[0]}, or name the server in the URL.`,
    from,
  );
}

/** The `[name]` section of a service file, or undefined; a line that is not `key=value`, or a key libpq's URL would not take, is refused (its value never quoted). */
function sectionOf(text: string, name: string, file: string, from: string): Record<string, string> | undefined {
  let inSection = false;
  let found: Record<string, string> | undefined;
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (line.startsWith('[')) {
      if (found) return found; // its section is over
      inSection = line === `[${name}]`;
      if (inSection) found = {};
      continue;
    }
    if (!inSection) continue;
    const eq = line.indexOf('=');
    const key = line.slice(0, Math.max(eq, 0)).trim();
    if (eq < 1 || !PARAMETERS.has(key) || key === 'service')
      throw bad(
        `line ${i + 1} of ${file} (the service ${JSON.stringify(name)}) is not a key=value of a parameter cardctl reads`,
        `It reads ${[...PARAMETERS].filter((p) => p !== 'service').join(', ')}.`,
        from,
      );
    found![key] = line.slice(eq + 1).trim();
  }
  return found;
}

/** A password file's line split at its unescaped colons, the escapes taken out. */
function passwordFileFields(line: string): string[] {
  const fields: string[] = [];
  let field = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) field += line[++i];
    else if (c === ':' && fields.length < 4) fields.push(field), (field = '');
    else field += c;
  }
  return [...fields, field];
}

/** CARDCTL_JOURNAL_HOLD: seconds (3 to 3600) a holder that stops answering keeps its keys; 60 by default. */
function holdSeconds(env: NodeJS.ProcessEnv): number {
  const text = env.CARDCTL_JOURNAL_HOLD?.trim();
  if (!text) return HOLD_SILENCE_S;
  const s = /^\d{1,4}$/.test(text) ? Number(text) : NaN;
  if (!(s >= 3 && s <= 3600))
    throw bad(
      'must be a number of seconds from 3 to 3600',
      'Set it to 60 (the default), say, or unset it.',
      'CARDCTL_JOURNAL_HOLD',
    );
  return s;
}

/** TLS as the connection sets it up: verify-ca and verify-full check the server's certificate against sslrootcert (or the system's CAs). */
export type SslChoice =
  | false
  | 'prefer'
  | 'require'
  | { verify: 'ca' | 'full'; ca?: string; cert?: string; key?: string };

/** libpq's sslmode: disable; allow and prefer (TLS when the server offers it); require (TLS, no check, unless sslrootcert is given: then as verify-ca); verify-ca; verify-full. */
function sslOption(mode: string, q: Record<string, string>, env: NodeJS.ProcessEnv, from: string): SslChoice {
  if (!SSLMODES.includes(mode))
    throw bad(`sslmode ${mode} is not one of ${SSLMODES.join(', ')}`, 'Give sslmode=verify-full, say.', from);
  if (mode === 'disable') return false;
  if (mode === 'allow' || mode === 'prefer') return 'prefer';
  const rootcert = q.sslrootcert || env.PGSSLROOTCERT;
  const read = (file: string | undefined, what: string) => {
    if (!file) return {};
    try {
      return { [what]: readFileSync(file, 'utf8') };
    } catch (err) {
      throw bad(
        `the ${what === 'ca' ? 'CA file (sslrootcert)' : what === 'cert' ? 'client certificate (sslcert)' : 'client key (sslkey)'} ${file} cannot be read (${(err as NodeJS.ErrnoException).code})`,
        'Point it to a readable PEM file.',
        from,
      );
    }
  };
  const client = { ...read(q.sslcert || env.PGSSLCERT, 'cert'), ...read(q.sslkey || env.PGSSLKEY, 'key') };
  if (mode === 'require' && !rootcert && !client.cert) return 'require';
  return {
    verify: mode === 'verify-full' ? 'full' : 'ca',
    ...(rootcert && rootcert !== 'system' ? read(rootcert, 'ca') : {}),
    ...client,
  };
}
