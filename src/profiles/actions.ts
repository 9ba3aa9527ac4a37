// What the `profiles` commands do, apart from flag parsing and rendering. Summaries never hold
// a secret: `profiles show` gives a fingerprint instead (first 8 hex of SHA-256 of the secret
// text), so two machines can be compared with
// `printf %s "$SECRET" | sha256sum | cut -c1-8` without revealing it.
import { createHash } from 'node:crypto';
import { resolve as resolvePath } from 'node:path';
import { usageError } from '../errors.js';
import { promptHidden, readStdinLines } from './secret-input.js';
import { promptsForbidden, whyNoPrompt } from '../no-input.js';
import { addProfile, invalidProfileError, loadStore, noProfile, profileExistsError, validateProfile, removeProfile, setDefaultProfile, storePath, type AddProfileResult, type RemoveProfileResult } from './store.js';
import type { Profile } from './types.js';

export interface ProfileSummary {
  name: string;
  mode: Profile['mode'];
  key_id: string;
  base_url: string;
  default: boolean;
  /** `sha256:` + the first 8 hex digits of SHA-256 over the secret's UTF-8 text */
  secret_fingerprint: string;
  webhook_secret_fingerprint: string | null;
  /** only when the profile has one */
  ca_file?: string;
  /** seconds per request attempt, only when the profile sets one */
  timeout?: number;
}

export function fingerprint(secret: string): string {
  return `sha256:${createHash('sha256').update(secret, 'utf8').digest('hex').slice(0, 8)}`;
}

export function summarize(profile: Profile, isDefault: boolean): ProfileSummary {
  return {
    name: profile.name,
    mode: profile.mode,
    key_id: profile.keyId,
    base_url: profile.baseUrl,
    default: isDefault,
    secret_fingerprint: fingerprint(profile.secret),
    webhook_secret_fingerprint: profile.webhookSecret === undefined ? null : fingerprint(profile.webhookSecret),
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
  makeDefault: boolean;
  force: boolean;
  env?: NodeJS.ProcessEnv;
}

export async function addFromCommand(opts: AddCommandOptions): Promise<AddProfileResult & { summary: ProfileSummary }> {
  let secret: string;
  let webhookSecret: string | undefined;
  if (opts.webhookSecretStdin && !opts.secretStdin) {
    throw usageError('--webhook-secret-stdin needs --secret-stdin.', 'Pipe two lines: the API secret, then the webhook secret.');
  }
  // Refuse bad flags and an unreadable store before asking for the secret.
  const placeholder = Buffer.alloc(32).toString('base64');
  const { problems } = validateProfile({ name: opts.name, keyId: opts.keyId, secret: placeholder, mode: opts.mode, baseUrl: opts.baseUrl, timeout: opts.timeout });
  if (Object.keys(problems).length > 0) throw invalidProfileError(problems);
  const store = await loadStore(opts.env);
  if (store.profiles.has(opts.name) && !opts.force) throw profileExistsError(opts.name);
  if (opts.secretStdin) {
    const labels = opts.webhookSecretStdin ? ['the API secret', 'the webhook secret'] : ['the API secret'];
    [secret, webhookSecret] = (await readStdinLines(labels)) as [string, string | undefined];
  } else if (promptsForbidden(opts.env)) {
    throw usageError(`no secret: ${whyNoPrompt(opts.env)}, so cardctl does not prompt for it.`, 'Pass --secret-stdin and pipe the secret in (a secret is never accepted as a flag).');
  } else if (process.stdin.isTTY) {
    secret = await promptHidden(`API secret for ${opts.name} (not shown): `);
  } else {
    throw usageError('no secret: stdin is not a terminal, so cardctl cannot prompt for it.', 'Pass --secret-stdin and pipe the secret in, e.g. printf \'%s\\n\' "$SECRET" | cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin (a secret is never accepted as a flag).');
  }
  const result = await addProfile(
    { name: opts.name, keyId: opts.keyId, secret, mode: opts.mode, baseUrl: opts.baseUrl, webhookSecret, ...(opts.caFile !== undefined ? { caFile: resolvePath(opts.caFile) } : {}), ...(opts.timeout !== undefined ? { timeout: opts.timeout } : {}) },
    { overwrite: opts.force, makeDefault: opts.makeDefault, env: opts.env },
  );
  return { ...result, summary: summarize(result.profile, result.isDefault) };
}

export async function listSummaries(env?: NodeJS.ProcessEnv): Promise<{ path: string; profiles: ProfileSummary[] }> {
  const store = await loadStore(env);
  return { path: store.path, profiles: [...store.profiles.values()].map((p) => summarize(p, p.name === store.defaultProfile)) };
}

export async function showSummary(name: string, env?: NodeJS.ProcessEnv): Promise<{ path: string; profile: ProfileSummary }> {
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
