// Diagnoses of the idempotency refusals: which JSON fields differ from the first request sent
// with the key (or "same fields, other bytes"), and which request still runs.
import type { Diagnosis, RequestLog } from '../request-log.js';
import type { Refusal } from '../refusal.js';
import { firstUseView } from './gateway.js';
import { jsonNestingDepth } from '../json-limits.js';
import { REWRITTEN_BODY_BYTES, REWRITTEN_BODY_DEPTH } from './signature.js';

/** The JSON value of a body small and shallow enough to be compared field by field (the walk recurses), else undefined. */
function parse(text: string | null): unknown {
  if (text === null || text.length > REWRITTEN_BODY_BYTES) return undefined;
  if (jsonNestingDepth(Buffer.from(text, 'utf8'), REWRITTEN_BODY_DEPTH) > REWRITTEN_BODY_DEPTH) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Dotted paths of the values that differ between two JSON values (at most 20). */
export function differingFields(a: unknown, b: unknown, prefix = '', out: string[] = []): string[] {
  if (out.length >= 20) return out;
  const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(a) && isObj(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
      differingFields(a[k], b[k], prefix ? `${prefix}.${k}` : k, out);
    return out;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(prefix || '(the whole body)');
  return out;
}

export function payloadMismatch(
  r: Extract<Refusal, { kind: 'payload_mismatch' }>,
  body: Buffer,
  log: RequestLog,
): Diagnosis {
  const first = firstUseView(r.first, log);
  const details: Record<string, unknown> = { first_request: first };
  const by = first ? ` (${first.request_id})` : '';
  if (r.firstPath !== r.path) {
    return {
      id: 'key_reused_for_other_operation',
      message: `This Idempotency-Key was first used${by} for another operation or resource (${r.firstPath}): use a new key for each distinct operation.`,
      details: { ...details, first_operation: r.firstPath, operation: r.path },
    };
  }
  const kept = r.first ? log.bodyOf(r.first.seq) : undefined;
  const firstBody = kept && kept.sha256 === r.firstSha256 && !kept.truncated ? parse(kept.text) : undefined;
  const thisBody = body.length > REWRITTEN_BODY_BYTES ? undefined : parse(body.toString('utf8'));
  if (firstBody !== undefined && thisBody !== undefined) {
    const fields = differingFields(firstBody, thisBody);
    if (fields.length === 0) {
      return {
        id: 'same_fields_other_bytes',
        message: `Same fields as the first request${by}, other bytes (key order, spacing or escapes): a retry must send the exact bytes of the first request, or use a new Idempotency-Key for a new operation.`,
        details,
      };
    }
    return {
      id: 'body_fields_differ',
      message: `The body differs from the first request with this Idempotency-Key${by} in ${fields.join(', ')}: a retry must send the same body; a new operation needs a new key.`,
      details: { ...details, fields },
    };
  }
  const why =
    kept && kept.sha256 === r.firstSha256 && !kept.truncated
      ? 'the bodies are not both JSON small and shallow enough to compare field by field'
      : 'that body is no longer in the log';
  return {
    id: 'body_differs',
    message: `The body differs from the first request with this Idempotency-Key${by} (SHA-256 ${r.firstSha256}; ${why}): a retry must send the same body; a new operation needs a new key.`,
    details: { ...details, first_body_sha256: r.firstSha256 },
  };
}

export function inFlight(r: Extract<Refusal, { kind: 'in_flight' }>, log: RequestLog): Diagnosis {
  const first = firstUseView(r.first, log);
  return {
    id: 'key_still_running',
    message: `The first request with this Idempotency-Key${first ? ` (${first.request_id}, ${first.at})` : ''} is still running: retry the same request shortly, with the same key and body.`,
    details: { first_request: first },
  };
}
