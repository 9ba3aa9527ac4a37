// How `cardctl sign diagnose` shows a diagnosis: the verdict and the fix for people, or the
// diagnosis fields as JSON. A diagnosis is pasted into tickets next to the request: it never
// shows a signature the server would accept (the expected one, or a received one that matches)
// beyond its first characters, unless --show-valid-signature asks for it.
import { KNOWN_MISTAKES, type Diagnosis } from '../signing/diagnose.js';
import { describeCanonical } from '../signing/visible.js';

/** The characters of a valid signature that are shown: enough to compare by eye, far too few to use. */
const SHOWN = 6;

export interface ShowOptions {
  /** --show-valid-signature: print the whole signature the server expects */
  showValid?: boolean;
}

/** How the two signatures compare, with the valid one cut to its first characters. */
function comparison(d: Diagnosis, o: ShowOptions) {
  const expected = d.expected_signature;
  const received = d.received_signature;
  const match = received === expected;
  let first: number | null = null;
  if (received !== null && !match) {
    first = 0;
    while (first < expected.length && expected[first] === received[first]) first++;
    first += 1;
  }
  return {
    expected_prefix: expected.slice(0, SHOWN),
    expected: o.showValid ? expected : undefined,
    // a received signature that matches is a valid one: cut like the expected
    received: received === null ? null : match && !o.showValid ? received.slice(0, SHOWN) : received,
    match,
    first_difference: first,
  };
}

/** The `--json` value: the diagnosis, its fields in a fixed order. */
export function diagnosisJson(d: Diagnosis, o: ShowOptions = {}): Record<string, unknown> {
  const c = comparison(d, o);
  return {
    valid: d.valid,
    expected_signature_prefix: c.expected_prefix,
    ...(c.expected !== undefined ? { expected_signature: c.expected } : {}),
    received_signature: c.received,
    signatures_match: c.match,
    first_difference: c.first_difference,
    mistakes: d.mistakes,
    warnings: d.warnings,
    found: d.found,
    ...(d.signed_with_profile !== undefined ? { signed_with_profile: d.signed_with_profile } : {}),
    checked: d.checked,
    canonical: d.canonical,
    body_sha256: d.body_sha256,
  };
}

const sentence = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function signatureLines(d: Diagnosis, o: ShowOptions): string[] {
  const c = comparison(d, o);
  const expected =
    c.expected ??
    `${c.expected_prefix}… (the rest withheld: a diagnosis must not be a working request; --show-valid-signature prints it)`;
  const received =
    c.received === null
      ? '(none)'
      : c.match
        ? `${c.expected ?? c.received + '…'} (the same)`
        : `${c.received} (differs from character ${c.first_difference} on)`;
  return [`expected X-Signature: ${expected}`, `received X-Signature: ${received}`];
}

export function formatDiagnosis(d: Diagnosis, o: ShowOptions = {}): string {
  const out: string[] = [];
  if (d.valid) {
    out.push('Valid: the server computes the same signature; nothing to fix in the signing.');
  } else if (d.found && d.mistakes.length > 0) {
    const what = d.mistakes.map((m) => m.description).join(', and ');
    const fix = d.mistakes.map((m) => m.fix).join('; and ');
    out.push(`Invalid: ${what}. Fix: ${fix}.`);
  } else {
    out.push(
      `Invalid: the signature does not match, and the cause could not be found: none of the ${d.checked.length} known mistakes that apply to this request reproduces it, alone or in pairs, nor the secret of another stored profile. ` +
        'Fix: check that the secret belongs to the X-Api-Key of the request (--profile) and that the file holds the exact bytes sent.',
    );
    for (const m of d.mistakes) out.push(`  also: ${m.description} (${m.fix})`);
    if (d.checked.length > 0)
      out.push(`Checked: ${d.checked.map((id) => `${id} (${KNOWN_MISTAKES[id].description})`).join('; ')}.`);
  }
  out.push('');
  out.push(...signatureLines(d, o));
  out.push('canonical string the server signs:');
  out.push(describeCanonical(d.canonical).join('\n'));
  for (const w of d.warnings) out.push(`warning: ${sentence(w)}`);
  return out.join('\n') + '\n';
}
