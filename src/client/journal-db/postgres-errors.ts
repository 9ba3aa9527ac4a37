// What a shared journal's failure means for the user: every one refuses the money operation
// before anything is sent, naming the journal by its URL without the password (and taking the
// password out of anything the server or the library said, should it be there).
import { CardctlError } from '../../errors.js';
import { isPostgresFailure } from './postgres.js';
import { SCHEMA_VERSION } from './schema.js';
import type { PostgresTarget } from './target.js';

/** Node's and postgres.js's words for a connection that could not be made or was lost. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
]);

const TLS = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME|TLS|SSL|EPROTO/;

/** The server's SQLSTATE classes a user fixes in the URL or on the server. */
const REFUSED_BY_SERVER: Record<string, string> = {
  '28P01': 'the password was refused',
  '28000': 'the server refused this user (pg_hba.conf)',
  '3D000': 'the database does not exist',
  '42501': 'the user may not create or write the journal tables',
  '53300': 'the server has too many connections',
};

export function postgresError(err: unknown, target: PostgresTarget): unknown {
  if (err instanceof CardctlError) return err;
  const newer = (err as { newerSchema?: number } | null)?.newerSchema;
  if (newer !== undefined)
    return new CardctlError(
      `the shared journal ${target.shown} was written by a newer cardctl (its schema ${newer}, this one's ${SCHEMA_VERSION}); this cardctl cannot read it without risking a second charge: nothing is sent or read with it.`,
      {
        kind: 'usage',
        code: 'journal_newer',
        hint: 'Run the newer cardctl (`cardctl --version` tells which one this is).',
      },
    );
  const damagedKey = (err as { damagedKey?: string } | null)?.damagedKey;
  if (damagedKey !== undefined)
    return new CardctlError(
      `the shared journal ${target.shown} holds a damaged record (${clean((err as Error).message, target)}): whether Idempotency-Key ${damagedKey} was sent before cannot be known, so the money operation was not sent.`,
      {
        kind: 'unexpected',
        code: 'journal_damaged',
        idempotencyKey: damagedKey,
        hint: "Ask the database's owner to restore it from a backup; `cardctl ops verify` checks it.",
      },
    );
  if (!isPostgresFailure(err)) return err;
  const d = err.detail;
  const said = clean(d.message, target);
  if (d.timedOut)
    return new CardctlError(`the shared journal ${target.shown} did not answer (${said}); nothing was sent.`, {
      kind: 'unavailable',
      code: 'journal_unreachable',
      hint: 'Check that the database server is up and reachable from here, then run the command again (the same key replays: nothing is charged twice).',
    });
  const code = d.code ?? d.errno ?? '';
  // class 08: the connection failed; 57P01-57P03: the server is shutting down, crashed, or not yet up
  if (UNREACHABLE.has(code) || UNREACHABLE.has(d.errno ?? '') || /^08|^57P0[123]$/.test(code))
    return new CardctlError(`cannot reach the shared journal ${target.shown} (${said}); nothing was sent.`, {
      kind: 'unavailable',
      code: 'journal_unreachable',
      hint: 'Check that the database server is up and reachable from here (host, port, firewall), then run the command again: the same key replays, nothing is charged twice.',
    });
  if (TLS.test(code) || /certificate|self.signed|TLS|SSL/i.test(d.message))
    return new CardctlError(
      `the TLS connection to the shared journal ${target.shown} failed (${said}); nothing was sent.`,
      {
        kind: 'unavailable',
        code: 'journal_tls',
        hint: "Give the server's CA with sslrootcert=/path/ca.pem in the URL (or PGSSLROOTCERT), and a host name its certificate names for sslmode=verify-full.",
      },
    );
  const refused = REFUSED_BY_SERVER[code];
  if (refused)
    return new CardctlError(`the shared journal ${target.shown}: ${refused} (${said}); nothing was sent.`, {
      kind: code === '53300' ? 'unavailable' : 'usage',
      code: 'journal_refused',
      hint: 'Check the user, the password (PGPASSWORD, the URL, or ~/.pgpass: read only when others cannot read it, chmod 600) and the database name with `psql` and the same URL.',
    });
  return new CardctlError(`the shared journal ${target.shown} could not be used (${said}); nothing was sent.`, {
    kind: 'unavailable',
    code: 'journal_unusable',
    hint: 'Run `cardctl doctor` to see whether the journal is reachable; then run the command again.',
  });
}

/** The server's or library's words without the password, should they quote it. */
function clean(text: string, target: PostgresTarget): string {
  const words = text.split('\n')[0]!.slice(0, 300);
  return target.password ? words.split(target.password).join('***') : words;
}
