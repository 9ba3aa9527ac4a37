// The settings a command runs with, resolved once (issue 38): the credentials, base URL, mode,
// per-attempt deadline, retries, extra CA file and proxy, each with where its value came from (a
// flag, the environment, the profile, the default). openSession (src/client/session.ts) runs on
// them and `cardctl config` prints them. Values are never secrets: the API secret is only "set"
// with its origin; a CA file or proxy named by the environment is named, not quoted (as every
// message does, docs/profiles.md).
//
// To add a setting: one function `(r: Resolved) => Setting` and one line in SETTINGS below (the
// journal's location is one; a shared journal's variable or a profile's `journal` will join it).
import { join } from 'node:path';
import type { Credentials, StoredCredentials } from '../profiles/types.js';
import { DEFAULT_BASE_URL } from '../profiles/types.js';
import { DEFAULT_RETRIES } from './client.js';
import { type CaChoice, chooseCaFile } from './network.js';
import { proxyFor, showProxy } from './proxy.js';
import { stateDir } from './state-folder.js';
import { chooseJournal, journalPlace } from './journal-db/target.js';
import { pathShown } from '../env-paths.js';
import { chooseTimeoutMs, DEFAULT_TIMEOUT_MS, timeoutFromFlagOrEnv } from './timeout.js';

export type SettingSource = 'flag' | 'environment' | 'profile' | 'default';

export interface Setting {
  /** `profile`, `api_key`, `base_url`, ... (the JSON key of `cardctl config --json`) */
  readonly name: string;
  /** what is in effect, as shown; undefined: none. Never a secret's value */
  readonly value: string | number | undefined;
  readonly source: SettingSource;
  /** the flag, variable or profile it came from, in words: `--timeout`, `CARDCTL_TIMEOUT`, `profile "ci"` */
  readonly from: string;
}

/** What the command line gave (src/cli/api-flags.ts); the rest comes from `env` and the profile. */
export interface SettingsInput {
  profile?: string;
  caFile?: string;
  timeout?: string;
  retries?: number;
  /** `--journal` */
  journal?: string;
  env: NodeJS.ProcessEnv;
  /** a command's own default deadline (doctor: 10 s) */
  defaultTimeoutMs?: number;
}

export interface Settings {
  /** in order, for the listing */
  readonly list: readonly Setting[];
  /** the credentials chosen; with `secret: true` their API secret is in hand */
  readonly credentials: StoredCredentials | Credentials;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly ca: CaChoice | undefined;
}

/** What the settings below read: resolved once, each value with its origin. */
export interface Resolved {
  readonly input: SettingsInput;
  readonly credentials: StoredCredentials | Credentials;
  readonly timeout: { ms: number; source: SettingSource; from: string };
  readonly retries: number;
  readonly ca: CaChoice | undefined;
}

const SETTINGS: ReadonlyArray<(r: Resolved) => Setting> = [
  profileSetting,
  keySetting,
  secretSetting,
  baseUrlSetting,
  modeSetting,
  timeoutSetting,
  retriesSetting,
  caSetting,
  proxySetting,
  journalSetting,
];

/**
 * Resolves every setting once. `secret: true` (a command that sends) also gets the API secret (a
 * profile's secret command runs here); `cardctl config` resolves without it. A bad value (a
 * timeout that is not a number, a CARDCTL_* variable out of shape) is a usage error, as before.
 */
export async function resolveSettings(input: SettingsInput, opts: { secret: boolean }): Promise<Settings> {
  const env = input.env;
  const flagOrEnvMs = timeoutFromFlagOrEnv(input.timeout, env); // a bad value is exit 2 before anything else
  const { selectCredentials, withSecret } = await import('../profiles/resolve.js'); // lazy: conf is heavy
  const chosen = await selectCredentials({ profile: input.profile, env });
  const credentials = opts.secret ? await withSecret(chosen, env) : chosen;
  const ms = chooseTimeoutMs(flagOrEnvMs, credentials.timeout, input.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS);
  const r: Resolved = {
    input,
    credentials,
    timeout: { ms, ...timeoutOrigin(input, credentials, flagOrEnvMs) },
    retries: input.retries ?? DEFAULT_RETRIES,
    ca: chooseCaFile({ flag: input.caFile, profile: credentials.caFile, profileName: credentials.name, env }),
  };
  return {
    list: SETTINGS.map((s) => s(r)),
    credentials,
    timeoutMs: ms,
    retries: r.retries,
    ca: r.ca,
  };
}

const fromEnvCredentials = (r: Resolved): boolean => r.credentials.source === 'env';
const profileNamed = (r: Resolved): string => `profile "${r.credentials.name}"`;

function profileSetting(r: Resolved): Setting {
  const c = r.credentials;
  switch (c.source) {
    case 'env':
      return {
        name: 'profile',
        value: undefined,
        source: 'environment',
        from: 'none: CARDCTL_API_KEY and CARDCTL_API_SECRET are set',
      };
    case 'flag':
      return { name: 'profile', value: c.name, source: 'flag', from: '--profile' };
    case 'env-profile':
      return { name: 'profile', value: c.name, source: 'environment', from: 'CARDCTL_PROFILE' };
    default:
      return { name: 'profile', value: c.name, source: 'default', from: 'the default profile' };
  }
}

function keySetting(r: Resolved): Setting {
  return fromEnvCredentials(r)
    ? { name: 'api_key', value: r.credentials.keyId, source: 'environment', from: 'CARDCTL_API_KEY' }
    : { name: 'api_key', value: r.credentials.keyId, source: 'profile', from: profileNamed(r) };
}

/** Never the secret: only that one is in effect, and where it comes from. */
function secretSetting(r: Resolved): Setting {
  const c = r.credentials;
  if (fromEnvCredentials(r))
    return { name: 'api_secret', value: 'set', source: 'environment', from: 'CARDCTL_API_SECRET' };
  return {
    name: 'api_secret',
    value: c.secretCommand !== undefined ? 'printed by a command' : 'stored',
    source: 'profile',
    from: c.secretCommand !== undefined ? `the secret command of ${profileNamed(r)}` : `${profileNamed(r)} (the store)`,
  };
}

function baseUrlSetting(r: Resolved): Setting {
  const c = r.credentials;
  if (!fromEnvCredentials(r)) return { name: 'base_url', value: c.baseUrl, source: 'profile', from: profileNamed(r) };
  return c.baseUrlFromEnv
    ? { name: 'base_url', value: c.baseUrl, source: 'environment', from: 'CARDCTL_BASE_URL' }
    : {
        name: 'base_url',
        value: DEFAULT_BASE_URL,
        source: 'default',
        from: 'the local mock (CARDCTL_BASE_URL is not set)',
      };
}

function modeSetting(r: Resolved): Setting {
  const c = r.credentials as Credentials;
  if (!fromEnvCredentials(r)) return { name: 'mode', value: c.mode, source: 'profile', from: profileNamed(r) };
  return c.modeDefaulted
    ? { name: 'mode', value: c.mode, source: 'default', from: "CARDCTL_MODE is not set (the API says the key's mode)" }
    : { name: 'mode', value: c.mode, source: 'environment', from: 'CARDCTL_MODE' };
}

function timeoutOrigin(
  input: SettingsInput,
  c: StoredCredentials,
  flagOrEnvMs: number | undefined,
): { source: SettingSource; from: string } {
  if (input.timeout !== undefined) return { source: 'flag', from: '--timeout' };
  if (flagOrEnvMs !== undefined)
    return {
      source: 'environment',
      from: input.env.CARDCTL_TIMEOUT?.trim() ? 'CARDCTL_TIMEOUT' : 'CARDCTL_TIMEOUT_MS',
    };
  if (c.timeout !== undefined) return { source: 'profile', from: `profile "${c.name}"` };
  return { source: 'default', from: "the command's default" };
}

function timeoutSetting(r: Resolved): Setting {
  return { name: 'timeout', value: `${r.timeout.ms / 1000} s`, source: r.timeout.source, from: r.timeout.from };
}

function retriesSetting(r: Resolved): Setting {
  return r.input.retries !== undefined
    ? { name: 'retries', value: r.retries, source: 'flag', from: '--retries' }
    : { name: 'retries', value: r.retries, source: 'default', from: 'the default' };
}

function caSetting(r: Resolved): Setting {
  const ca = r.ca;
  const nodeCa = r.input.env.NODE_EXTRA_CA_CERTS ? ', and the file NODE_EXTRA_CA_CERTS names' : '';
  if (!ca)
    return { name: 'ca_file', value: undefined, source: 'default', from: `the system's CA certificates${nodeCa}` };
  if (ca.source === '--ca-file') return { name: 'ca_file', value: ca.file, source: 'flag', from: `--ca-file${nodeCa}` };
  if (ca.source === 'CARDCTL_CA_FILE')
    return {
      name: 'ca_file',
      value: 'the file CARDCTL_CA_FILE names',
      source: 'environment',
      from: `CARDCTL_CA_FILE${nodeCa}`,
    };
  return { name: 'ca_file', value: ca.file, source: 'profile', from: `${profileNamed(r)}${nodeCa}` };
}

/** The journal money operations are recorded in (docs/journal.md): a shared PostgreSQL (never its password), or the SQLite file in the state folder. */
function journalSetting(r: Resolved): Setting {
  const env = r.input.env;
  let place: ReturnType<typeof journalPlace>;
  try {
    place = journalPlace({ flag: r.input.journal, env });
  } catch (err) {
    const chosen = chooseJournal({ flag: r.input.journal, env })!;
    return { name: 'journal', value: undefined, source: chosen.source, from: (err as Error).message };
  }
  const { chosen, shared, file } = place;
  if (chosen && shared)
    return { name: 'journal', value: `shared PostgreSQL ${shared.shown}`, source: chosen.source, from: chosen.from };
  if (chosen && file)
    return { name: 'journal', value: `local SQLite ${file}`, source: chosen.source, from: chosen.from };
  const from = env.CARDCTL_STATE_DIR ? 'CARDCTL_STATE_DIR' : env.XDG_STATE_HOME ? 'XDG_STATE_HOME' : 'the state folder';
  try {
    // named from its variable, never with the variable's value (as every message names it)
    const file = pathShown(join(stateDir(env), 'journal.db'), env, ['CARDCTL_STATE_DIR', 'XDG_STATE_HOME']);
    return {
      name: 'journal',
      value: `local SQLite ${file}`,
      source: from === 'the state folder' ? 'default' : 'environment',
      from,
    };
  } catch (err) {
    return { name: 'journal', value: undefined, source: 'default', from: (err as Error).message.split('\n')[0]! };
  }
}

/** The proxy for the base URL (curl's rules, src/client/proxy.ts): its scheme, host and port only, never a password. */
function proxySetting(r: Resolved): Setting {
  let target: URL;
  try {
    target = new URL(r.credentials.baseUrl);
  } catch {
    return { name: 'proxy', value: undefined, source: 'default', from: 'the base URL is not a URL' };
  }
  try {
    const d = proxyFor(target, r.input.env);
    return d.proxy
      ? { name: 'proxy', value: showProxy(d.proxy.url), source: 'environment', from: d.proxy.variable }
      : { name: 'proxy', value: undefined, source: 'default', from: `none: ${d.reason}` };
  } catch (err) {
    // said here, not refused: the transport refuses it when a request would go out (exit 2, proxy_url_invalid)
    const variable = (err as { variable?: string }).variable ?? 'a proxy variable';
    return {
      name: 'proxy',
      value: undefined,
      source: 'environment',
      from: `${variable}: not a usable proxy URL (not shown)`,
    };
  }
}
