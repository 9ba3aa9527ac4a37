// The profile store: one JSON file (`profiles.json`) written through `conf` (atomic writes),
// readable only by its owner. Reads do not use `conf` (it pulls in ajv and friends, about
// 50 ms, and every API command reads the store): the file is read and validated here; `conf`
// is imported only to write.
//
// Rules (PRODUCT.md, "Credentials"):
// - the file is 0600 and its folder 0700 after every write, whatever the umask and whatever
//   modes they had before (conf's atomic write keeps a pre-existing file's mode otherwise);
// - a file that is not valid JSON, or that fails our validation, is reported with its path
//   and how to fix it, and is never overwritten: every write first reads and validates.
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { afterRotation, readFormerKeyIds, writeFormerKeyIds } from './former-keys.js';
import { CardctlError } from '../errors.js';
import { absoluteHome, noHomeError, pathShown, relativeFolderError, xdgFolder } from '../env-paths.js';
import { DEFAULT_BASE_URL, type Mode, type StoredProfile } from './types.js';
import {
  checkKeyId,
  checkMode,
  checkName,
  checkSecret,
  checkSecretCommand,
  checkSecretCommandTimeout,
  checkWebhookSecret,
  MODE_PROBLEM,
  normalizeBaseUrl,
  normalizeKeyId,
  shownName,
} from './validate.js';

export const STORE_FILE_NAME = 'profiles.json';
const STORE_VERSION = 1;
const PROFILE_FIELDS = [
  'keyId',
  'secret',
  'secretCommand',
  'mode',
  'baseUrl',
  'webhookSecret',
  'webhookSecretCommand',
  'secretCommandTimeout',
  'caFile',
  'timeout',
] as const;
/** The longest `timeout` a profile holds, in seconds (one day, as --timeout). */
const MAX_PROFILE_TIMEOUT_S = 86_400;

/** What the file holds, validated. Profiles keep the file's order. */
export interface StoreState {
  defaultProfile: string | null;
  profiles: Map<string, StoredProfile>;
}

/** The folder of the store: CARDCTL_CONFIG_DIR, else the platform's config folder for cardctl. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.CARDCTL_CONFIG_DIR;
  if (own) {
    if (!isAbsolute(own)) throw relativeFolderError('CARDCTL_CONFIG_DIR', 'the profile store');
    return own;
  }
  // a relative XDG_CONFIG_HOME is ignored (XDG Base Directory specification)
  const xdg =
    process.platform === 'win32' || process.platform === 'darwin' ? undefined : xdgFolder(env, 'XDG_CONFIG_HOME');
  if (xdg) return join(xdg, 'cardctl');
  const appData = process.platform === 'win32' && env.APPDATA && isAbsolute(env.APPDATA) ? env.APPDATA : undefined;
  if (appData) return join(appData, 'cardctl', 'Config');
  const home = absoluteHome(env);
  if (!home)
    throw noHomeError('the profile store', [
      'CARDCTL_CONFIG_DIR',
      ...(process.platform === 'win32' ? [] : ['XDG_CONFIG_HOME']),
    ]);
  // Same places as env-paths (what conf would pick), without the "-nodejs" suffix.
  if (process.platform === 'darwin') return join(home, 'Library', 'Preferences', 'cardctl');
  if (process.platform === 'win32') return join(home, 'AppData', 'Roaming', 'cardctl', 'Config');
  return join(home, '.config', 'cardctl');
}

export function storePath(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), STORE_FILE_NAME);
}

// ---------------------------------------------------------------------------------------------
// Validation of a whole profile (used for input and for the file's content)

export interface ProfileInput {
  name: string;
  keyId: string;
  /** exactly one of secret and secretCommand */
  secret?: string;
  secretCommand?: string;
  mode: string;
  baseUrl?: string;
  /** at most one of webhookSecret and webhookSecretCommand */
  webhookSecret?: string;
  webhookSecretCommand?: string;
  secretCommandTimeout?: number;
  caFile?: string;
  timeout?: number;
}

/** The problems of the secret fields: stored or from a command, not both (never quoting a value). */
function secretProblems(input: ProfileInput, problems: Record<string, string>): void {
  if (input.secret !== undefined && input.secretCommand !== undefined)
    problems.secret = 'give either a stored secret or a secret command, not both';
  else if (input.secret === undefined && input.secretCommand === undefined)
    problems.secret = 'missing: a profile needs a stored secret or a secret command';
  else if (input.secret !== undefined) {
    const p = checkSecret(input.secret);
    if (p) problems.secret = p;
  } else {
    const p = checkSecretCommand(input.secretCommand!);
    if (p) problems.secret_command = p;
  }
  if (input.webhookSecret !== undefined && input.webhookSecretCommand !== undefined)
    problems.webhook_secret = 'give either a stored webhook secret or a webhook secret command, not both';
  else if (input.webhookSecret !== undefined) {
    const p = checkWebhookSecret(input.webhookSecret);
    if (p) problems.webhook_secret = p;
  } else if (input.webhookSecretCommand !== undefined) {
    const p = checkSecretCommand(input.webhookSecretCommand);
    if (p) problems.webhook_secret_command = p;
  }
  if (input.secretCommandTimeout !== undefined) {
    const p = checkSecretCommandTimeout(input.secretCommandTimeout);
    if (p) problems.secret_command_timeout = p;
  }
}

/** Normalizes and checks every field; returns the profile or the problems by field (snake_case, like the API's 422 map). */
export function validateProfile(input: ProfileInput): { profile?: StoredProfile; problems: Record<string, string> } {
  const problems: Record<string, string> = {};
  const name = checkName(input.name);
  if (name) problems.name = name;
  const keyId = normalizeKeyId(input.keyId);
  const keyProblem = checkKeyId(keyId, input.keyId);
  if (keyProblem) problems.key_id = keyProblem;
  secretProblems(input, problems);
  if (!checkMode(input.mode)) problems.mode = MODE_PROBLEM(input.mode);
  const base = normalizeBaseUrl(input.baseUrl ?? DEFAULT_BASE_URL);
  if (base.problem) problems.base_url = base.problem;
  if (input.caFile !== undefined && input.caFile.trim() === '') problems.ca_file = 'must be the path of a PEM file';
  if (
    input.timeout !== undefined &&
    !(typeof input.timeout === 'number' && input.timeout > 0 && input.timeout <= MAX_PROFILE_TIMEOUT_S)
  ) {
    problems.timeout = `must be a number of seconds above 0 and at most ${MAX_PROFILE_TIMEOUT_S}`;
  }
  if (Object.keys(problems).length > 0) return { problems };
  const profile: StoredProfile = { name: input.name, keyId, mode: input.mode as Mode, baseUrl: base.url! };
  if (input.secret !== undefined) profile.secret = input.secret;
  if (input.secretCommand !== undefined) profile.secretCommand = input.secretCommand;
  if (input.webhookSecret !== undefined) profile.webhookSecret = input.webhookSecret;
  if (input.webhookSecretCommand !== undefined) profile.webhookSecretCommand = input.webhookSecretCommand;
  if (input.secretCommandTimeout !== undefined) profile.secretCommandTimeout = input.secretCommandTimeout;
  if (input.caFile !== undefined) profile.caFile = input.caFile;
  if (input.timeout !== undefined) profile.timeout = input.timeout;
  return { profile, problems };
}

// ---------------------------------------------------------------------------------------------
// The file's content

/**
 * The store's path or folder for a message: under CARDCTL_CONFIG_DIR or XDG_CONFIG_HOME, named from
 * the variable, never its value (src/env-paths.ts). The process's environment: messages are for it.
 */
export const shownStorePath = (path: string): string =>
  pathShown(path, process.env, ['CARDCTL_CONFIG_DIR', 'XDG_CONFIG_HOME']);

function fixHint(file: string): string {
  const path = shownStorePath(file);
  return `Fix ${path} by hand (it is JSON: {"version": 1, "default": NAME, "profiles": {NAME: {"keyId", "secret" or "secretCommand", "mode", "baseUrl", "webhookSecret"? or "webhookSecretCommand"?, "secretCommandTimeout"?, "caFile"?, "timeout"? (seconds)}}}), or move it away (mv "${path}" "${path}.bak") and add your profiles again with \`cardctl profiles add\`. cardctl will not overwrite it.`;
}

function invalidStore(path: string, what: string): CardctlError {
  return new CardctlError(`the profile store ${shownStorePath(path)} ${what}.`, {
    kind: 'usage',
    hint: fixHint(path),
    code: 'invalid_profile_store',
  });
}

/** Line and column of a JSON.parse failure, without quoting the text (it may hold secrets). */
function jsonErrorPlace(text: string, err: unknown): string {
  const m = /position (\d+)/.exec(err instanceof Error ? err.message : '');
  if (!m) return '';
  const pos = Number(m[1]);
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  const column = pos - before.lastIndexOf('\n');
  return ` (near line ${line}, column ${column})`;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses and validates the file's text; throws a CardctlError naming the file. */
export function parseStoreText(text: string, path: string): StoreState {
  if (text.trim() === '') return { defaultProfile: null, profiles: new Map() }; // nothing to lose
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw invalidStore(path, `is not valid JSON${jsonErrorPlace(text, err)}`);
  }
  if (!isPlainObject(raw)) throw invalidStore(path, 'does not hold a JSON object');
  for (const key of Object.keys(raw)) {
    // __internal__ is conf's own bookkeeping, kept as is
    if (!['version', 'default', 'profiles', '__internal__'].includes(key))
      throw invalidStore(
        path,
        `has an unknown top-level field ${JSON.stringify(key)} (expected version, default, profiles)`,
      );
  }
  if (raw.version !== undefined && raw.version !== STORE_VERSION) {
    throw invalidStore(
      path,
      `has version ${JSON.stringify(raw.version)}; this cardctl reads version ${STORE_VERSION} (was it written by a newer cardctl? then upgrade cardctl)`,
    );
  }
  const profilesRaw = raw.profiles ?? {};
  if (!isPlainObject(profilesRaw))
    throw invalidStore(path, 'has a "profiles" field that is not an object of profiles by name');
  const profiles = new Map<string, StoredProfile>();
  for (const [name, value] of Object.entries(profilesRaw)) {
    const where = `has an invalid profile ${JSON.stringify(name)}`;
    if (!isPlainObject(value)) throw invalidStore(path, `${where}: it is not an object`);
    for (const key of Object.keys(value)) {
      if (!(PROFILE_FIELDS as readonly string[]).includes(key))
        throw invalidStore(
          path,
          `${where}: unknown field ${JSON.stringify(key)} (expected ${PROFILE_FIELDS.join(', ')})`,
        );
    }
    for (const key of ['keyId', 'mode', 'baseUrl'] as const) {
      if (typeof value[key] !== 'string') throw invalidStore(path, `${where}: "${key}" is missing or not a string`);
    }
    for (const key of ['secret', 'secretCommand', 'webhookSecret', 'webhookSecretCommand', 'caFile'] as const) {
      if (value[key] !== undefined && typeof value[key] !== 'string')
        throw invalidStore(path, `${where}: "${key}" is not a string`);
    }
    if (value.secretCommandTimeout !== undefined && typeof value.secretCommandTimeout !== 'number')
      throw invalidStore(path, `${where}: "secretCommandTimeout" is not a number`);
    const { profile, problems } = validateProfile({
      name,
      keyId: value.keyId as string,
      secret: value.secret as string | undefined,
      secretCommand: value.secretCommand as string | undefined,
      mode: value.mode as string,
      baseUrl: value.baseUrl as string,
      webhookSecret: value.webhookSecret as string | undefined,
      webhookSecretCommand: value.webhookSecretCommand as string | undefined,
      secretCommandTimeout: value.secretCommandTimeout as number | undefined,
      caFile: value.caFile as string | undefined,
      timeout: value.timeout as number | undefined,
    });
    if (!profile) throw invalidStore(path, `${where}: ${Object.values(problems).join('; ')}`);
    profiles.set(name, profile);
  }
  const def = raw.default ?? null;
  if (def !== null && (typeof def !== 'string' || !profiles.has(def))) {
    throw invalidStore(path, `names a default profile ${JSON.stringify(def)} that is not among its profiles`);
  }
  return { defaultProfile: def, profiles };
}

function toJson(state: StoreState): Record<string, unknown> {
  // Object.fromEntries defines own properties, so any valid name (even "__proto__") is kept.
  const profiles = Object.fromEntries(
    [...state.profiles.values()].map((p) => {
      const entry: Record<string, string | number> = { keyId: p.keyId };
      if (p.secret !== undefined) entry.secret = p.secret;
      if (p.secretCommand !== undefined) entry.secretCommand = p.secretCommand;
      entry.mode = p.mode;
      entry.baseUrl = p.baseUrl;
      if (p.webhookSecret !== undefined) entry.webhookSecret = p.webhookSecret;
      if (p.webhookSecretCommand !== undefined) entry.webhookSecretCommand = p.webhookSecretCommand;
      if (p.secretCommandTimeout !== undefined) entry.secretCommandTimeout = p.secretCommandTimeout;
      if (p.caFile !== undefined) entry.caFile = p.caFile;
      if (p.timeout !== undefined) entry.timeout = p.timeout;
      return [p.name, entry];
    }),
  );
  return { version: STORE_VERSION, default: state.defaultProfile, profiles };
}

// ---------------------------------------------------------------------------------------------
// File access through conf

interface ConfLike {
  path: string;
  store: Record<string, unknown>;
}

/** Creates the folder 0700 (also under umask 000); `tighten` also fixes an existing folder. */
function ensureFolder(dir: string, tighten: boolean): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (tighten) chmodSync(dir, 0o700);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (process.platform === 'win32' && code === 'EPERM') return; // modes are not POSIX there
    throw new CardctlError(
      `cannot create or protect the profile folder ${shownStorePath(dir)} (${code ?? String(err)}).`,
      {
        kind: 'usage',
        hint: 'Check its permissions, or point CARDCTL_CONFIG_DIR to a folder you own.',
        cause: err,
      },
    );
  }
}

interface Opened {
  conf: ConfLike;
  state: StoreState;
  dir: string;
  path: string;
}

async function open(env: NodeJS.ProcessEnv = process.env): Promise<Opened> {
  const dir = configDir(env);
  const path = storePath(env);
  ensureFolder(dir, false);
  const { default: Conf } = await import('conf');
  let conf: ConfLike;
  try {
    conf = new Conf<Record<string, unknown>>({
      cwd: dir,
      configName: STORE_FILE_NAME.replace(/\.json$/, ''),
      configFileMode: 0o600,
      clearInvalidConfig: false,
      // profile names may contain dots
      accessPropertiesByDotNotation: false,
      // Our own validation runs on every read, so conf never sees (nor rewrites) a bad file.
      deserialize: (text: string) => toJson(parseStoreText(text, path)),
      serialize: (value: Record<string, unknown>) => JSON.stringify(value, null, 2) + '\n',
    }) as unknown as ConfLike;
  } catch (err) {
    if (err instanceof CardctlError) throw err;
    throw readFailure(path, err);
  }
  let state: StoreState;
  try {
    state = parseStoreText(JSON.stringify(conf.store), path);
  } catch (err) {
    if (err instanceof CardctlError) throw err;
    throw readFailure(path, err);
  }
  return { conf, state: withFormerKeyIds(state, dir), dir, path };
}

/** The validated store, read without conf: what conf's read would give, an absent file being an empty store. */
function readState(env: NodeJS.ProcessEnv = process.env): { state: StoreState; path: string } {
  const dir = configDir(env);
  const path = storePath(env);
  ensureFolder(dir, false);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT')
      return { state: { defaultProfile: null, profiles: new Map() }, path };
    throw readFailure(path, err);
  }
  return { state: withFormerKeyIds(parseStoreText(text, path), dir), path };
}

/** The store's profiles with the key ids each held before (src/profiles/former-keys.ts: a file beside the store). */
function withFormerKeyIds(state: StoreState, dir: string): StoreState {
  const former = readFormerKeyIds(dir);
  for (const [name, ids] of former) {
    const p = state.profiles.get(name);
    if (p && ids.length) p.formerKeyIds = ids.filter((k) => k !== p.keyId);
  }
  return state;
}

function readFailure(path: string, err: unknown): CardctlError {
  const code = (err as { code?: string }).code;
  return new CardctlError(
    `cannot read the profile store ${shownStorePath(path)} (${code ?? (err instanceof Error ? err.message : String(err))}).`,
    {
      kind: 'usage',
      hint: 'Check the file and folder permissions (they should be yours, 0600 and 0700), or point CARDCTL_CONFIG_DIR elsewhere.',
      cause: err,
    },
  );
}

function commit(opened: Opened, state: StoreState): void {
  ensureFolder(opened.dir, true);
  try {
    opened.conf.store = toJson(state);
    writeFormerKeyIds(opened.dir, new Map([...state.profiles].map(([name, p]) => [name, p.formerKeyIds ?? []])));
    // conf's atomic write creates the file with mode 0600 but would keep an older file's mode
    // bits in some paths; make it explicit, and fix the folder too.
    chmodSync(opened.path, 0o600);
    chmodSync(opened.dir, 0o700);
  } catch (err) {
    if (err instanceof CardctlError) throw err;
    const code = (err as { code?: string }).code;
    if (process.platform === 'win32' && code === 'EPERM') return;
    throw new CardctlError(`cannot write the profile store ${shownStorePath(opened.path)} (${code ?? String(err)}).`, {
      kind: 'usage',
      hint: 'Check that the file and its folder belong to you, or point CARDCTL_CONFIG_DIR elsewhere.',
      cause: err,
    });
  }
}

const LOCK_WAIT_MS = 5_000;
const LOCK_STALE_MS = 30_000;

/**
 * Read-modify-write under a lock file next to the store, so two cardctl processes adding
 * profiles at once (a script, the mock's --save-profiles) do not lose one of the updates.
 */
async function withWriteLock<T>(env: NodeJS.ProcessEnv | undefined, fn: (opened: Opened) => T): Promise<T> {
  const dir = configDir(env);
  ensureFolder(dir, true);
  const lock = `${storePath(env)}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== 'EEXIST') throw readFailure(lock, err);
      try {
        // a lock left by a killed process
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
      } catch {
        // it went away meanwhile: try again
      }
      if (Date.now() > deadline) {
        throw new CardctlError(`the profile store is busy: ${lock} exists.`, {
          kind: 'usage',
          hint: 'Another cardctl is writing profiles; try again. If none is running, delete the lock file.',
        });
      }
      await new Promise((r) => setTimeout(r, Math.min(20 * 2 ** attempt, 200)));
    }
  }
  try {
    return fn(await open(env));
  } finally {
    rmSync(lock, { force: true });
  }
}

export function noProfile(name: string, state: StoreState, purpose: 'use' | 'remove' = 'use'): CardctlError {
  const known = [...state.profiles.keys()];
  const valid = checkName(name) === undefined;
  return new CardctlError(`no profile named ${shownName(name)}.`, {
    kind: 'usage',
    code: 'profile_not_found',
    hint:
      purpose === 'remove'
        ? `Nothing was removed. ${known.length > 0 ? `The profiles are: ${known.join(', ')} (\`cardctl profiles list\` shows them).` : 'The store has no profile (`cardctl profiles list`).'}`
        : `Run \`cardctl profiles add ${valid ? name : 'NAME'} --key-id KEY_ID --mode test --secret-stdin\`` +
          (known.length > 0 ? `, or use one of: ${known.join(', ')}.` : '.'),
  });
}

// ---------------------------------------------------------------------------------------------
// The API used by commands, the mock's --save-profiles and the demo

/** The whole validated store (one read). */
export async function loadStore(env?: NodeJS.ProcessEnv): Promise<StoreState & { path: string }> {
  const { state, path } = readState(env);
  return { ...state, path };
}

export async function listProfiles(env?: NodeJS.ProcessEnv): Promise<StoredProfile[]> {
  return [...readState(env).state.profiles.values()];
}

/** The profile, or undefined when there is none of that name. */
export async function getProfile(name: string, env?: NodeJS.ProcessEnv): Promise<StoredProfile | undefined> {
  return readState(env).state.profiles.get(name);
}

/** The profile, or a usage error saying how to add it. */
export async function requireProfile(name: string, env?: NodeJS.ProcessEnv): Promise<StoredProfile> {
  const { state } = readState(env);
  const p = state.profiles.get(name);
  if (!p) throw noProfile(name, state);
  return p;
}

export async function getDefaultProfileName(env?: NodeJS.ProcessEnv): Promise<string | null> {
  return readState(env).state.defaultProfile;
}

export interface AddProfileOptions {
  /** replace a profile of the same name (`--force`) */
  overwrite?: boolean;
  /** make it the default; the first profile of a store becomes the default anyway */
  makeDefault?: boolean;
  /** replacing a profile's key id is a rotation: the old key id stays the same account (`profiles add --force`) */
  keepFormerKeyIds?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface AddProfileResult {
  profile: StoredProfile;
  isDefault: boolean;
  replaced: boolean;
  path: string;
}

/** Validates (normalizing key id case and the base URL's trailing slash) and saves. */
export function profileExistsError(name: string): CardctlError {
  return new CardctlError(`a profile named ${name} already exists.`, {
    kind: 'usage',
    code: 'profile_exists',
    hint: `Pass --force to replace it, or choose another name. See it with \`cardctl profiles show ${name}\`.`,
  });
}

export function invalidProfileError(problems: Record<string, string>): CardctlError {
  return new CardctlError(`profile not saved: invalid ${Object.keys(problems).join(', ')}.`, {
    kind: 'usage',
    errors: Object.fromEntries(Object.entries(problems).map(([k, v]) => [k, [v]])),
  });
}

export async function addProfile(
  input: ProfileInput | StoredProfile,
  options: AddProfileOptions = {},
): Promise<AddProfileResult> {
  const { profile, problems } = validateProfile(input);
  if (!profile) throw invalidProfileError(problems);
  return withWriteLock(options.env, (opened) => {
    const { state } = opened;
    const replaced = state.profiles.has(profile.name);
    if (replaced && !options.overwrite) throw profileExistsError(profile.name);
    const profiles = new Map(state.profiles);
    const before = state.profiles.get(profile.name);
    if (options.keepFormerKeyIds && before) {
      const former = afterRotation(before, profile.keyId);
      if (former.length) profile.formerKeyIds = former;
    }
    profiles.set(profile.name, profile);
    const defaultProfile = options.makeDefault || state.defaultProfile === null ? profile.name : state.defaultProfile;
    commit(opened, { defaultProfile, profiles });
    return { profile, isDefault: defaultProfile === profile.name, replaced, path: opened.path };
  });
}

export interface RemoveProfileResult {
  removed: string;
  /** the default after removal (it changes only when the default was removed) */
  defaultProfile: string | null;
  path: string;
}

/**
 * Removes a profile. When it was the default and exactly one profile remains, that one
 * becomes the default (like the first profile added); with several left, there is none.
 */
export async function removeProfile(
  name: string,
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<RemoveProfileResult> {
  return withWriteLock(options.env, (opened) => {
    const { state } = opened;
    if (!state.profiles.has(name)) throw noProfile(name, state, 'remove');
    const profiles = new Map(state.profiles);
    profiles.delete(name);
    let defaultProfile = state.defaultProfile;
    if (defaultProfile === name) defaultProfile = profiles.size === 1 ? [...profiles.keys()][0]! : null;
    commit(opened, { defaultProfile, profiles });
    return { removed: name, defaultProfile, path: opened.path };
  });
}

export async function setDefaultProfile(
  name: string,
  options: { env?: NodeJS.ProcessEnv } = {},
): Promise<StoredProfile> {
  return withWriteLock(options.env, (opened) => {
    const profile = opened.state.profiles.get(name);
    if (!profile) throw noProfile(name, opened.state);
    commit(opened, { defaultProfile: name, profiles: opened.state.profiles });
    return profile;
  });
}
