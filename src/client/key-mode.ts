// The mode of an API key is what the API says of it, not what a profile or CARDCTL_MODE claims
// (PRODUCT.md, "Live safety"; docs/money.md, "Live safety"). cardctl learns each key id's mode
// from the API and remembers it on this machine, in `key-modes.json` in the state folder (next to
// the journal): key ids and modes only, never a secret.
//
// - learnKeyMode: every answer that tells is remembered (a card answer carries `mode`; a
//   live-only funding route answers a live key and refuses a test key with a 403 without code).
// - checkKeyMode: before the live confirmation of a money operation (src/client/client.ts) and
//   before the first row of a batch (src/cli/batch.ts). A mode not known yet is asked of the API
//   once per key id (GET /deposit-addresses, a read); a profile or CARDCTL_MODE that contradicts
//   the API is refused before anything is sent (exit 2); a mode the API could not tell is live.
//
// The file is written atomically (a temporary file renamed over it); a damaged or unreadable file
// means "nothing known" (the mode is asked again), never a crash; an unwritable one only means the
// next process asks again.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteDef } from '../contract/routes.js';
import { CardctlError } from '../errors.js';
import type { Credentials, Mode } from '../profiles/types.js';
import { stateDir } from './state-folder.js';

export const KEY_MODES_FILE = 'key-modes.json';
/** Key ids kept (the most recently learned): a fresh mock per test run brings new ones. */
const MAX_KEYS = 1000;
/** The route asked: live keys only, a read (nothing changes), answered 403 without a code to a test key (spec, Errors). */
export const PROBE_PATH = '/deposit-addresses';

interface Entry {
  mode: Mode;
  learned_at: string;
  /** what told it: `answer` (a resource's `mode`: a card), or `answer of GET /deposit-addresses` (a live-only route: the check's question) */
  from: string;
}

/** What a money operation needs to know: whether it is live, and why when no profile said so. */
export interface KeyModeVerdict {
  live: boolean;
  /** said after the confirmation's question when the profile or environment did not say live, e.g. ` (key K is a live key, as the API says; CARDCTL_MODE is not set)` */
  note: string;
}

/** What the client offers the check: its credentials and a signed request. */
export interface ProbingClient {
  readonly credentials: Credentials;
  send(req: { method: string; path: string }): Promise<unknown>;
}

// Per process: the file is read once; a key id is asked once (a batch's rows share the answer).
let loaded: { file: string; keys: Map<string, Entry> } | undefined;
const asked = new Map<string, Promise<{ mode?: Mode; why?: string }>>();

export function keyModesFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(stateDir(env), KEY_MODES_FILE);
}

/** The file's entries; anything unreadable or malformed is left out (a damaged file: nothing known). */
function readEntries(file: string): Map<string, Entry> {
  const keys = new Map<string, Entry>();
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return keys;
  }
  const stored = (doc as { keys?: unknown } | null)?.keys;
  if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return keys;
  for (const [keyId, e] of Object.entries(stored as Record<string, unknown>)) {
    const { mode, learned_at, from } = (e ?? {}) as Partial<Entry>;
    if ((mode === 'test' || mode === 'live') && typeof learned_at === 'string')
      keys.set(keyId, { mode, learned_at, from: typeof from === 'string' ? from : 'unknown' });
  }
  return keys;
}

function memory(env: NodeJS.ProcessEnv): { file: string; keys: Map<string, Entry> } {
  let file: string;
  try {
    file = keyModesFile(env);
  } catch {
    // no absolute state folder (src/client/state-folder.ts): known for this process only; a
    // money operation says what is wrong when it opens the journal
    file = '';
  }
  if (loaded?.file !== file) loaded = { file, keys: readEntries(file) };
  return loaded;
}

/** The mode remembered for a key id on this machine, or undefined. */
export function rememberedMode(keyId: string, env: NodeJS.ProcessEnv = process.env): Mode | undefined {
  return memory(env).keys.get(keyId)?.mode;
}

/** Remembers a key id's mode (this process at once; the file when it can be written). */
export function rememberMode(keyId: string, mode: Mode, from: string, env: NodeJS.ProcessEnv = process.env): void {
  const { file, keys } = memory(env);
  if (keys.get(keyId)?.mode === mode) return; // the common case (every row of a batch): nothing to write
  const entry: Entry = { mode, learned_at: new Date().toISOString(), from };
  keys.set(keyId, entry);
  if (file === '') return;
  const onDisk = readEntries(file); // another process may have learned other keys meanwhile
  onDisk.set(keyId, entry);
  const kept = [...onDisk].sort((a, b) => b[1].learned_at.localeCompare(a[1].learned_at)).slice(0, MAX_KEYS);
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    mkdirSync(stateDir(env), { recursive: true, mode: 0o700 });
    writeFileSync(tmp, `${JSON.stringify({ version: 1, keys: Object.fromEntries(kept) }, null, 1)}\n`, { mode: 0o600 });
    renameSync(tmp, file);
  } catch {
    // an unwritable state folder: known for this process, asked again by the next (a money operation says what is wrong with the folder itself)
    try {
      unlinkSync(tmp);
    } catch {
      /* never written */
    }
  }
}

/** What an answer tells of its key's mode: a resource's `mode` (card answers), or a live-only route's answer. */
export function modeOfAnswer(a: {
  route?: RouteDef;
  status?: number;
  body?: unknown;
  code?: string;
}): Mode | undefined {
  if (!a.route) return undefined; // only the API's own routes (`request` may reach anything behind the base URL)
  const data = (a.body as { data?: unknown } | null | undefined)?.data;
  const resource = Array.isArray(data) ? data[0] : data; // a list page: its items share the key's mode
  const mode = resource && typeof resource === 'object' ? (resource as { mode?: unknown }).mode : undefined;
  if (mode === 'test' || mode === 'live') return mode;
  if (!a.route.liveOnly || a.status === undefined) return undefined;
  if (a.status >= 200 && a.status < 300) return 'live';
  if (a.status === 403 && a.code === undefined) return 'test'; // the live-only refusal (a gateway refusal has a code: out_of_scope, ip_not_allowed)
  return undefined;
}

/** Passive learning: called with every answer (src/client/client.ts). Costs a map lookup when nothing is new. */
export function learnKeyMode(
  keyId: string,
  answer: Parameters<typeof modeOfAnswer>[0],
  env: NodeJS.ProcessEnv = process.env,
): void {
  const mode = modeOfAnswer(answer);
  if (mode)
    rememberMode(
      keyId,
      mode,
      answer.route?.liveOnly ? `answer of ${answer.route.method} ${answer.route.path}` : 'answer',
      env,
    );
}

/** Asks the API once per key id and process: a live-only route answers a live key and refuses a test key. */
function askApi(
  client: ProbingClient,
  env: NodeJS.ProcessEnv,
  log?: (line: string) => void,
): Promise<{ mode?: Mode; why?: string }> {
  const keyId = client.credentials.keyId;
  let pending = asked.get(keyId);
  if (!pending) {
    pending = (async () => {
      log?.(
        `* key ${keyId}: its mode is not known on this machine; asking the API (GET ${PROBE_PATH} answers live keys only)`,
      );
      try {
        await client.send({ method: 'GET', path: PROBE_PATH });
        rememberMode(keyId, 'live', 'probe', env);
        return { mode: 'live' as const };
      } catch (err) {
        if (!(err instanceof CardctlError)) throw err;
        if (err.status === 403 && err.code === undefined) {
          rememberMode(keyId, 'test', 'probe', env);
          return { mode: 'test' as const };
        }
        // the key itself refused (revoked, bad signature, clock, IP allowlist): the money operation would be too
        if (err.kind === 'auth' && err.code !== 'out_of_scope') throw keyRefused(keyId, err);
        // refused here, nothing sent (a malformed proxy URL, an unreadable CA file): the money operation would be too
        if (err.kind === 'usage' && err.status === undefined) throw err;
        return { why: err.code ?? err.message.replace(/\.$/, '') };
      }
    })();
    asked.set(keyId, pending);
  }
  return pending;
}

function keyRefused(keyId: string, err: CardctlError): CardctlError {
  return new CardctlError(
    `nothing was sent: asked about key ${keyId}'s mode, the API refused the key: ${err.message}`,
    { kind: err.kind, hint: err.hint, status: err.status, code: err.code, errors: err.errors, cause: err },
  );
}

/** Who claimed the mode, for messages: the profile, or the environment. */
const claimant = (c: Credentials): string => (c.source === 'env' ? 'CARDCTL_MODE' : `profile "${c.name}"`);

function mismatch(c: Credentials, actual: Mode): CardctlError {
  const fix =
    c.source === 'env'
      ? `Set CARDCTL_MODE=${actual} (or unset it: the mode is then the key's, as the API says)${actual === 'live' ? '; live money operations then ask for confirmation, or need --yes' : ''}.`
      : `Fix the profile: \`cardctl profiles add ${c.name} --key-id ${c.keyId} --mode ${actual} --base-url ${c.baseUrl} --force\`, with its secret as before (--secret-stdin, or --secret-command CMD)${actual === 'live' ? '; live money operations then ask for confirmation, or need --yes' : ''}.`;
  return new CardctlError(
    `nothing was sent: ${claimant(c)} says ${c.mode}, but key ${c.keyId} is a ${actual} key (the API says so).`,
    { kind: 'usage', code: 'mode_mismatch', hint: fix },
  );
}

/**
 * Before a money operation's live confirmation (and before a batch's first row): whether it is
 * live. Refuses a stated mode that contradicts the API's (exit 2); asks the API when the key's
 * mode is not known; a mode it cannot tell counts as live.
 */
export async function checkKeyMode(
  client: ProbingClient,
  opts: { env?: NodeJS.ProcessEnv; log?: (line: string) => void } = {},
): Promise<KeyModeVerdict> {
  const env = opts.env ?? process.env;
  const c = client.credentials;
  let why: string | undefined;
  let mode = rememberedMode(c.keyId, env);
  if (!mode) ({ mode, why } = await askApi(client, env, opts.log));
  return judgeMode(c, mode, why);
}

/**
 * checkKeyMode without asking the API (`--dry-run`): the verdict from the mode remembered on this
 * machine, or undefined when none is (the real run would ask the API first). Throws the same
 * refusal for a stated mode that contradicts the remembered one.
 */
export function knownKeyMode(c: Credentials, env: NodeJS.ProcessEnv = process.env): KeyModeVerdict | undefined {
  const mode = rememberedMode(c.keyId, env);
  return mode ? judgeMode(c, mode, undefined) : undefined;
}

/** The verdict for a key's mode as the API says it (undefined: it could not tell, `why`). */
function judgeMode(c: Credentials, mode: Mode | undefined, why: string | undefined): KeyModeVerdict {
  if (mode && !c.modeDefaulted && mode !== c.mode) throw mismatch(c, mode);
  if (mode === 'test') return { live: false, note: '' };
  if (mode === 'live')
    return {
      live: true,
      note: c.modeDefaulted ? ` (key ${c.keyId} is a live key, as the API says; CARDCTL_MODE is not set)` : '',
    };
  return {
    live: true,
    note: ` (the API could not tell key ${c.keyId}'s mode: ${why}; an unknown mode is treated as live)`,
  };
}
