// Idempotency of issue, recharge and terminate (spec "Idempotency"): answers are stored per
// merchant, mode and key for 24 h of simulated time and replayed; a key still running is 409
// in_flight; another body (SHA-256 of the raw bytes) or another path is 422 payload_mismatch.
import { createHash } from 'node:crypto';
import { MAX_IDEMPOTENCY_KEY_LENGTH } from '../contract/requests.js';
import { codeError, type ErrorMap, type Reply } from './envelope.js';
import { DAY } from './clock.js';
import { header, type RequestContext } from './context.js';
import type { IdempotencyRec } from './state.js';
import type { Runtime } from './runtime.js';

export const IDEMPOTENCY_TTL_MS = DAY;

/** Validation of the header: the 422 `idempotency_key` messages, or the key. */
export function readIdempotencyKey(ctx: RequestContext): { key?: string; errors?: ErrorMap } {
  const key = header(ctx, 'idempotency-key');
  if (key === undefined || key.trim() === '') {
    return { errors: { idempotency_key: ['The Idempotency-Key header is required for this operation.'] } };
  }
  if (key.length > MAX_IDEMPOTENCY_KEY_LENGTH) {
    return {
      errors: {
        idempotency_key: [
          `The Idempotency-Key header must not be longer than ${MAX_IDEMPOTENCY_KEY_LENGTH} characters.`,
        ],
      },
    };
  }
  return { key };
}

export interface Outcome {
  /** what this call answers */
  reply: Reply;
  /** false for temporary refusals (409 kyc_not_approved, 503, termination_blocked): not remembered */
  store: boolean;
  /** what replays answer, when it differs from `reply` (a 500 after commit replays the success) */
  replay?: Reply;
  /** an issue answered 202: replays read the card's state */
  asyncCardId?: string;
}

export type AsyncReplay = (cardId: string) => Reply;

const scopeOf = (ctx: RequestContext, key: string): string => `${ctx.merchantId}:${ctx.mode}:${key}`;

export async function runIdempotent(
  ctx: RequestContext,
  key: string,
  run: () => Promise<Outcome>,
  replayAsync: AsyncReplay,
): Promise<Reply> {
  const { rt } = ctx;
  const scope = scopeOf(ctx, key);
  const fingerprint = createHash('sha256').update(ctx.body).digest('hex');
  const path = `${ctx.route.operation} ${JSON.stringify(ctx.params)}`;
  const now = rt.now();
  const existing = rt.state.idempotency[scope];
  if (existing && existing.expires_at > now) {
    const first = existing.request_seq ? { seq: existing.request_seq, at: existing.request_at ?? 0 } : null;
    if (existing.fingerprint !== fingerprint || existing.path !== path) {
      if (ctx.trace)
        ctx.trace.refusal = {
          kind: 'payload_mismatch',
          first,
          firstPath: existing.path,
          path,
          firstSha256: existing.fingerprint,
        };
      return codeError('payload_mismatch');
    }
    if (existing.async_card_id) return replayAsync(existing.async_card_id);
    if (!existing.reply) {
      if (ctx.trace) ctx.trace.refusal = { kind: 'in_flight', first };
      return codeError('in_flight');
    }
    return { status: existing.reply.status, body: existing.reply.body };
  }
  const rec: IdempotencyRec = { fingerprint, path, created_at: now, expires_at: now + IDEMPOTENCY_TTL_MS, reply: null };
  // the request log's id of this first request, for the diagnosis of a later mismatch
  if (ctx.trace?.seq) {
    rec.request_seq = ctx.trace.seq;
    rec.request_at = rt.options.realNow();
  }
  delete rt.state.idempotency[scope]; // stored again at the end: the keys stay in order of expiry
  rt.state.idempotency[scope] = rec;
  expiryQueue(rt).push([scope, rec.expires_at]);
  // compared on the plain state: the tracked one hands out a wrapper, never `rec` itself
  const stillMine = () => rt.plainState.idempotency[scope] === rec;
  let outcome: Outcome;
  try {
    outcome = await run();
  } catch (err) {
    if (stillMine()) delete rt.state.idempotency[scope];
    throw err;
  }
  // a reset while the call ran replaced the state: there is nothing to remember it in
  if (stillMine()) {
    if (outcome.store) {
      const stored = rt.state.idempotency[scope]!;
      if (outcome.asyncCardId) stored.async_card_id = outcome.asyncCardId;
      const replay = outcome.replay ?? outcome.reply;
      stored.reply = { status: replay.status, body: replay.body };
      rt.markDirty();
    } else {
      delete rt.state.idempotency[scope];
    }
  }
  return outcome.reply;
}

/** Per state: the stored keys in order of expiry (the clock only moves forward, so creation order), read from the front. */
const queues = new WeakMap<object, { items: Array<[string, number]>; head: number }>();

function expiryQueue(rt: Runtime): Array<[string, number]> {
  return queueOf(rt).items;
}

function queueOf(rt: Runtime): { items: Array<[string, number]>; head: number } {
  const plain = rt.plainState;
  let q = queues.get(plain);
  if (!q) {
    // a loaded or restored state: ordered once, then kept in order by runIdempotent
    const items = Object.entries(plain.idempotency).map(([k, r]): [string, number] => [k, r.expires_at]);
    items.sort((a, b) => a[1] - b[1]);
    queues.set(plain, (q = { items, head: 0 }));
  }
  return q;
}

/** Forgets the answers older than 24 h (simulated); true when something was dropped. Costs what it drops, not what is kept. */
export function expireIdempotency(rt: Runtime): boolean {
  const now = rt.now();
  const q = queueOf(rt);
  const plain = rt.plainState.idempotency;
  let changed = false;
  const later: Array<[string, number]> = [];
  while (q.head < q.items.length && q.items[q.head]![1] <= now) {
    const [scope, expires] = q.items[q.head++]!;
    const rec = plain[scope];
    if (!rec || rec.expires_at !== expires) continue; // gone, or stored again since (queued again then)
    if (!rec.reply) {
      later.push([scope, expires]); // still in flight: looked at again on a later tick
      continue;
    }
    delete rt.state.idempotency[scope];
    changed = true;
  }
  if (q.head > 1024 && q.head * 2 > q.items.length) {
    q.items = q.items.slice(q.head);
    q.head = 0;
  }
  q.items.push(...later);
  return changed;
}
