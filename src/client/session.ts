// What every API command does first: resolve the credentials, show the profile and mode
// (TTY only), and build the client with its journal, verbose log and live confirmation. The
// journal's code is loaded when the first money operation opens it: a GET never loads it
// (about 7 modules, ~8 ms of every read command's start-up).
import { promptsForbidden } from '../no-input.js';
import type { Credentials } from '../profiles/types.js';
import { ApiClient } from './client.js';
import { closeAgent, configureTransport } from './http.js';
import { caFileNamed, describeRoute, readCaFile } from './network.js';
import type { Journal } from './journal.js';
import { verboseLog } from './verbose.js';
import { terminalSafe, terminalSafeLine } from '../terminal-text.js';
import { alertStream, type Io } from '../io.js';
import { resolveSettings, type Settings } from './settings.js';

export interface SessionOptions {
  /** `--profile` */
  profile?: string;
  verbose?: boolean;
  retries?: number;
  /** `--yes` */
  yes?: boolean;
  /** `--ca-file` */
  caFile?: string;
  /** `--timeout` as typed (seconds), checked here: src/client/timeout.ts */
  timeout?: string;
  /** `--journal`: src/client/journal-db/target.ts */
  journal?: string;
  /** the command sends a money operation: a shared journal starts connecting at once */
  money?: boolean;
  env?: NodeJS.ProcessEnv;
  /** where notes, the profile line, --verbose and prompts go (the command's streams: src/io.ts) */
  io: Io;
  /** a money operation was journaled and is going out (what an interruption reports as unresolved) */
  onSent?: (sent: { idempotencyKey?: string; journalId?: string }) => void;
  /** `--dry-run`: the client sends nothing (src/client/dry-run.ts) */
  dryRun?: boolean;
}

export interface Session {
  client: ApiClient;
  credentials: Credentials;
  /** the operations journal, opened (and its code loaded) on the first call; the client calls it for a money operation */
  openJournal(): Promise<Journal>;
  /** the journal if something opened it */
  openedJournal(): Journal | undefined;
  /** the deadline of each attempt (src/client/timeout.ts), for clients built beside `client` (a batch's) */
  timeoutMs: number;
  /** every setting the session runs with, and where each came from (src/client/settings.ts) */
  settings: Settings;
}

/** Asks on the terminal; only offered when both stdin and stderr are terminals. */
export async function askYesNo(question: string, io: Io): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: alertStream(io) }); // asked under --quiet too
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export async function openSession(opts: SessionOptions): Promise<Session> {
  const { stderr } = opts.io;
  const stderrLog = verboseLog(stderr);
  const env = opts.env ?? process.env;
  let journal: Promise<Journal> | undefined;
  let opened: Journal | undefined;
  const openJournal = (): Promise<Journal> =>
    (journal ??= import('./journal.js').then(
      ({ Journal }) => (opened = Journal.open(env, (line) => stderr.write(line + '\n'), { flag: opts.journal })),
    ));
  // a shared journal starts connecting first: the server's side of it overlaps the settings' reading
  if (opts.money)
    void openJournal()
      .then((j) => j.warmUp())
      .catch(() => {}); // said when the journal is used
  // every setting resolved once, with its origin (src/client/settings.ts; `cardctl config` prints the same)
  const settings = await resolveSettings({ ...opts, env }, { secret: true });
  const credentials = settings.credentials as Credentials;
  const { ignoredEnvironmentNote } = await import('../profiles/resolve.js');
  const ignored = ignoredEnvironmentNote(credentials, env);
  if (ignored) stderr.write(terminalSafe(ignored) + '\n'); // it quotes the environment
  const { timeoutMs, ca } = settings;
  if (stderr.isTTY) {
    const mode = credentials.mode === 'live' ? 'LIVE' : 'test';
    stderr.write(terminalSafeLine(`profile ${credentials.name} (${mode}) ${credentials.baseUrl}`) + '\n'); // the URL may come from the environment
  }
  configureTransport({ extraCa: ca ? readCaFile(ca) : undefined, env });
  if (opts.verbose) {
    stderrLog(`* ${describeRoute(credentials.baseUrl, env)}`);
    if (ca) stderrLog(`* extra CA certificates: ${caFileNamed(ca)}`);
  }
  // stderr first: process.stdin is made at its first use (3-8 ms measured here), and a script's stderr is rarely a terminal
  const interactive = Boolean(stderr.isTTY && process.stdin.isTTY) && !promptsForbidden(env);
  const client = new ApiClient({
    credentials,
    retries: settings.retries,
    log: opts.verbose ? stderrLog : undefined,
    note: (line) => stderr.write(terminalSafe(line) + '\n'), // notes quote answers (a replay's key, a server's words)
    openJournal,
    yes: opts.yes,
    confirm: interactive ? (question) => askYesNo(question, opts.io) : undefined,
    timeoutMs,
    onSent: opts.onSent,
    env,
    dryRun: opts.dryRun,
    journalFlag: opts.journal,
  });
  return { client, credentials, openJournal, openedJournal: () => opened, timeoutMs, settings };
}

/** Opens a session, runs `fn`, and closes the keep-alive sockets so the process exits at once. */
export async function withSession<T>(opts: SessionOptions, fn: (session: Session) => Promise<T>): Promise<T> {
  let session: Session | undefined;
  try {
    session = await openSession(opts);
    return await fn(session);
  } finally {
    await closeSession(session, opts);
  }
}

/**
 * `withSession` for what is pulled a piece at a time (a list's pages, src/output/list.ts): the
 * session opens at the first pull, stays open while the pieces are pulled, and closes after the
 * last, or when the reader stops early or fails (the generator's `return`).
 */
export async function* inSession<T>(
  opts: SessionOptions,
  body: (session: Session) => AsyncIterable<T>,
): AsyncGenerator<T, void, undefined> {
  let session: Session | undefined;
  try {
    session = await openSession(opts);
    yield* body(session);
  } finally {
    await closeSession(session, opts);
  }
}

async function closeSession(session: Session | undefined, opts: SessionOptions): Promise<void> {
  await closeAgent();
  // once a day, after a money operation: resolved operations past the retention compacted, in the background
  const journal = session?.openedJournal();
  if (journal?.wroteOutcome) {
    const { compactInBackground } = await import('./retention.js');
    await compactInBackground(journal, opts.env ?? process.env);
  }
  await journal?.close();
}
