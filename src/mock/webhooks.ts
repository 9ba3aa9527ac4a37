// Webhook delivery (spec "Events", SIGNING.md "Webhook signature" and "Webhook delivery schedule").
// Each recorded event becomes one delivery per enabled endpoint of its merchant. Deliveries live in
// the state (so pending ones survive a `--state` restart); attempts are plain node:http(s) POSTs
// without an agent, never following redirects, bounded by a connect and a total timeout (real
// time). Retries wait on the SIMULATED clock, so `POST /_mock/clock/advance` brings them due.
import http, { type ClientRequest } from 'node:http';
import https from 'node:https';
import type dns from 'node:dns';
import { createHash } from 'node:crypto';
import { connectionErrorWords } from '../errno-words.js';
import { signWebhook } from '../signing/webhook.js';
import { isoTime, isoOrNull, MINUTE, HOUR } from './clock.js';
import { newId, cryptoRandom } from './random.js';
import { nextSeq, type DeliveryRec, type EndpointRec, type EventRec, type MockState } from './state.js';
import type { Runtime } from './runtime.js';
import { checkEndpointUrl, resolveHost, type HostLookup, type ResolvedAddress } from './endpoint-url.js';
import { deliveryIndexOf } from './delivery-index.js';
import type { Deliveries, DeliveryFilter } from './delivery-port.js';

export { DELIVERY_RETENTION_MS } from './delivery-index.js';

/** Waits after the 1st..6th failed request: at most 7 requests in all. */
export const BACKOFF_MS = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 24 * HOUR] as const;
export const MAX_ATTEMPTS = BACKOFF_MS.length + 1;
export const MAX_JITTER = 0.2;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_TOTAL_TIMEOUT_MS = 15_000;
/** A slow endpoint only slows its own deliveries: at most this many requests in flight per endpoint. */
const PER_ENDPOINT_CONCURRENCY = 4;
/** An attempt's record is saved at most this long (real ms) after the attempt, with whatever else changed. */
const ATTEMPT_SAVE_DELAY_MS = 20;
/** `clock advance` waits at most this long (real time) for the attempts it brought due. */
const ADVANCE_WAIT_CAP_MS = 5_000;

export interface DeliveryOptions {
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
}

// ---- address rules: endpoint-url.ts (one place for registration and delivery) ----

export { isLoopbackAddress, isLoopbackHost } from './endpoint-url.js';

// ---- jitter and views ----

/** Deterministic 0..20 % jitter from the mock's seed, the delivery and the attempt number. */
export function jitterFraction(seed: number, deliveryId: string, attempt: number): number {
  const h = createHash('sha256').update(`cardctl-mock-webhook:${seed}:${deliveryId}:${attempt}`).digest();
  return (h.readUInt32BE(0) / 0x1_0000_0000) * MAX_JITTER;
}

/** Wait after the `failures`-th failed request (1-based), jitter included. */
export function backoffMs(seed: number, deliveryId: string, failures: number): number {
  const base = BACKOFF_MS[failures - 1]!;
  return Math.round(base * (1 + jitterFraction(seed, deliveryId, failures)));
}

export function deliveryView(state: MockState, d: DeliveryRec): Record<string, unknown> {
  const ep = state.endpoints[d.endpoint_id];
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    url: ep?.url ?? null,
    merchant_id: d.merchant_id,
    event_id: d.event_id,
    event_type: d.type,
    state: d.state,
    attempts: d.attempts.map((a) => ({
      at: isoTime(a.at),
      sent_at: new Date(a.sent_at).toISOString(),
      status: a.status,
      error: a.error,
      duration_ms: a.duration_ms,
    })),
    next_attempt_at: isoOrNull(d.next_attempt_at),
    created_at: isoTime(d.created_at),
  };
}

/**
 * Removes an endpoint: it gets no new deliveries, its pending ones end as dead (the log keeps
 * them), and an attempt in flight leaves no trace (attempt() checks the endpoint is still there).
 */
export function removeEndpoint(rt: Runtime, endpointId: string): EndpointRec | null {
  const ep = rt.state.endpoints[endpointId];
  if (!ep) return null;
  delete rt.state.endpoints[endpointId];
  const index = deliveryIndexOf(rt.plainState);
  const deliveries = rt.state.deliveries ?? {};
  for (const id of [...index.pending]) {
    const d = deliveries[id];
    if (d && d.endpoint_id === endpointId) {
      d.state = 'dead';
      d.next_attempt_at = null;
      index.finished(d);
    }
  }
  rt.markDirty();
  return ep;
}

export function endpointView(e: EndpointRec): Record<string, unknown> {
  return {
    id: e.id,
    url: e.url,
    merchant_id: e.merchant_id,
    enabled: !e.disabled_at,
    disabled_at: isoOrNull(e.disabled_at),
  };
}

// ---- one HTTP attempt ----

interface AttemptResult {
  status: number | null;
  error: string | null;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** A lookup that answers only the addresses checked before the request: the connection goes where the check looked (pinned). */
function pinnedLookup(pinned: ResolvedAddress[]) {
  return (_hostname: string, options: dns.LookupOptions, cb: LookupCallback): void => {
    if (options.all)
      cb(
        null,
        pinned.map((a) => ({ address: a.address, family: a.family })),
      );
    else cb(null, pinned[0]!.address, pinned[0]!.family);
  };
}

/** A delivery's failure in words: the timeouts this file raises say themselves, the rest as the grader says them (src/errno-words.ts). */
function describeError(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNECT_TIMEOUT' || err.code === 'ETOTAL_TIMEOUT') return err.message;
  return connectionErrorWords(err);
}

/**
 * One attempt: the endpoint's URL is checked again (a state file may have been edited), its host
 * resolved and every address checked (the rules of registration: a name may have moved since), and
 * the request connects to the checked address only.
 */
async function post(
  url: URL,
  headers: Record<string, string | number>,
  body: Buffer,
  timeouts: Required<DeliveryOptions>,
  track: Set<ClientRequest>,
  lookup: HostLookup,
): Promise<AttemptResult> {
  const checked = checkEndpointUrl(url.href);
  if (!checked.ok) return { status: null, error: checked.problem };
  const resolved = await resolveHost(checked.host, checked.loopback, lookup);
  if (!resolved.ok) return { status: null, error: resolved.problem };
  return send(url, resolved.addresses, headers, body, timeouts, track);
}

function send(
  url: URL,
  pinned: ResolvedAddress[],
  headers: Record<string, string | number>,
  body: Buffer,
  timeouts: Required<DeliveryOptions>,
  track: Set<ClientRequest>,
): Promise<AttemptResult> {
  return new Promise((resolve) => {
    let done = false;
    let status: number | null = null;
    let req: ClientRequest;
    const timers: NodeJS.Timeout[] = [];
    const finish = (r: AttemptResult): void => {
      if (done) return;
      done = true;
      for (const t of timers) clearTimeout(t);
      track.delete(req);
      if (!req.destroyed) req.destroy();
      resolve(r);
    };
    try {
      const mod = url.protocol === 'https:' ? https : http;
      req = mod.request(url, {
        method: 'POST',
        agent: false,
        headers: { ...headers, Connection: 'close' },
        lookup: pinnedLookup(pinned) as unknown as typeof dns.lookup,
      });
    } catch (err) {
      return resolve({ status: null, error: describeError(err as NodeJS.ErrnoException) });
    }
    track.add(req);
    const timeoutError = (code: string, what: string, ms: number) =>
      Object.assign(new Error(`${what} after ${ms} ms`), { code });
    timers.push(
      setTimeout(
        () => req.destroy(timeoutError('ECONNECT_TIMEOUT', 'connect timeout', timeouts.connectTimeoutMs)),
        timeouts.connectTimeoutMs,
      ),
    );
    timers.push(
      setTimeout(() => {
        // the status, once received, is the verdict even if the body never ends
        if (status !== null) finish({ status, error: null });
        else req.destroy(timeoutError('ETOTAL_TIMEOUT', 'timeout', timeouts.totalTimeoutMs));
      }, timeouts.totalTimeoutMs),
    );
    req.on('socket', (socket) => {
      const connected = (): void => clearTimeout(timers[0]);
      if (!socket.connecting) connected();
      else socket.once('connect', connected);
    });
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      res.on('error', () => finish({ status, error: null }));
      res.on('end', () => finish({ status, error: null }));
      res.on('close', () => finish({ status, error: null }));
      res.resume(); // the answer's body is not kept
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish({ status: null, error: describeError(err) }));
    req.on('close', () =>
      finish(
        status !== null ? { status, error: null } : { status: null, error: 'connection closed without an answer' },
      ),
    );
    req.end(body);
  });
}

// ---- the delivery manager ----

export { DELIVERY_STATES, type DeliveryFilter } from './delivery-port.js';

interface Waiter {
  promise: Promise<void>;
  resolve: () => void;
}

export class WebhookDelivery implements Deliveries {
  private readonly timeouts: Required<DeliveryOptions>;
  private readonly requests = new Set<ClientRequest>();
  /** delivery id -> its queued or running attempt */
  private readonly inflight = new Map<string, Waiter>();
  private readonly queues = new Map<string, DeliveryRec[]>();
  private readonly active = new Map<string, number>();
  private kickHandle: NodeJS.Immediate | null = null;
  private persistHandle: NodeJS.Timeout | null = null;
  private closed = false;
  private unsubscribe: () => void = () => {};

  constructor(
    private readonly rt: Runtime,
    options: DeliveryOptions = {},
  ) {
    this.timeouts = {
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      totalTimeoutMs: options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS,
    };
  }

  /** Subscribes to the event log and sends what is pending (the runtime calls kick() when things fall due). */
  start(): void {
    this.unsubscribe = this.rt.events.onEvent((event, state) => this.enqueueEvent(event, state));
    this.scheduleKick(); // pending deliveries reloaded from a state file
  }

  private deliveries(state: MockState = this.rt.state): Record<string, DeliveryRec> {
    return (state.deliveries ??= {});
  }

  /** The log, oldest first; only the deliveries matching every field given. */
  log(filter: DeliveryFilter = {}): Record<string, unknown>[] {
    const state = this.rt.plainState; // a read: no change tracking
    const match = (d: DeliveryRec): boolean =>
      (!filter.event_id || d.event_id === filter.event_id) &&
      (!filter.endpoint_id || d.endpoint_id === filter.endpoint_id) &&
      (!filter.merchant_id || d.merchant_id === filter.merchant_id) &&
      (!filter.state || d.state === filter.state);
    return Object.values(this.deliveries(state))
      .filter(match)
      .sort((a, b) => a.seq - b.seq)
      .map((d) => deliveryView(state, d));
  }

  /** One delivery per enabled endpoint of the event's merchant, each with its own id and schedule. */
  private enqueueEvent(event: EventRec, state: MockState): void {
    const now = this.rt.now();
    const body = JSON.stringify({ type: event.type, occurred_at: isoTime(event.occurred_at), data: event.data });
    let added = false;
    for (const ep of Object.values(state.endpoints)) {
      if (ep.merchant_id !== event.merchant_id || ep.disabled_at) continue;
      const d: DeliveryRec = {
        id: newId(cryptoRandom, now),
        seq: nextSeq(state),
        event_id: event.id,
        endpoint_id: ep.id,
        merchant_id: event.merchant_id,
        type: event.type,
        body,
        attempts: [],
        state: 'pending',
        next_attempt_at: now,
        created_at: now,
      };
      this.deliveries(state)[d.id] = d;
      deliveryIndexOf(this.rt.plainState).pending.add(d.id);
      added = true;
    }
    if (added) {
      this.rt.markDirty();
      // after the emitting operation finished: the first attempt goes out at once, off the request
      this.scheduleKick();
    }
  }

  private scheduleKick(): void {
    if (this.closed || this.kickHandle) return;
    this.kickHandle = setImmediate(() => {
      this.kickHandle = null;
      this.kick();
    });
  }

  /** Starts every attempt that is due (a due task: runs on the tick, control calls and clock advances). */
  kick(): boolean {
    if (this.closed) return false;
    const state = this.rt.state;
    const now = this.rt.now();
    const due: DeliveryRec[] = [];
    const all = this.deliveries(state);
    const index = deliveryIndexOf(this.rt.plainState);
    // the cost is what is pending and what is forgotten, not the 30 days of history
    const pruned = index.prune(all, now);
    for (const id of index.pending) {
      const d = all[id];
      if (!d || d.state !== 'pending') {
        index.pending.delete(id);
        continue;
      }
      if (d.next_attempt_at === null || d.next_attempt_at > now || this.inflight.has(id)) continue;
      const ep = state.endpoints[d.endpoint_id];
      if (!ep || ep.disabled_at) continue; // held until the endpoint is enabled again
      due.push(d);
    }
    due.sort((a, b) => a.next_attempt_at! - b.next_attempt_at! || a.seq - b.seq);
    for (const d of due) this.enqueue(d);
    for (const endpointId of new Set(due.map((d) => d.endpoint_id))) this.pump(endpointId);
    return pruned;
  }

  private enqueue(d: DeliveryRec): void {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    this.inflight.set(d.id, { promise, resolve });
    const q = this.queues.get(d.endpoint_id) ?? [];
    q.push(d);
    this.queues.set(d.endpoint_id, q);
  }

  private pump(endpointId: string): void {
    const q = this.queues.get(endpointId);
    while (!this.closed && q && q.length > 0 && (this.active.get(endpointId) ?? 0) < PER_ENDPOINT_CONCURRENCY) {
      const d = q.shift()!;
      this.active.set(endpointId, (this.active.get(endpointId) ?? 0) + 1);
      void this.attempt(d)
        .catch((err: unknown) => process.stderr.write(`cardctl mock: webhook delivery: ${(err as Error).message}\n`))
        .finally(() => {
          this.active.set(endpointId, (this.active.get(endpointId) ?? 1) - 1);
          const waiter = this.inflight.get(d.id);
          this.inflight.delete(d.id);
          // catching up: after a clock jump the next attempt may already be due; it goes out now,
          // queued before the old waiter resolves so that settle() keeps waiting for it
          if (
            !this.closed &&
            this.deliveries()[d.id] === d &&
            d.state === 'pending' &&
            d.next_attempt_at !== null &&
            d.next_attempt_at <= this.rt.now()
          ) {
            const ep = this.rt.state.endpoints[d.endpoint_id];
            if (ep && !ep.disabled_at) this.enqueue(d);
          }
          waiter?.resolve();
          this.pump(endpointId);
        });
    }
    if (q && q.length === 0) this.queues.delete(endpointId);
  }

  private async attempt(d: DeliveryRec): Promise<void> {
    const state = this.rt.state;
    const ep = state.endpoints[d.endpoint_id];
    const merchant = state.merchants[d.merchant_id];
    if (!ep || !merchant) return;
    const body = Buffer.from(d.body, 'utf8');
    // the schedule runs from when the attempt was due (never later than now): after a clock jump the
    // attempts that fell due inside it go out one after another, each recorded at its scheduled time
    const now0 = this.rt.now();
    const at = Math.min(d.next_attempt_at ?? now0, now0);
    const sentAt = Date.now(); // real time: receivers compare `t` with their own clock
    let url: URL | null = null;
    try {
      url = new URL(ep.url);
    } catch {
      // a hand-edited state file: recorded as a failed attempt below
    }
    const result: AttemptResult =
      url && (url.protocol === 'http:' || url.protocol === 'https:')
        ? await post(
            url,
            {
              'Content-Type': 'application/json',
              'Content-Length': body.length,
              'User-Agent': 'cardctl-mock-webhooks/1',
              'X-Service-Event': d.type,
              'X-Service-Delivery': d.id,
              'X-Service-Signature': signWebhook(merchant.webhook_secret, body, Math.floor(sentAt / 1000)),
            },
            body,
            this.timeouts,
            this.requests,
            this.rt.options.lookup,
          )
        : { status: null, error: 'the endpoint url is not an http(s) URL' };
    // stopped meanwhile (close), the state was reset or the endpoint removed: the attempt leaves no trace
    if (this.closed || this.deliveries()[d.id] !== d || state.endpoints[d.endpoint_id] !== ep) return;
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    // a status speaks for itself; a 3xx gets a word because it is a failure some would not expect
    const error =
      result.error ??
      (result.status !== null && result.status >= 300 && result.status < 400 ? 'redirect not followed' : null);
    d.attempts.push({ at, sent_at: sentAt, status: result.status, error, duration_ms: Date.now() - sentAt });
    if (ok) {
      d.state = 'succeeded';
      d.next_attempt_at = null;
      deliveryIndexOf(this.rt.plainState).finished(d);
    } else if (d.attempts.length >= MAX_ATTEMPTS) {
      d.state = 'dead';
      d.next_attempt_at = null;
      ep.disabled_at ??= at; // when its last attempt was made
      deliveryIndexOf(this.rt.plainState).finished(d);
    } else {
      d.next_attempt_at = at + backoffMs(this.rt.state.seed, d.id, d.attempts.length);
    }
    this.rt.markDirty();
    this.schedulePersist();
  }

  private schedulePersist(): void {
    if (this.persistHandle || this.closed) return;
    // no answer waits for an attempt's record: it rides with the next request's save when one comes
    // within ATTEMPT_SAVE_DELAY_MS (group commit), or is saved alone then; a crash meanwhile means
    // the attempt is made again after the restart (webhooks are at least once)
    this.persistHandle = setTimeout(() => {
      this.persistHandle = null;
      try {
        this.rt.persist();
      } catch (err) {
        process.stderr.write(`cardctl mock: ${(err as Error).message}\n`);
      }
    }, ATTEMPT_SAVE_DELAY_MS);
  }

  /**
   * Runs `run` (a clock advance's due tasks) and resolves when the attempts it started have finished,
   * catch-up attempts included, or after a real-time cap. Attempts already in flight before (a hung
   * endpoint) are not waited for.
   */
  async runAndSettle(
    run: () => void,
    capMs = Math.min(this.timeouts.totalTimeoutMs + 500, ADVANCE_WAIT_CAP_MS),
  ): Promise<void> {
    const before = new Set(this.inflight.keys());
    run();
    const mine = [...this.inflight.keys()].filter((id) => !before.has(id));
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const cap = new Promise<void>((r) => (timer = setTimeout(() => ((timedOut = true), r()), capMs)));
    // a catch-up attempt re-enters `inflight` under the same id before the previous one resolves
    for (;;) {
      const waiting = mine
        .map((id) => this.inflight.get(id)?.promise)
        .filter((p): p is Promise<void> => p !== undefined);
      if (waiting.length === 0 || timedOut) break;
      await Promise.race([Promise.all(waiting), cap]);
    }
    clearTimeout(timer);
  }

  /** Re-enables a disabled endpoint; its held deliveries become due at once. */
  enable(endpointId: string): EndpointRec | null {
    const ep = this.rt.state.endpoints[endpointId];
    if (!ep) return null;
    if (ep.disabled_at) {
      ep.disabled_at = null;
      const now = this.rt.now();
      const all = this.deliveries();
      for (const id of deliveryIndexOf(this.rt.plainState).pending) {
        const d = all[id];
        if (
          d &&
          d.endpoint_id === ep.id &&
          d.state === 'pending' &&
          d.next_attempt_at !== null &&
          d.next_attempt_at > now
        )
          d.next_attempt_at = now;
      }
      this.rt.markDirty();
      this.scheduleKick();
    }
    return ep;
  }

  /** Stops timers and aborts in-flight requests; aborted attempts stay pending (and due) in the state. */
  close(): void {
    this.closed = true;
    this.unsubscribe();
    if (this.kickHandle) clearImmediate(this.kickHandle);
    if (this.persistHandle) clearTimeout(this.persistHandle);
    this.kickHandle = this.persistHandle = null;
    for (const req of this.requests) req.destroy();
    this.requests.clear();
    for (const w of this.inflight.values()) w.resolve();
    this.inflight.clear();
    this.queues.clear();
  }
}
