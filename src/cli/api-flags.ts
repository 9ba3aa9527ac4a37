// The global flags of every API command (PRODUCT.md, "Commands"), shared by the resource
// commands. `--json` comes from BaseCommand.
import type { Io } from '../io.js';
import { Flags } from './oclif.js';
import { usageError } from '../errors.js';

/** `--dry-run` of every command that sends (issue 38): what would be sent, and what the money rules would decide; nothing sent, recorded or asked. */
export const dryRunFlag = {
  'dry-run': Flags.boolean({
    description:
      'print what would be sent (method, URL, headers, body, canonical string; never a signature or secret) and what the journal and money rules would decide; send, record and ask nothing. Exits 0 when all would be sent or answered from the journal, else as the real run would for what is known without sending (5 key reused with another body, 2 needs --yes or held back; docs/output.md)',
    default: false,
    helpGroup: 'API',
  }),
};

export const apiFlags = {
  profile: Flags.string({
    char: 'p',
    description: 'profile to use (default: CARDCTL_API_KEY/SECRET, CARDCTL_PROFILE, then the default profile)',
    helpGroup: 'API',
  }),
  verbose: Flags.boolean({
    char: 'v',
    description: 'print each attempt on stderr: canonical string, headers, answer, retry decisions (never the secret)',
    default: false,
    helpGroup: 'API',
  }),
  'ca-file': Flags.string({
    description:
      "PEM file of CA certificates to trust in addition to the system's (default: CARDCTL_CA_FILE, then the profile's ca_file)",
    helpGroup: 'API',
  }),
  timeout: Flags.string({
    description:
      "seconds each attempt may take, connect to the last byte of the answer (default: CARDCTL_TIMEOUT, then the profile's timeout, then 30)",
    helpGroup: 'API',
  }),
  retries: Flags.integer({
    description:
      'retries for connection errors, 409 in_flight, 429, 503 (and any other 5xx on money operations); default 3',
    min: 0,
    max: 10,
    helpGroup: 'API',
  }),
  ...dryRunFlag,
};

/** The journal money operations are recorded in: a shared PostgreSQL, or the local file (docs/journal.md). */
export const journalFlag = {
  journal: Flags.string({
    description:
      'the journal of money operations: a PostgreSQL URL shared by every machine (postgres://USER@HOST:PORT/DB, the password in PGPASSWORD), `local`, or the absolute path of a journal file (default: CARDCTL_JOURNAL_URL, then the local file in the state folder)',
    helpGroup: 'API',
  }),
};

/** Commands that can send a money operation (issue, recharge, terminate, request, ops replay) add `--yes` and `--journal`. */
export const moneyFlags = {
  ...apiFlags,
  ...journalFlag,
  yes: Flags.boolean({
    description: 'confirm a live money operation without asking',
    default: false,
    helpGroup: 'API',
  }),
};

/** How a `--batch` runs (cards issue and recharge): its own help group; refused without --batch. */
export const batchRunFlags = {
  concurrency: Flags.integer({
    description: 'with --batch: rows sent at once (1 to 16, default 4)',
    min: 1,
    max: 16,
    helpGroup: 'BATCH',
  }),
  'idempotency-prefix': Flags.string({
    description:
      'with --batch: keys are PREFIX-<row digest>-<n> instead of batch-<row digest>-<n> (a new prefix sends rows already done again)',
    helpGroup: 'BATCH',
  }),
  'allow-duplicates': Flags.boolean({
    description: 'with --batch: send rows identical to an earlier row (refused otherwise: each would be charged)',
    helpGroup: 'BATCH',
  }),
  'allow-repeat': Flags.boolean({
    description:
      'with --batch: send rows that repeat a success of the last 24 h under another key (held back otherwise)',
    helpGroup: 'BATCH',
  }),
};

/** The batch flags given without --batch FILE: a usage error (exit 2), before anything is sent. */
export function refuseBatchFlagsAlone(
  flags: {
    concurrency?: number;
    'idempotency-prefix'?: string;
    'allow-duplicates'?: boolean;
    'allow-repeat'?: boolean;
  },
  command: string,
): void {
  if (
    flags.concurrency !== undefined ||
    flags['idempotency-prefix'] !== undefined ||
    flags['allow-duplicates'] ||
    flags['allow-repeat']
  )
    throw usageError(
      '--concurrency, --idempotency-prefix, --allow-duplicates and --allow-repeat apply only with --batch FILE.',
      `See \`cardctl ${command} --help\`.`,
    );
}

export interface ApiFlagValues {
  profile?: string;
  verbose: boolean;
  /** undefined: the default (3), so `cardctl config` can tell a flag from the default */
  retries?: number;
  yes?: boolean;
  'ca-file'?: string;
  timeout?: string;
  journal?: string;
  'dry-run'?: boolean;
}

/** The session options of src/client/session.ts, from parsed flags. */
export function sessionOptions(
  flags: ApiFlagValues,
  io: Io,
): {
  profile?: string;
  verbose: boolean;
  retries?: number;
  yes: boolean;
  caFile?: string;
  timeout?: string;
  journal?: string;
  io: Io;
  dryRun: boolean;
} {
  return {
    journal: flags.journal,
    dryRun: flags['dry-run'] === true,
    io,
    profile: flags.profile,
    verbose: flags.verbose,
    retries: flags.retries,
    yes: flags.yes ?? false,
    caFile: flags['ca-file'],
    timeout: flags.timeout,
  };
}

/** List commands add these (PRODUCT.md): one page by default, `--all` follows the cursors. */
export const listFlags = {
  'per-page': Flags.integer({
    description: 'rows per page, 1 to 100 (the API default is 20)',
    min: 1,
    max: 100,
    helpGroup: 'LIST',
  }),
  cursor: Flags.string({
    description: 'start at this cursor (meta.next_cursor of an earlier page)',
    helpGroup: 'LIST',
  }),
  all: Flags.boolean({ description: 'follow meta.next_cursor to the last page', default: false, helpGroup: 'LIST' }),
  ndjson: Flags.boolean({
    description: 'one JSON resource per line, streamed (constant memory with --all)',
    default: false,
    exclusive: ['json'],
    helpGroup: 'LIST',
  }),
  // `-o, --output` of every command (src/cli/base-command.ts), with the formats of a list
  output: Flags.string({
    char: 'o',
    description:
      "table (the default; text is the same), json (--json), ndjson (--ndjson), csv (RFC 4180) or tsv; csv and tsv stream with --all, and put a ' before a text field a spreadsheet would run as a formula (= + - @ first; see --raw-cells)",
    options: ['table', 'text', 'json', 'ndjson', 'csv', 'tsv'],
    helpGroup: 'GLOBAL',
  }),
  'raw-cells': Flags.boolean({
    description:
      "csv and tsv: every field exactly as the API sent it, also one that begins with = + - @, a tab or a line break (default: such a text field gets a ' in front, so a spreadsheet opening the file shows it instead of running it; numbers are never changed)",
    default: false,
    helpGroup: 'LIST',
  }),
  columns: Flags.string({
    description:
      'the columns of a table, csv or tsv, in order: field names separated by commas, nested ones with dots (address.city)',
    helpGroup: 'LIST',
  }),
};

export interface ListFlagValues extends ApiFlagValues {
  json: boolean;
  /** `--jq` (BaseCommand): filters the list as one array, or each row with --ndjson */
  jq?: string;
  'per-page'?: number;
  cursor?: string;
  all: boolean;
  ndjson: boolean;
  output?: string;
  columns?: string;
  'raw-cells'?: boolean;
}
