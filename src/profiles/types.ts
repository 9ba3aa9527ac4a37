// What a command needs to call the API, wherever it came from (PRODUCT.md, "Credentials").

export type Mode = 'test' | 'live';

/**
 * A profile as the store holds it: each secret either stored or given by a command run when it is
 * needed (`--secret-command`). The secrets never leave this process except as HMAC keys.
 */
export interface StoredProfile {
  name: string;
  keyId: string;
  /**
   * key ids the profile held before, most recent first (recorded when `profiles add --force`
   * replaces the key id, as after a rotation): one account with keyId for the journal's
   * "same money operation" (src/client/identity.ts)
   */
  formerKeyIds?: readonly string[];
  /** the API secret, when stored; exactly one of secret and secretCommand */
  secret?: string;
  /** a shell command that prints the API secret (src/profiles/secret-command.ts) */
  secretCommand?: string;
  /** a shell command that prints the webhook secret; at most one of webhookSecret and this */
  webhookSecretCommand?: string;
  /** seconds a secret command may take (default 10) */
  secretCommandTimeout?: number;
  mode: Mode;
  /** includes the `/api/v1` prefix, e.g. `http://127.0.0.1:4010/api/v1` */
  baseUrl: string;
  /** endpoint signing secret for `webhooks verify`, optional */
  webhookSecret?: string;
  /** a PEM bundle of CA certificates trusted in addition to the system's (`profiles add --ca-file`) */
  caFile?: string;
  /** seconds each request attempt may take (`profiles add --timeout`); below --timeout and CARDCTL_TIMEOUT */
  timeout?: number;
}

/** A profile with its API secret in hand (from the store or from its command). */
export interface Profile extends StoredProfile {
  secret: string;
}

/** Where the credentials in use came from, in order of precedence. */
export type CredentialSource = 'flag' | 'env' | 'env-profile' | 'default';

/** The credentials chosen, before a secret command ran: what picks a mock, or names a profile. */
export interface StoredCredentials extends StoredProfile {
  source: CredentialSource;
  baseUrlFromEnv?: boolean;
}

export interface Credentials extends Profile {
  source: CredentialSource;
  /** the API key ids this profile held before (a rotation): the same account */
  formerKeyIds?: readonly string[];
  /** with credentials from the environment: whether CARDCTL_BASE_URL gave the base URL, or the default did */
  baseUrlFromEnv?: boolean;
  /**
   * with credentials from the environment: CARDCTL_MODE is not set, so `mode` is the default
   * (test), not a claim about the key; the key's mode is what the API says (src/client/key-mode.ts)
   */
  modeDefaulted?: boolean;
}

/**
 * Where the base URL in use came from, as the user set it: `profile "x" (-p)`, `CARDCTL_BASE_URL`,
 * ... For hints that tell what to check.
 */
export function baseUrlOrigin(c: Pick<Credentials, 'source' | 'name' | 'baseUrlFromEnv'>): string {
  switch (c.source) {
    case 'env':
      return c.baseUrlFromEnv
        ? 'CARDCTL_BASE_URL'
        : `the default base URL (${DEFAULT_BASE_URL}, the local mock: CARDCTL_BASE_URL is not set)`;
    case 'flag':
      return `the base URL of profile "${c.name}" (--profile)`;
    case 'env-profile':
      return `the base URL of profile "${c.name}" (CARDCTL_PROFILE)`;
    default:
      return `the base URL of profile "${c.name}" (the default profile)`;
  }
}

/** The mock's default address, used when a profile or CARDCTL_BASE_URL names none. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/api/v1';
