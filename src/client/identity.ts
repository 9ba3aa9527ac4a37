// What makes two journaled sends the same money operation (docs/money.md, "What counts as the
// same money operation"): the idempotency key within one account. The account is the API key id
// together with the key ids the profile held before (a rotation); the base URL's spelling and the
// profile used play no part. Entries written before cardctl recorded key ids are matched, as they
// were then, by their API (base URL and mode). Pure: no I/O.

/** Who is sending: the key id in use and the ones its profile held before. */
export interface Account {
  keyId: string;
  formerKeyIds?: readonly string[];
  /** for entries recorded without a key id (older journals): the API they were sent to */
  baseUrl: string;
  mode: string;
}

/** The fields of a journal entry that say where it was sent. */
export interface SentBy {
  key_id?: string;
  base_url: string;
  mode: string;
}

/** Whether a journaled send belongs to the account. */
export function inAccount(e: SentBy, a: Account): boolean {
  if (e.key_id === undefined) return normalBase(e.base_url) === normalBase(a.baseUrl) && e.mode === a.mode;
  return e.key_id === a.keyId || (a.formerKeyIds?.includes(e.key_id) ?? false);
}

/**
 * One spelling of a base URL (for entries without a key id, and for telling people that an earlier
 * send went through another one): scheme and host in lower case, no default port, no trailing
 * slash (`HTTPS://API.Example.com:443/api/v1/` is `https://api.example.com/api/v1`).
 */
export function normalBase(url: string): string {
  let normal = normalBases.get(url);
  if (normal === undefined) {
    try {
      const u = new URL(url);
      normal = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
    } catch {
      normal = url.replace(/\/+$/, '');
    }
    if (normalBases.size >= 64) normalBases.clear();
    normalBases.set(url, normal);
  }
  return normal;
}

/** A journal names a handful of base URLs, a million times (a URL parse costs microseconds). */
const normalBases = new Map<string, string>();

/** Fields joined unambiguously, each after its length (cheaper than JSON.stringify, a million times over). */
export const identityText = (fields: readonly string[]): string => fields.map((f) => `${f.length}:${f}`).join('');

/**
 * Sends that the API treats as one operation (it answers the same key and bytes under one account
 * with the same outcome): key, key id (or, without one, the API it went to), body.
 */
export const operationIdentity = (e: SentBy & { idempotency_key: string; body_sha256: string }): string =>
  identityText([e.idempotency_key, e.key_id ?? `${normalBase(e.base_url)} ${e.mode}`, e.body_sha256]);
