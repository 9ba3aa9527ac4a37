// The API key ids each profile held before (a rotation: `profiles add NAME --key-id NEW --force`),
// which the journal counts as the same account (src/client/identity.ts). Kept in a file of their
// own beside the profile store (`former-key-ids.json`: profile name -> key ids, most recent first),
// not in the store: an older cardctl refuses a store with a field it does not know. Key ids only,
// never a secret. A damaged or unreadable file reads as "none" (a rotation is then not known:
// the old key's sends count as another account, as they did before cardctl recorded them).
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const FORMER_KEY_IDS_FILE = 'former-key-ids.json';
/** At most this many former key ids are kept per profile, the most recent first. */
export const MAX_FORMER_KEY_IDS = 20;

const KEY_ID = /^[0-9A-Z]{26}$/;

/** Each profile's former key ids, as the file holds them (nothing when absent or damaged). */
export function readFormerKeyIds(dir: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(join(dir, FORMER_KEY_IDS_FILE), 'utf8'));
  } catch {
    return out;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [name, ids] of Object.entries(raw as Record<string, unknown>)) {
    if (Array.isArray(ids))
      out.set(
        name,
        ids.filter((k): k is string => typeof k === 'string' && KEY_ID.test(k)).slice(0, MAX_FORMER_KEY_IDS),
      );
  }
  return out;
}

/** Writes the profiles' former key ids (0600, by a rename); removes the file when none has any. */
export function writeFormerKeyIds(dir: string, byName: ReadonlyMap<string, readonly string[]>): void {
  const file = join(dir, FORMER_KEY_IDS_FILE);
  const kept = [...byName].filter(([, ids]) => ids.length > 0);
  if (kept.length === 0) {
    rmSync(file, { force: true });
    return;
  }
  const tmp = `${file}.${process.pid}`;
  writeFileSync(tmp, JSON.stringify(Object.fromEntries(kept), null, 2) + '\n', { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** The former key ids after a profile's key id changed from `before` to `now` (most recent first, unique, capped). */
export function afterRotation(before: { keyId: string; formerKeyIds?: readonly string[] }, now: string): string[] {
  return [before.keyId, ...(before.formerKeyIds ?? [])]
    .filter((k, i, all) => k !== now && all.indexOf(k) === i)
    .slice(0, MAX_FORMER_KEY_IDS);
}
