// What the `profiles` commands do, apart from flag parsing and rendering. Summaries never hold
// a secret: `profiles show` gives a fingerprint instead (first 8 hex of SHA-256 of the secret
// text), so two machines can be compared with
// `printf %s "$SECRET" | sha256sum | cut -c1-8` without revealing it.
import { createHash } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { usageError } from '../errors.js';
import { promptHidden, readStdinLines } from './secret-input.js';
import { promptsForbidden, whyNoPrompt } from '../no-input.js';
import {
  addProfile,
  invalidProfileError,
  loadStore,
  noProfile,
  profileExistsError,
  validateProfile,
  removeProfile,
  setDefaultProfile,
  storePath,
  type AddProfileResult,
  type RemoveProfileResult,
} from './store.js';
import type { StoredProfile } from './types.js';

export interface ProfileSummary {
  name: string;
  mode: StoredProfile['mode'];
  key_id: string;
  base_url: string;
  default: boolean;
  /** `sha256:` + the first 8 hex digits of SHA-256 over the secret's UTF-8 text; null when a command gives it */
  secret_fingerprint: string | null;
  /** the command that prints the API secret, or null when it is stored */
  secret_command: string | null;
  webhook_secret_fingerprint: string | null;
  /** the command that prints the webhook secret, or null */
  webhook_secret_command: string | null;
  /** seconds a secret command may take, when the profile sets it */
  secret_command_timeout?: number;
  /** key ids the profile held before (rotations), only when there are some: the journal counts them as the same account */
  former_key_ids?: readonly string[];
  /** only when the profile has one */
  ca_file?: string;
  /** seconds per request attempt, only when the profile sets one */
  timeout?: number;
}

export function fingerprint(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 8)}`;
}

export function summarize(profile: StoredProfile, isDefault: boolean): ProfileSummary {
  return {
    name: profile.name,
    mode: profile.mode,
    key_id: profile.keyId,
    base_url: profile.baseUrl,
    default: isDefault,
    secret_fingerprint: profile.secret === undefined ? null : fingerprint(profile.secret),
    secret_command: profile.secretCommand ?? null,
    webhook_secret_fingerprint: profile.webhookSecret === undefined ? null : fingerprint(profile.webhookSecret),
    webhook_secret_command: profile.webhookSecretCommand ?? null,
    ...(profile.secretCommandTimeout !== undefined ? { secret_command_timeout: profile.secretCommandTimeout } : {}),
    ...(profile.formerKeyIds?.length ? { former_key_ids: profile.formerKeyIds } : {}),
    ...(profile.caFile !== undefined ? { ca_file: profile.caFile } : {}),
    ...(profile.timeout !== undefined ? { timeout: profile.timeout } : {}),
  };
}

export interface AddCommandOptions {
  name: string;
  keyId: string;
  mode: string;
  baseUrl?: string;
  caFile?: string;
  /** seconds per request attempt */
  timeout?: number;
  secretStdin: boolean;
  webhookSecretStdin: boolean;
  /** `--secret-command`: the API secret is printed by this command when needed, never stored */
  secretCommand?: string;
  webhookSecretCommand?: string;
  secretCommandTimeout?: number;
  makeDefault: boolean;
  force: boolean;
  env?: NodeJS.ProcessEnv;
}

/** Refuses flags that contradict each other, before anything is read. */
function checkSecretFlags(opts: AddCommandOptions): void {
  if (opts.secretStdin && opts.secretCommand !== undefined)
    throw usageError(
      '--secret-stdin and --secret-command both give the API secret.',
      'Keep one: --secret-command to fetch it when needed (never stored), --secret-stdin to store it.',
    );
  if (opts.webhookSecretStdin && opts.webhookSecretCommand !== undefined)
    throw usageError(
      '--webhook-secret-stdin and --webhook-secret-command both give the webhook secret.',
      'Keep one of them.',
    );
  if (opts.webhookSecretStdin && !opts.secretStdin && opts.secretCommand === undefined) {
    throw usageError(
      '--webhook-secret-stdin needs --secret-stdin (or --secret-command).',
      'Pipe two lines: the API secret, then the webhook secret; with --secret-command, pipe the webhook secret alone.',
    );
  }
  if (
    opts.secretCommandTimeout !== undefined &&
    opts.secretCommand === undefined &&
    opts.webhookSecretCommand === undefined
  ) {
    throw usageError(
      '--secret-command-timeout applies to a secret command.',
      'Add --secret-command or --webhook-secret-command, or drop --secret-command-timeout.',
    );
  }
}

/** The secrets to store, from stdin or a hidden prompt; none when commands give them. */
async function readStoredSecrets(opts: AddCommandOptions): Promise<{ secret?: string; webhookSecret?: string }> {
  if (opts.secretCommand !== undefined) {
    return opts.webhookSecretStdin ? { webhookSecret: (await readStdinLines(['the webhook secret']))[0] } : {};
  }
  if (opts.secretStdin) {
    const labels = opts.webhookSecretStdin ? ['the API secret', 'the webhook secret'] : ['the API secret'];
    const [secret, webhookSecret] = (await readStdinLines(labels)) as [string, string | undefined];
    return { secret, webhookSecret };
  }
  if (promptsForbidden(opts.env)) {
    throw usageError(
      `no secret: ${whyNoPrompt(opts.env)}, so cardctl does not prompt for it.`,
      "Pass --secret-stdin and pipe the secret in, or --secret-command 'CMD' (a secret is never accepted as a flag).",
    );
  }
  if (process.stdin.isTTY) return { secret: await promptHidden(`API secret for ${opts.name} (not shown): `) };
  throw usageError(
    'no secret: stdin is not a terminal, so cardctl cannot prompt for it.',
    "Pass --secret-stdin and pipe the secret in, e.g. printf '%s\\n' \"$SECRET\" | cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin, or fetch it when needed with --secret-command 'CMD' (a secret is never accepted as a flag).",
  );
}

export async function addFromCommand(opts: AddCommandOptions): Promise<AddProfileResult & { summary: ProfileSummary }> {
  checkSecretFlags(opts);
  const commands = {
    ...(opts.secretCommand !== undefined ? { secretCommand: opts.secretCommand } : {}),
    ...(opts.webhookSecretCommand !== undefined ? { webhookSecretCommand: opts.webhookSecretCommand } : {}),
    ...(opts.secretCommandTimeout !== undefined ? { secretCommandTimeout: opts.secretCommandTimeout } : {}),
  };
  // Refuse bad flags and an unreadable store before asking for the secret.
  const placeholder = opts.secretCommand === undefined ? { secret: Buffer.alloc(32).toString('base64') } : {};
  const { problems } = validateProfile({
    name: opts.name,
    keyId: opts.keyId,
    ...placeholder,
    ...commands,
    mode: opts.mode,
    baseUrl: opts.baseUrl,
    timeout: opts.timeout,
  });
  if (Object.keys(problems).length > 0) throw invalidProfileError(problems);
  const store = await loadStore(opts.env);
  if (store.profiles.has(opts.name) && !opts.force) throw profileExistsError(opts.name);
  const secrets = await readStoredSecrets(opts);
  const result = await addProfile(
    {
      name: opts.name,
      keyId: opts.keyId,
      ...secrets,
      ...commands,
      mode: opts.mode,
      baseUrl: opts.baseUrl,
      ...(opts.caFile !== undefined ? { caFile: resolvePath(opts.caFile) } : {}),
      ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}),
    },
    { overwrite: opts.force, makeDefault: opts.makeDefault, env: opts.env, keepFormerKeyIds: true },
  );
  return { ...result, summary: summarize(result.profile, result.isDefault) };
}

export async function listSummaries(env?: NodeJS.ProcessEnv): Promise<{ path: string; profiles: ProfileSummary[] }> {
  const store = await loadStore(env);
  return {
    path: store.path,
    profiles: [...store.profiles.values()].map((p) => summarize(p, p.name === store.defaultProfile)),
  };
}

export async function showSummary(
  name: string,
  env?: NodeJS.ProcessEnv,
): Promise<{ path: string; profile: ProfileSummary }> {
  const store = await loadStore(env);
  const p = store.profiles.get(name);
  if (!p) throw noProfile(name, store);
  return { path: store.path, profile: summarize(p, p.name === store.defaultProfile) };
}

export async function useProfile(name: string, env?: NodeJS.ProcessEnv): Promise<ProfileSummary> {
  return summarize(await setDefaultProfile(name, { env }), true);
}

export async function removeFromCommand(name: string, env?: NodeJS.ProcessEnv): Promise<RemoveProfileResult> {
  return removeProfile(name, { env });
}

export { storePath };
