// One diagnosis for every refusal: the facts the pipeline gathered (refusal.ts) and the answer
// sent, turned into a stable id and a sentence that says what to change.
import { VALIDATION_MESSAGE } from '../../contract/errors.js';
import type { Reply } from '../envelope.js';
import type { Trace } from '../refusal.js';
import type { Diagnosis, RequestLog } from '../request-log.js';
import type { Runtime } from '../runtime.js';
import { inFlight, payloadMismatch } from './idempotency.js';
import {
  invalidApiKey,
  ipNotAllowed,
  missingHeaders,
  outOfScope,
  rateLimited,
  replayDetected,
  timestampOutOfWindow,
} from './gateway.js';
import { unknownResource, unknownRoute } from './routes.js';
import { invalidSignature } from './signature.js';

export interface Answered {
  trace: Trace;
  reply: Reply;
  method: string;
  rawPath: string;
  body: Buffer;
  receivedReal: number;
  receivedSim: number;
  plane: 'api' | 'control';
}

function fromRefusal(rt: Runtime, log: RequestLog, a: Answered): Diagnosis | undefined {
  const r = a.trace.refusal;
  const keyId = a.trace.keyId;
  switch (r?.kind) {
    case 'missing_signature_headers':
      return missingHeaders(r);
    case 'timestamp_out_of_window':
      return timestampOutOfWindow(rt, r, a.receivedReal, a.receivedSim);
    case 'invalid_api_key':
      return invalidApiKey(rt, r, rt.now());
    case 'invalid_signature':
      return invalidSignature(rt, r.key, r.input, r.canonical);
    case 'replay_detected':
      return replayDetected(r, log);
    case 'rate_limited':
      return rateLimited(r, keyId);
    case 'ip_not_allowed':
      return ipNotAllowed(r, keyId);
    case 'out_of_scope':
      return outOfScope(r, keyId);
    case 'live_only':
      return {
        id: 'live_only',
        message: `${r.route.operation} is live only: use a live key (test keys answer 403 here).`,
        details: { operation: r.route.operation },
      };
    case 'unknown_route':
      return unknownRoute(a.method, a.rawPath);
    case 'payload_mismatch':
      return payloadMismatch(r, a.body, log);
    case 'in_flight':
      return inFlight(r, log);
    default:
      return undefined;
  }
}

interface Envelope {
  message?: string;
  errors?: Record<string, unknown>;
}

/** The answer's own words, for the refusals that need no more (422 and the operation codes). */
function fromReply(rt: Runtime, a: Answered): Diagnosis | undefined {
  const { status } = a.reply;
  const env = (a.reply.body ?? {}) as Envelope;
  const errors = env.errors ?? {};
  const t = a.trace;
  if (status === 404 && a.plane === 'api' && t.route && t.params && t.keyId) {
    return unknownResource(rt, t.route, t.params, rt.state.keys[t.keyId]?.merchant_id ?? '', t.mode ?? '');
  }
  if (status === 404 && !t.route) return unknownRoute(a.method, a.rawPath);
  if (status === 401 && a.plane === 'control') {
    return {
      id: 'control_token_wrong',
      message:
        'The control plane needs Authorization: Bearer <control_token> of the mock banner (the cardctl mock commands find it in the record of `mock start`).',
    };
  }
  const fields = Object.entries(errors).map(([f, v]) => `${f}: ${Array.isArray(v) ? v.join('; ') : String(v)}`);
  if (status === 422 && env.message === VALIDATION_MESSAGE) {
    return {
      id: 'validation',
      message: `${env.message ?? 'Validation failed.'} ${fields.join(' | ')}`.trim(),
      details: { fields: errors },
    };
  }
  const code = Object.values(errors).flat()[0];
  return {
    id: typeof code === 'string' && /^[a-z_]+$/.test(code) ? code : `http_${status}`,
    message: [env.message, ...fields].filter(Boolean).join(' '),
    details: Object.keys(errors).length ? { fields: errors } : undefined,
  };
}

const FAULT_EFFECT: Record<string, string> = {
  '503': 'answered 503 before doing anything',
  '500': 'answered 500 before doing anything',
  '500_after_commit': 'did the operation, then answered 500 (replay the same Idempotency-Key to learn the outcome)',
  drop: 'did the operation, then closed the connection without an answer (replay the same Idempotency-Key to learn the outcome)',
  issue_failed: 'made the issue fail (nothing charged)',
};

/** An answer an injected fault made (`mock faults add`): said so, instead of a mistake of the client. */
function fromFault(a: Answered, dropped: boolean): Diagnosis | undefined {
  const kind = a.trace.fault;
  if (!kind || !FAULT_EFFECT[kind] || (a.reply.status < 400 && !dropped)) return undefined;
  return {
    id: 'injected_fault',
    message: `An injected fault (${kind}, \`cardctl mock faults add\`) ${FAULT_EFFECT[kind]}: nothing in the request was wrong.`,
    details: { fault: kind },
  };
}

/** The diagnosis of a refused request (status >= 400, or dropped by a fault), or undefined for an answer that is no refusal. */
export function explain(rt: Runtime, log: RequestLog, a: Answered, dropped = false): Diagnosis | undefined {
  const fault = fromFault(a, dropped);
  if (fault) return fault;
  if (a.reply.status < 400) return undefined;
  return fromRefusal(rt, log, a) ?? fromReply(rt, a);
}
