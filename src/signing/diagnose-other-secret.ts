// The last resort of `sign diagnose`: when no known mistake reproduces the signature under the
// secret in use, the secrets of the other stored profiles are tried (the same search under each).
// The answer names the profile, never its secret. Pure: the caller reads the profiles.
import { describeMistake } from './diagnose-mistakes.js';
import { diagnose, type Diagnosis } from './diagnose.js';
import type { RawRequest } from './raw-request.js';

export interface CandidateSecret {
  /** the profile's name (the only thing of it the diagnosis shows) */
  profile: string;
  keyId: string;
  secret: string;
}

/**
 * The diagnosis explained by the first candidate whose secret reproduces the received signature
 * (alone or with the usual mistakes), or `d` unchanged when none does.
 */
export function explainWithOtherSecrets(d: Diagnosis, request: RawRequest, candidates: CandidateSecret[]): Diagnosis {
  if (d.valid || d.found || d.received_signature === null) return d;
  for (const c of candidates) {
    const other = diagnose({ request, secret: c.secret });
    if (!other.found) continue;
    const sent = d.request.key_id === null ? 'the key it names' : `key ${d.request.key_id}`;
    const named = describeMistake(
      'signed_with_other_secret',
      `the request was signed with the secret of profile "${c.profile}" (key ${c.keyId}), not with the secret of ${sent}`,
    );
    const fix = `sign with the secret of ${sent} (its profile), or send X-Api-Key ${c.keyId} with profile "${c.profile}"'s secret`;
    const more = other.valid ? [] : other.mistakes.filter((m) => m.id !== 'signed_with_other_secret');
    return { ...d, found: true, signed_with_profile: c.profile, mistakes: [...d.mistakes, { ...named, fix }, ...more] };
  }
  return d;
}
