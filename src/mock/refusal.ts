// Why the mock refused a request, as the part that refused it knows it: cheap facts gathered on
// the refusal path only. The request log turns them into a diagnosis (diagnosis/), and only
// when the log is on. A Refusal may point at a key (and so its secret) while the request is
// answered; it is never stored: only the diagnosis made from it is.
import type { Diagnosis } from './request-log.js';
import type { RouteDef } from '../contract/routes.js';
import type { KeyRec } from './state.js';

/** What the gateway checks of a request (here, beside the refusals that quote it, so gateway.ts and this module do not import each other). */
export interface GatewayInput {
  method: string;
  rawPath: string;
  rawQuery: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  remoteAddress: string | undefined;
}

/** A request the log remembers: its id (sequence number) and real time. */
export interface FirstUse {
  seq: number;
  at: number;
}

export type Refusal =
  | { kind: 'missing_signature_headers'; missing: string[]; sent: string[] }
  | { kind: 'timestamp_out_of_window'; timestamp: string }
  | { kind: 'invalid_api_key'; keyId: string }
  | {
      kind: 'invalid_signature';
      key: KeyRec;
      input: GatewayInput /** the canonical string the gateway built (its body hash: not computed again) */;
      canonical?: string;
    }
  | { kind: 'replay_detected'; nonce: string; first: FirstUse | null }
  | { kind: 'rate_limited'; limit: number; count: number; retryAfter: number }
  | { kind: 'ip_not_allowed'; address: string | undefined; allowlist: string[] }
  | { kind: 'out_of_scope'; needed: string; scopes: string[] }
  | { kind: 'live_only'; route: RouteDef }
  | { kind: 'unknown_route'; method: string; path: string }
  | { kind: 'payload_mismatch'; first: FirstUse | null; firstPath: string; path: string; firstSha256: string }
  | { kind: 'in_flight'; first: FirstUse | null };

/** Filled as a request goes through the pipeline; read by the request log once it is answered. */
export interface Trace {
  seq: number;
  keyId?: string;
  mode?: string;
  nonce?: string;
  idempotencyKey?: string;
  route?: RouteDef;
  params?: Record<string, string>;
  refusal?: Refusal;
  /** the kind of the injected fault (`mock faults add`) this request consumed */
  fault?: string;
  /** the refusal's diagnosis, once made (sent in a header before the answer, then logged) */
  diagnosis?: Diagnosis;
}
