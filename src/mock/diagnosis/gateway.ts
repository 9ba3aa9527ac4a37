// Diagnoses of the gateway's refusals other than the signature (signature.ts): what was
// missing, how far the clock was off and on which clock, which key, which nonce, the rate
// limit, the allowlist and the scope.
import { TIMESTAMP_WINDOW_S } from '../gateway.js';
import { WINDOW_MS } from '../ratelimit.js';
import { requestId } from '../request-log.js';
import type { Diagnosis, RequestLog } from '../request-log.js';
import type { FirstUse, Refusal } from '../refusal.js';
import type { Runtime } from '../runtime.js';

const at = (ms: number): string => new Date(ms).toISOString();
const norm = (name: string): string => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Levenshtein distance, bounded: small names only. */
export function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const keep = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = keep;
    }
  }
  return prev[b.length]!;
}

/** A header sent that looks like `wanted` (a typo, another separator, no X- prefix), or undefined. */
function nearHeader(wanted: string, sent: string[]): string | undefined {
  const w = norm(wanted);
  const bare = w.replace(/^x/, '');
  let best: { name: string; d: number } | undefined;
  for (const name of sent) {
    const n = norm(name);
    if (n === w && name.toLowerCase() !== wanted.toLowerCase()) return name; // x_api_key, x.api.key
    const d = Math.min(distance(n, w), distance(n, bare));
    if (d <= 2 && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}

export function missingHeaders(r: Extract<Refusal, { kind: 'missing_signature_headers' }>): Diagnosis {
  const near = Object.fromEntries(
    r.missing
      .map((m) => [
        m,
        nearHeader(
          m,
          r.sent.filter((s) => !r.missing.some((x) => x.toLowerCase() === s)),
        ),
      ])
      .filter(([, v]) => v),
  );
  const nearText = Object.entries(near).map(([m, s]) => `${m} (you sent ${s}: rename it)`);
  const list = r.missing.map((m) => (near[m] ? `${m} (you sent "${near[m]}": rename it)` : m));
  return {
    id: nearText.length ? 'header_misnamed' : 'headers_missing',
    message: `The request has no ${list.join(', ')} header${r.missing.length > 1 ? 's' : ''}: send all four signature headers, X-Api-Key, X-Timestamp, X-Nonce and X-Signature.`,
    details: { missing: r.missing, near: near },
  };
}

export function timestampOutOfWindow(
  rt: Runtime,
  r: Extract<Refusal, { kind: 'timestamp_out_of_window' }>,
  receivedReal: number,
  receivedSim: number,
): Diagnosis {
  const ts = r.timestamp;
  if (/^\d{13}$/.test(ts)) {
    return {
      id: 'timestamp_milliseconds',
      message: `X-Timestamp ${ts} is in milliseconds: send Unix seconds (Math.floor(Date.now() / 1000)) and sign the same value.`,
      details: { timestamp: ts },
    };
  }
  if (!/^\d{1,10}$/.test(ts)) {
    return {
      id: 'timestamp_malformed',
      message: `X-Timestamp ${JSON.stringify(ts)} is not 1 to 10 decimal digits: send decimal Unix seconds.`,
      details: { timestamp: ts },
    };
  }
  const realS = Math.floor(receivedReal / 1000);
  const simS = Math.floor(receivedSim / 1000);
  const skew = Number(ts) - realS;
  const simSkew = Number(ts) - simS;
  const withinSim = Math.abs(simSkew) <= TIMESTAMP_WINDOW_S;
  const side = skew < 0 ? 'in the past' : 'in the future';
  const details = {
    timestamp: Number(ts),
    skew_seconds: skew,
    window_seconds: TIMESTAMP_WINDOW_S,
    real_now: at(receivedReal),
    simulated_now: at(receivedSim),
    within_simulated_clock: withinSim,
  };
  if (withinSim && rt.clock.offsetMs !== 0) {
    return {
      id: 'timestamp_from_simulated_clock',
      message:
        `X-Timestamp is ${Math.abs(skew)} s ${side} of the real clock but within the window of the mock's simulated clock (moved ${Math.round(rt.clock.offsetMs / 1000)} s by \`mock clock advance\`): ` +
        "the gateway's 300 s window uses the real clock; sign with the real time, not the simulated one.",
      details,
    };
  }
  return {
    id: skew < 0 ? 'timestamp_stale' : 'timestamp_ahead',
    message: `X-Timestamp is ${Math.abs(skew)} s ${side} (the window is ${TIMESTAMP_WINDOW_S} s on the real clock): sign right before sending, do not reuse a signed request, and check the client's clock.`,
    details,
  };
}

export function invalidApiKey(rt: Runtime, r: Extract<Refusal, { kind: 'invalid_api_key' }>, now: number): Diagnosis {
  const key = Object.hasOwn(rt.state.keys, r.keyId) ? rt.state.keys[r.keyId]! : undefined;
  if (!key) {
    const looksSecret = Object.values(rt.state.keys).some((k) => k.secret === r.keyId || k.previous_secret === r.keyId);
    if (looksSecret) {
      return {
        id: 'secret_sent_as_key_id',
        message:
          'X-Api-Key holds a secret, not a key id: send the key id in X-Api-Key and never send the secret (roll this key now: `cardctl mock keys roll KEY`).',
      };
    }
    return {
      id: 'key_unknown',
      message: `No key ${JSON.stringify(r.keyId)} exists in this mock: use a key id of its banner (\`mock start --json\`) or one made by \`mock keys create\` (a reset or a restart without --state forgets keys made since).`,
      details: { key_id: r.keyId },
    };
  }
  if (key.revoked) {
    return {
      id: 'key_revoked',
      message: `Key ${key.key_id} (${key.mode}) was revoked${key.revoked_at ? ` at ${at(key.revoked_at)} (simulated clock)` : ''}: use another key of the merchant, or make one with \`cardctl mock keys create --mode ${key.mode}\`.`,
      details: { key_id: key.key_id, mode: key.mode, revoked_at: key.revoked_at ? at(key.revoked_at) : null },
    };
  }
  return {
    id: 'key_expired',
    message: `Key ${key.key_id} (${key.mode}) expired at ${at(key.expires_at ?? now)} on the simulated clock (now ${at(now)}): make a new one with \`cardctl mock keys create --mode ${key.mode}\`.`,
    details: { key_id: key.key_id, mode: key.mode, expires_at: key.expires_at ? at(key.expires_at) : null },
  };
}

/** The first request's id and time (the time it was received, as its record says, when the log still holds it). */
export function firstUseView(first: FirstUse | null, log: RequestLog): { request_id: string; at: string } | null {
  if (!first) return null;
  const kept = log.bodyOf(first.seq);
  return { request_id: requestId(first.seq), at: at(kept?.receivedReal ?? first.at) };
}

export function replayDetected(r: Extract<Refusal, { kind: 'replay_detected' }>, log: RequestLog): Diagnosis {
  const first = firstUseView(r.first, log);
  return {
    id: 'nonce_reused',
    message:
      `X-Nonce ${JSON.stringify(r.nonce)} was already used with this key${first ? ` by ${first.request_id} at ${first.at}` : ''} (nonces are remembered 600 s): ` +
      'send a fresh nonce with every request, retries included (a retry is signed again).',
    details: { nonce: r.nonce, first_request: first },
  };
}

export function rateLimited(r: Extract<Refusal, { kind: 'rate_limited' }>, keyId: string | undefined): Diagnosis {
  return {
    id: 'rate_limit_exceeded',
    message: `Key ${keyId ?? ''} made ${r.count} requests in the last ${WINDOW_MS / 1000} s, the limit is ${r.limit}: wait ${r.retryAfter} s (Retry-After) and slow down.`,
    details: { window_seconds: WINDOW_MS / 1000, count: r.count, limit: r.limit, reset_seconds: r.retryAfter },
  };
}

export function ipNotAllowed(r: Extract<Refusal, { kind: 'ip_not_allowed' }>, keyId: string | undefined): Diagnosis {
  return {
    id: 'address_not_allowed',
    message: `The request came from ${r.address ?? 'an unknown address'}, which is not on key ${keyId ?? ''}'s allowlist (${r.allowlist.join(', ')}): send from an allowed address, or use a key whose allowlist includes it.`,
    details: { address: r.address ?? null, allowlist: r.allowlist },
  };
}

export function outOfScope(r: Extract<Refusal, { kind: 'out_of_scope' }>, keyId: string | undefined): Diagnosis {
  return {
    id: 'scope_missing',
    message: `This operation needs scope ${r.needed}; key ${keyId ?? ''} holds ${r.scopes.join(', ')}: use a key with ${r.needed} (\`cardctl mock keys create --scope ${r.needed}\`).`,
    details: { needed: r.needed, scopes: r.scopes },
  };
}
