// How `cardctl sign diagnose` shows a diagnosis: the verdict and the fix for people, or the
// diagnosis fields as JSON.
import { KNOWN_MISTAKES, type Diagnosis } from '../signing/diagnose.js';
import { describeCanonical } from '../signing/visible.js';

/** The `--json` value: the diagnosis, its fields in a fixed order. */
export function diagnosisJson(d: Diagnosis): Record<string, unknown> {
  return {
    valid: d.valid,
    expected_signature: d.expected_signature,
    received_signature: d.received_signature,
    mistakes: d.mistakes,
    warnings: d.warnings,
    found: d.found,
    checked: d.checked,
    canonical: d.canonical,
    body_sha256: d.body_sha256,
  };
}

const sentence = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

export function formatDiagnosis(d: Diagnosis): string {
  const out: string[] = [];
  if (d.valid) {
    out.push(`Valid: the server computes the same signature (${d.expected_signature}); nothing to fix in the signing.`);
  } else if (d.found && d.mistakes.length > 0) {
    const what = d.mistakes.map((m) => m.description).join(', and ');
    const fix = d.mistakes.map((m) => m.fix).join('; and ');
    out.push(`Invalid: ${what}. Fix: ${fix}.`);
  } else {
    out.push(
      `Invalid: the signature does not match, and the cause could not be found: none of the ${d.checked.length} known mistakes that apply to this request reproduces it, alone or in pairs. ` +
        'Fix: check that the secret belongs to the X-Api-Key of the request (--profile) and that the file holds the exact bytes sent.',
    );
    for (const m of d.mistakes) out.push(`  also: ${m.description} (${m.fix})`);
    if (d.checked.length > 0) out.push(`Checked: ${d.checked.map((id) => `${id} (${KNOWN_MISTAKES[id].description})`).join('; ')}.`);
  }
  out.push('');
  out.push(`expected X-Signature: ${d.expected_signature}`);
  out.push(`received X-Signature: ${d.received_signature ?? '(none)'}`);
  out.push('canonical string the server signs:');
  out.push(describeCanonical(d.canonical).join('\n'));
  for (const w of d.warnings) out.push(`warning: ${sentence(w)}`);
  return out.join('\n') + '\n';
}
