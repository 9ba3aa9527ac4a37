// What every API command does first: resolve the credentials, show the profile and mode
// (TTY only), and build the client with its journal, verbose log and live confirmation.
import { promptsForbidden } from '../no-input.js';
import type { Credentials } from '../profiles/types.js';
import { ApiClient, DEFAULT_RETRIES } from './client.js';
import { closeAgent, configureTransport } from './http.js';
import { chooseCaFile, describeRoute, readCaFile } from './network.js';
import { Journal } from './journal.js';
import { stderrLog } from './verbose.js';

export interface SessionOptions {
  /** `--profile` */
  profile?: string;
  verbose?: boolean;
  retries?: number;
  /** `--yes` */
  yes?: boolean;
  /** `--ca-file` */
  caFile?: string;
  env?: NodeJS.ProcessEnv;
  /** a money operation was journaled and is going out (what an interruption reports as unresolved) */
  onSent?: (sent: { idempotencyKey?: string; journalId?: string }) => void;
}

export interface Session {
  client: ApiClient;
  credentials: Credentials;
  journal: Journal;
}

/** `CARDCTL_TIMEOUT_MS`: the per-attempt timeout, when set to a positive number. */
/** The per-attempt deadline in ms: CARDCTL_TIMEOUT (seconds), else CARDCTL_TIMEOUT_MS; undefined: the default (30 s). */
export function timeoutFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const s = env.CARDCTL_TIMEOUT !== undefined && env.CARDCTL_TIMEOUT.trim() !== '' ? Number(env.CARDCTL_TIMEOUT) : NaN;
  if (Number.isFinite(s) && s > 0) return Math.round(s * 1000);
  const v = Number(env.CARDCTL_TIMEOUT_MS);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

/** Asks on the terminal; only offered when both stdin and stderr are terminals. */
export async function askYesNo(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

export async function openSession(opts: SessionOptions = {}): Promise<Session> {
  const env = opts.env ?? process.env;
  const { resolveCredentials } = await import('../profiles/resolve.js'); // lazy: conf is heavy
  const credentials = await resolveCredentials({ profile: opts.profile, env });
  if (process.stderr.isTTY) {
    const mode = credentials.mode === 'live' ? 'LIVE' : 'test';
    process.stderr.write(`profile ${credentials.name} (${mode}) ${credentials.baseUrl}\n`);
  }
  const ca = chooseCaFile({ flag: opts.caFile, profile: credentials.caFile, profileName: credentials.name, env });
  configureTransport({ extraCa: ca ? readCaFile(ca) : undefined, env });
  if (opts.verbose) {
    stderrLog(`* ${describeRoute(credentials.baseUrl, env)}`);
    if (ca) stderrLog(`* extra CA certificates: ${ca.file} (from ${ca.source})`);
  }
  const journal = Journal.open(env);
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY) && !promptsForbidden(env);
  const client = new ApiClient({
    credentials,
    retries: opts.retries ?? DEFAULT_RETRIES,
    log: opts.verbose ? stderrLog : undefined,
    note: (line) => process.stderr.write(line + '\n'),
    journal,
    yes: opts.yes,
    confirm: interactive ? askYesNo : undefined,
    timeoutMs: timeoutFromEnv(env),
    onSent: opts.onSent,
  });
  return { client, credentials, journal };
}

/** Opens a session, runs `fn`, and closes the keep-alive sockets so the process exits at once. */
export async function withSession<T>(opts: SessionOptions, fn: (session: Session) => Promise<T>): Promise<T> {
  try {
    return await fn(await openSession(opts));
  } finally {
    await closeAgent();
  }
}
