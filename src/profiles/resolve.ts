// Which credentials a command uses (PRODUCT.md, "Credentials, in order of precedence"):
// 1. --profile NAME; 2. CARDCTL_API_KEY + CARDCTL_API_SECRET (+ CARDCTL_BASE_URL, CARDCTL_MODE);
// 3. CARDCTL_PROFILE; 4. the store's default profile.
import { CardctlError, usageError } from '../errors.js';
import { listProfiles, loadStore, requireProfile } from './store.js';
import {
  DEFAULT_BASE_URL,
  type CredentialSource,
  type Credentials,
  type Mode,
  type StoredCredentials,
  type StoredProfile,
} from './types.js';
import {
  checkKeyId,
  checkMode,
  checkSecret,
  checkWebhookSecret,
  normalizeBaseUrl,
  normalizeKeyId,
} from './validate.js';

export interface ResolveOptions {
  /** `--profile` */
  profile?: string;
  env?: NodeJS.ProcessEnv;
}

const ADD_HINT = 'cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin';

/** An empty variable counts as unset (`CARDCTL_PROFILE= cardctl ...` is a common way to clear it). */
const envValue = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
};

function envProblem(variable: string, problem: string): CardctlError {
  return usageError(`${variable}: ${problem}.`, `Fix or unset ${variable}.`);
}

/** Step 2: credentials from the environment, or undefined when neither variable is set. */
function fromEnv(env: NodeJS.ProcessEnv): Credentials | undefined {
  const key = envValue(env, 'CARDCTL_API_KEY');
  const secret = envValue(env, 'CARDCTL_API_SECRET');
  if (key === undefined && secret === undefined) return undefined;
  if (key === undefined || secret === undefined) {
    const [set, missing] =
      key === undefined ? ['CARDCTL_API_SECRET', 'CARDCTL_API_KEY'] : ['CARDCTL_API_KEY', 'CARDCTL_API_SECRET'];
    throw usageError(`${set} is set but ${missing} is not.`, `Set both, or unset ${set} to use a profile.`);
  }
  // Values from the environment are never quoted back: a secret in the wrong variable stays unseen.
  const keyId = normalizeKeyId(key);
  const keyProblem = checkKeyId(keyId, null);
  if (keyProblem) throw envProblem('CARDCTL_API_KEY', keyProblem);
  const secretProblem = checkSecret(secret);
  if (secretProblem) throw envProblem('CARDCTL_API_SECRET', secretProblem);
  const modeSet = envValue(env, 'CARDCTL_MODE');
  const modeRaw = modeSet ?? 'test';
  if (!checkMode(modeRaw)) throw envProblem('CARDCTL_MODE', 'the mode is not valid: use test or live');
  const base = normalizeBaseUrl(envValue(env, 'CARDCTL_BASE_URL') ?? DEFAULT_BASE_URL, false);
  if (base.problem) throw envProblem('CARDCTL_BASE_URL', base.problem);
  const credentials: Credentials = {
    name: 'env',
    source: 'env',
    keyId,
    secret,
    mode: modeRaw as Mode,
    baseUrl: base.url!,
    baseUrlFromEnv: envValue(env, 'CARDCTL_BASE_URL') !== undefined,
  };
  // unset, the mode is only a default: no claim about the key (src/client/key-mode.ts asks the API)
  if (modeSet === undefined) credentials.modeDefaulted = true;
  const webhookSecret = envValue(env, 'CARDCTL_WEBHOOK_SECRET');
  if (webhookSecret !== undefined) credentials.webhookSecret = webhookSecret;
  return credentials;
}

async function fromProfile(name: string, source: CredentialSource, env: NodeJS.ProcessEnv): Promise<StoredCredentials> {
  try {
    return { ...(await requireProfile(name, env)), source };
  } catch (err) {
    if (source === 'env-profile' && err instanceof CardctlError && err.code === 'profile_not_found') {
      // not quoted: a token pasted into the wrong variable has the shape of a profile name
      throw new CardctlError('CARDCTL_PROFILE names no stored profile.', {
        kind: 'usage',
        code: 'profile_not_found',
        hint: 'Set CARDCTL_PROFILE to one of the names `cardctl profiles list` shows, run `cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin`, or unset CARDCTL_PROFILE.',
      });
    }
    throw err;
  }
}

/** Steps 3 and 4 (after --profile): CARDCTL_PROFILE, else the default profile, else undefined. */
async function storedSelection(env: NodeJS.ProcessEnv): Promise<StoredCredentials | undefined> {
  const named = envValue(env, 'CARDCTL_PROFILE');
  if (named !== undefined) return fromProfile(named, 'env-profile', env);
  const store = await loadStore(env);
  if (store.defaultProfile === null) return undefined;
  return { ...store.profiles.get(store.defaultProfile)!, source: 'default' };
}

function noCredentials(): CardctlError {
  return new CardctlError(
    'no credentials: no --profile, no CARDCTL_API_KEY/CARDCTL_API_SECRET, no CARDCTL_PROFILE and no default profile.',
    {
      kind: 'usage',
      code: 'no_credentials',
      hint: `Run \`${ADD_HINT}\` (the first profile becomes the default), set CARDCTL_API_KEY and CARDCTL_API_SECRET, or start a local mock with \`cardctl mock start --save-profiles\`.`,
    },
  );
}

/** The profile's API secret: stored, or printed by its command (run once per process). */
async function apiSecret(p: StoredProfile, env: NodeJS.ProcessEnv): Promise<string> {
  if (p.secret !== undefined) return p.secret;
  const { secretFromCommand } = await import('./secret-command.js');
  return secretFromCommand({
    profile: p.name,
    what: 'API secret',
    command: p.secretCommand!,
    timeoutSeconds: p.secretCommandTimeout,
    check: checkSecret,
    env,
  });
}

/** The credentials with their API secret in hand: from the environment as they are, a profile's stored or printed by its command. */
export async function withSecret(p: StoredCredentials | Credentials, env: NodeJS.ProcessEnv): Promise<Credentials> {
  if (p.source === 'env' && p.secret !== undefined) return p as Credentials;
  return { ...p, secret: await apiSecret(p, env) };
}

/**
 * Which credentials, in the order of precedence (1 to 4 above), without running a secret command:
 * what src/client/settings.ts resolves once for a command (and `cardctl config` shows).
 */
export async function selectCredentials(opts: ResolveOptions = {}): Promise<StoredCredentials | Credentials> {
  const env = opts.env ?? process.env;
  if (opts.profile !== undefined && opts.profile !== '') return fromProfile(opts.profile, 'flag', env);
  const viaEnv = fromEnv(env);
  if (viaEnv) return viaEnv;
  const stored = await storedSelection(env);
  if (stored) return stored;
  throw noCredentials();
}

export async function resolveCredentials(opts: ResolveOptions = {}): Promise<Credentials> {
  const env = opts.env ?? process.env;
  return withSecret(await selectCredentials(opts), env);
}

/**
 * CARDCTL_BASE_URL and CARDCTL_MODE go with CARDCTL_API_KEY and CARDCTL_API_SECRET: with a profile
 * in use they are not used. Said when they would have changed something (another URL, another
 * mode): someone who exported CARDCTL_BASE_URL for a sandbox while the default profile is live
 * would otherwise send there without a word. Undefined when there is nothing to say.
 */
export function ignoredEnvironmentNote(
  c: Pick<Credentials, 'source' | 'name' | 'baseUrl' | 'mode'>,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (c.source === 'env') return undefined;
  const ignored: string[] = [];
  const base = envValue(env, 'CARDCTL_BASE_URL');
  if (base !== undefined && (normalizeBaseUrl(base, false).url ?? base) !== c.baseUrl) ignored.push('CARDCTL_BASE_URL');
  const mode = envValue(env, 'CARDCTL_MODE');
  if (mode !== undefined && mode !== c.mode) ignored.push('CARDCTL_MODE');
  if (ignored.length === 0) return undefined;
  const how =
    c.source === 'flag' ? '--profile' : c.source === 'env-profile' ? 'CARDCTL_PROFILE' : 'the default profile';
  return (
    `Note: ${ignored.join(' and ')} ${ignored.length === 1 ? 'is' : 'are'} set but not used: the credentials are profile "${c.name}"'s (${how}), ` +
    `which sends to ${c.baseUrl} (${c.mode}). CARDCTL_BASE_URL and CARDCTL_MODE count only with CARDCTL_API_KEY and CARDCTL_API_SECRET; ` +
    `unset ${ignored.length === 1 ? 'it' : 'them'}, or pick the profile you mean with --profile.`
  );
}

/** Where the API secret in use comes from, in words (for doctor). */
export function secretOrigin(c: StoredCredentials): string {
  if (c.source === 'env') return 'CARDCTL_API_SECRET';
  return c.secretCommand !== undefined ? `the command \`${c.secretCommand}\`` : 'stored in the profile';
}

/** The profile chosen by --profile, CARDCTL_PROFILE or the default (no API-key variables). */
async function selectedProfile(opts: ResolveOptions, env: NodeJS.ProcessEnv): Promise<StoredCredentials | undefined> {
  if (opts.profile !== undefined && opts.profile !== '') return fromProfile(opts.profile, 'flag', env);
  return storedSelection(env);
}

/**
 * The profile named by --profile, else by CARDCTL_PROFILE; undefined when neither names one (the
 * default profile and the API-key variables do not count). Used to find the mock a profile points at.
 */
export async function namedProfile(opts: ResolveOptions = {}): Promise<StoredCredentials | undefined> {
  const env = opts.env ?? process.env;
  if (opts.profile !== undefined && opts.profile !== '') return fromProfile(opts.profile, 'flag', env);
  const named = envValue(env, 'CARDCTL_PROFILE');
  return named === undefined ? undefined : fromProfile(named, 'env-profile', env);
}

export interface ResolvedWebhookSecret {
  secret: string;
  /** 'env' for CARDCTL_WEBHOOK_SECRET, otherwise how the profile was chosen */
  source: CredentialSource;
  profile?: string;
}

/**
 * The endpoint signing secret for `webhooks verify/sign/listen`: an explicit --profile first,
 * then CARDCTL_WEBHOOK_SECRET, then the profile from CARDCTL_PROFILE or the default.
 */
export async function resolveWebhookSecret(opts: ResolveOptions = {}): Promise<ResolvedWebhookSecret> {
  const env = opts.env ?? process.env;
  const explicit = opts.profile !== undefined && opts.profile !== '';
  const fromVar = envValue(env, 'CARDCTL_WEBHOOK_SECRET');
  if (fromVar !== undefined && !explicit) {
    const problem = checkWebhookSecret(fromVar);
    if (problem) throw envProblem('CARDCTL_WEBHOOK_SECRET', problem);
    return { secret: fromVar, source: 'env' };
  }
  const profile = await selectedProfile(opts, env);
  if (!profile) {
    throw new CardctlError(
      'no webhook secret: CARDCTL_WEBHOOK_SECRET is not set and there is no profile to take it from.',
      {
        kind: 'usage',
        code: 'no_webhook_secret',
        hint: `Set CARDCTL_WEBHOOK_SECRET, or store it in a profile: printf '%s\\n%s\\n' "$API_SECRET" "$WEBHOOK_SECRET" | ${ADD_HINT} --webhook-secret-stdin`,
      },
    );
  }
  if (profile.webhookSecretCommand !== undefined) {
    const { secretFromCommand } = await import('./secret-command.js');
    const secret = await secretFromCommand({
      profile: profile.name,
      what: 'webhook secret',
      command: profile.webhookSecretCommand,
      timeoutSeconds: profile.secretCommandTimeout,
      check: checkWebhookSecret,
      env,
    });
    return { secret, source: profile.source, profile: profile.name };
  }
  if (profile.webhookSecret === undefined) {
    throw new CardctlError(`profile ${profile.name} has no webhook secret.`, {
      kind: 'usage',
      code: 'no_webhook_secret',
      hint: `Set CARDCTL_WEBHOOK_SECRET, or save it in the profile: printf '%s\\n%s\\n' "$API_SECRET" "$WEBHOOK_SECRET" | cardctl profiles add ${profile.name} --key-id ${profile.keyId} --mode ${profile.mode} --base-url ${profile.baseUrl} --secret-stdin --webhook-secret-stdin --force`,
    });
  }
  return { secret: profile.webhookSecret, source: profile.source, profile: profile.name };
}

export interface ResolvedSigningSecret {
  secret: string;
  /** from CARDCTL_API_KEY or the profile; undefined when only CARDCTL_API_SECRET is set */
  keyId?: string;
  baseUrl?: string;
  mode?: Mode;
  source: CredentialSource;
  profile?: string;
  /** why the secret does not look like an API secret (the local `sign` still uses it as is) */
  warning?: string;
}

/**
 * For the local `sign` command: an explicit --profile first, then CARDCTL_API_SECRET (with
 * CARDCTL_API_KEY and CARDCTL_BASE_URL when set), then CARDCTL_PROFILE or the default
 * profile. The environment secret is not refused when malformed: reproducing a merchant's
 * bad signature is the point of `sign`, so a warning is returned instead.
 */
export async function resolveSigningSecret(opts: ResolveOptions = {}): Promise<ResolvedSigningSecret> {
  const env = opts.env ?? process.env;
  const explicit = opts.profile !== undefined && opts.profile !== '';
  const secret = envValue(env, 'CARDCTL_API_SECRET');
  if (secret !== undefined && !explicit) {
    const result: ResolvedSigningSecret = { secret, source: 'env' };
    const key = envValue(env, 'CARDCTL_API_KEY');
    if (key !== undefined) result.keyId = key;
    const base = envValue(env, 'CARDCTL_BASE_URL');
    if (base !== undefined) result.baseUrl = normalizeBaseUrl(base).url ?? base;
    const mode = envValue(env, 'CARDCTL_MODE');
    if (mode !== undefined && checkMode(mode)) result.mode = mode;
    const problem = checkSecret(secret);
    if (problem) result.warning = `CARDCTL_API_SECRET: ${problem}`;
    return result;
  }
  const profile = await selectedProfile(opts, env);
  if (!profile) {
    throw new CardctlError('no secret to sign with: CARDCTL_API_SECRET is not set and there is no profile.', {
      kind: 'usage',
      code: 'no_credentials',
      hint: `Set CARDCTL_API_SECRET (and CARDCTL_API_KEY), pass --profile NAME, or run \`${ADD_HINT}\`.`,
    });
  }
  return {
    secret: await apiSecret(profile, env),
    keyId: profile.keyId,
    baseUrl: profile.baseUrl,
    mode: profile.mode,
    source: profile.source,
    profile: profile.name,
  };
}

export interface OtherProfileSecrets {
  candidates: Array<{ profile: string; keyId: string; secret: string }>;
  /** profiles not tried, each with why (a secret command not run, or one that failed) */
  notTried: string[];
}

/**
 * The API secrets of the stored profiles other than `used`, for `sign diagnose` to try. A secret
 * from a command only when `runCommands` (a command may prompt, touch a hardware key, or log).
 */
export async function otherProfileSecrets(
  used: string,
  runCommands: boolean,
  env: NodeJS.ProcessEnv = process.env,
): Promise<OtherProfileSecrets> {
  const out: OtherProfileSecrets = { candidates: [], notTried: [] };
  for (const p of await listProfiles(env)) {
    if (p.secret === undefined && !runCommands) {
      out.notTried.push(`profile "${p.name}" (its secret comes from a command: pass --try-secret-commands to run it)`);
      continue;
    }
    let secret: string;
    try {
      secret = await apiSecret(p, env);
    } catch {
      out.notTried.push(`profile "${p.name}" (its secret command failed)`);
      continue;
    }
    if (secret !== used) out.candidates.push({ profile: p.name, keyId: p.keyId, secret });
  }
  return out;
}
