// The console's diagnosis box: a failing request pasted as support staff receive it (raw HTTP, a
// curl command line, a HAR file: src/signing/pasted-request.ts, the parser of `sign diagnose
// --request` too), diagnosed with the secret of the key it names (or the one chosen) of this
// mock, by the engine of `sign diagnose`. The answer is the mistakes and both canonical strings,
// never a secret and never the signature the mock would accept.
import { diagnose } from '../signing/diagnose.js';
import { headerValue, RawRequestError, type RawRequest } from '../signing/raw-request.js';
import { parsePastedRequests, pastedForm } from '../signing/pasted-request.js';
import { visible } from '../signing/visible.js';
import type { Runtime } from '../mock/runtime.js';

const shown = (rt: Runtime, canonical: string | undefined): string[] | null =>
  canonical === undefined ? null : canonical.split('\n').map((f) => visible(rt.redactor.redact(f)));

function diagnoseOne(rt: Runtime, req: RawRequest, chosenKey: string | undefined): Record<string, unknown> {
  const keyId = chosenKey || headerValue(req, 'x-api-key');
  const key = keyId && Object.hasOwn(rt.state.keys, keyId) ? rt.state.keys[keyId] : undefined;
  const line = { method: req.method, path: req.path, query: req.query, key_id: keyId ?? null };
  if (!key) {
    return {
      ...line,
      verdict: 'key_unknown',
      message: keyId
        ? `This mock has no key ${keyId}: choose one of its keys to diagnose with (the merchant's key, as this mock knows it).`
        : "The request names no key (X-Api-Key): choose one of this mock's keys to diagnose with.",
    };
  }
  const d = diagnose({
    request: req,
    secret: key.secret,
    keyId: key.key_id,
    now: Math.floor(rt.options.realNow() / 1000),
  });
  const mistakes = d.mistakes.map((m) => ({ id: m.id, description: m.description, fix: m.fix }));
  return {
    ...line,
    verdict: d.valid ? 'valid' : mistakes.length ? mistakes[0]!.id : 'signature_unexplained',
    message: d.valid
      ? `The signature is right for ${key.key_id}.`
      : mistakes.length
        ? `${mistakes.map((m) => `${m.description}: ${m.fix}`).join('; ')}.`
        : `The signature matches none of the usual mistakes under the secret of ${key.key_id}: compare the canonical strings field by field.`,
    mistakes,
    warnings: d.warnings.map((w) => rt.redactor.redact(w)),
    canonical: shown(rt, d.canonical),
    received_canonical: shown(rt, d.client_canonical),
  };
}

/** `POST /_console/api/diagnose` `{text, key_id?}`: one line per request found in the text. */
export function diagnosePasted(rt: Runtime, raw: Buffer): { status: number; body: unknown } {
  let input: { text?: unknown; key_id?: unknown };
  try {
    input = JSON.parse(raw.toString('utf8')) as typeof input;
  } catch {
    return {
      status: 422,
      body: { success: false, message: 'The call sends JSON: {"text": "...", "key_id": "..."}.', errors: {} },
    };
  }
  if (typeof input?.text !== 'string' || input.text.trim() === '')
    return {
      status: 422,
      body: { success: false, message: 'Paste a request first.', errors: { text: ['The text is required.'] } },
    };
  const keyId = typeof input.key_id === 'string' && input.key_id !== '' ? input.key_id : undefined;
  let requests: RawRequest[];
  try {
    requests = parsePastedRequests(input.text);
  } catch (err) {
    if (!(err instanceof RawRequestError)) throw err;
    return {
      status: 422,
      body: {
        success: false,
        message: `The pasted text cannot be read as a request (${pastedForm(input.text)}): ${err.message}.`,
        errors: { text: [err.message] },
      },
    };
  }
  return {
    status: 200,
    body: {
      success: true,
      data: {
        form: pastedForm(input.text),
        requests: requests.slice(0, 200).map((r) => diagnoseOne(rt, r, keyId)),
        total: requests.length,
      },
    },
  };
}
