// What a command needs to call the API, wherever it came from (PRODUCT.md, "Credentials").

export type Mode = 'test' | 'live';

/** A stored profile. The secrets never leave this process except as HMAC keys. */
export interface Profile {
  name: string;
  keyId: string;
  secret: string;
  mode: Mode;
  /** includes the `/api/v1` prefix, e.g. `http://127.0.0.1:4010/api/v1` */
  baseUrl: string;
  /** endpoint signing secret for `webhooks verify`, optional */
  webhookSecret?: string;
  /** a PEM bundle of CA certificates trusted in addition to the system's (`profiles add --ca-file`) */
  caFile?: string;
}

/** Where the credentials in use came from, in order of precedence. */
export type CredentialSource = 'flag' | 'env' | 'env-profile' | 'default';

export interface Credentials extends Profile {
  source: CredentialSource;
}

/** The mock's default address, used when a profile or CARDCTL_BASE_URL names none. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010/api/v1';
