// The request log (issue 18): the last N requests the mock answered, API and control plane
// told apart, each refusal with the diagnosis that says what to change. A ring of N slots:
// memory is bounded by N (each record holds at most BODY_KEPT_BYTES of its body). Never a
// secret: no header is kept, only the values named below (key id, nonce, idempotency key).
import { createHash } from 'node:crypto';

export const DEFAULT_REQUEST_LOG_SIZE = 10_000;
const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');
const utf8 = new TextDecoder('utf-8', { fatal: false });
/** Decided: at most 1,000,000 records (about 1 GiB at worst with 1 KiB bodies; 10,000 is the default). */
export const MAX_REQUEST_LOG_SIZE = 1_000_000;
/** The body itself is kept up to this many bytes (its size and SHA-256 always). */
export const BODY_KEPT_BYTES = 16 * 1024;

export type Plane = 'api' | 'control';

/** A diagnosis: a stable id, a sentence saying what to change, and the facts behind it. */
export interface Diagnosis {
  id: string;
  message: string;
  details?: Record<string, unknown>;
}

const NO_CODES: readonly string[] = Object.freeze([]);

/**
 * One record, as the pipeline fills it once the request is answered. A class with every field
 * set in its constructor: one object of one shape per request (10,000 are kept, so the log
 * costs the mock little more than the copying of these into the old generation).
 */
export class LogRecord {
  plane: Plane = 'api';
  method = '';
  path = '';
  query = '';
  status: number | null = null;
  codes: readonly string[] = NO_CODES;
  receivedReal = 0;
  receivedSim = 0;
  durationMs = 0;
  keyId: string | undefined = undefined;
  mode: string | undefined = undefined;
  idempotencyKey: string | undefined = undefined;
  nonce: string | undefined = undefined;
  sourceAddress: string | undefined = undefined;
  /** an injected `drop`, or a client gone before the answer */
  outcome: 'dropped' | 'abandoned' | undefined = undefined;
  diagnosis: Diagnosis | undefined = undefined;
  bodyBytes = 0;
  bodySha256 = EMPTY_SHA256;
  bodyText: string | null = null;
  bodyTruncated = false;

  constructor(readonly seq: number) {}

  /** Keeps the body's size and SHA-256, and the body itself up to BODY_KEPT_BYTES. */
  setBody(body: Buffer): void {
    if (body.length === 0) return;
    const kept = body.length > BODY_KEPT_BYTES ? body.subarray(0, BODY_KEPT_BYTES) : body;
    this.bodyBytes = body.length;
    this.bodySha256 = createHash('sha256').update(body).digest('hex');
    this.bodyText = utf8.decode(kept);
    this.bodyTruncated = body.length > BODY_KEPT_BYTES;
  }
}

export interface RequestFilter {
  /** status classes (4 for 4xx) and codes (401) */
  statusClasses?: number[];
  statuses?: number[];
  failed?: boolean;
  code?: string;
  pathPrefix?: string;
  keyId?: string;
  plane?: Plane;
  /** real ms: only requests received at or after */
  since?: number;
  /** only requests older than this sequence number (the cursor of a page) */
  beforeSeq?: number;
  /** only requests newer than this sequence number (a --follow reader) */
  afterSeq?: number;
}

export const requestId = (seq: number): string => `req_${seq}`;
export const seqOf = (id: string): number | null => {
  const m = /^req_([1-9]\d{0,15})$/.exec(id);
  return m ? Number(m[1]) : null;
};

const iso = (ms: number): string | null => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);

/** The record as the control plane shows it. */
export function recordView(r: LogRecord): Record<string, unknown> {
  return {
    id: requestId(r.seq),
    plane: r.plane,
    received_at: iso(r.receivedReal),
    simulated_at: iso(r.receivedSim),
    method: r.method,
    path: r.path,
    query: r.query,
    status: r.status,
    outcome: r.outcome ?? 'answered',
    codes: r.codes,
    duration_ms: Math.round(r.durationMs * 1000) / 1000,
    key_id: r.keyId ?? null,
    mode: r.mode ?? null,
    idempotency_key: r.idempotencyKey ?? null,
    nonce: r.nonce ?? null,
    source_address: r.sourceAddress ?? null,
    body: { bytes: r.bodyBytes, sha256: r.bodySha256, text: r.bodyText, truncated: r.bodyTruncated },
    diagnosis: r.diagnosis ?? null,
  };
}

function matches(r: LogRecord, f: RequestFilter): boolean {
  if (f.afterSeq !== undefined && r.seq <= f.afterSeq) return false;
  if (f.since !== undefined && r.receivedReal < f.since) return false;
  if (f.plane && r.plane !== f.plane) return false;
  if (f.failed && (r.status === null || r.status < 400) && !r.outcome) return false;
  if (f.statusClasses?.length || f.statuses?.length) {
    const s = r.status ?? 0;
    if (!(f.statusClasses ?? []).includes(Math.floor(s / 100)) && !(f.statuses ?? []).includes(s)) return false;
  }
  if (f.code && !r.codes.includes(f.code) && r.diagnosis?.id !== f.code) return false;
  if (f.pathPrefix && !r.path.startsWith(f.pathPrefix)) return false;
  if (f.keyId && r.keyId !== f.keyId) return false;
  return true;
}

export class RequestLog {
  private readonly slots: Array<LogRecord | undefined>;
  /** the sequence number the next request gets (the first is 1) */
  private nextSeq = 1;
  private readonly listeners = new Set<(view: Record<string, unknown>) => void>();
  /** told only that a record was added (the console's live log): no view is built for them */
  private readonly watchers = new Set<(seq: number) => void>();

  constructor(readonly capacity: number) {
    this.slots = new Array<LogRecord | undefined>(capacity);
  }

  /** requests whose id is reserved and whose record is not added yet: still being answered */
  private readonly inFlight = new Set<number>();

  /** Reserves the id of a request as it arrives (a nonce or an idempotency key remembers it). */
  reserve(): number {
    this.inFlight.add(this.nextSeq);
    return this.nextSeq++;
  }

  /** A reserved id whose record will never come (recording it failed). */
  forget(seq: number): void {
    this.inFlight.delete(seq);
  }

  /**
   * Ids newer than `afterSeq` still being answered, oldest first (at most `max`): a follower that
   * already read past one of them (requests finish out of order) asks for it again later.
   */
  pendingAfter(afterSeq: number, max = 100): string[] {
    const ids: number[] = [];
    const firstKept = Math.max(1, this.nextSeq - this.capacity); // older ones are dropped already (droppedAfter)
    for (const seq of this.inFlight) if (seq > afterSeq && seq >= firstKept) ids.push(seq);
    return ids
      .sort((a, b) => a - b)
      .slice(0, max)
      .map(requestId);
  }

  add(rec: LogRecord): void {
    const seq = rec.seq;
    this.inFlight.delete(seq);
    const slot = seq % this.capacity;
    // requests finish out of order: a slow one never replaces a newer record in its slot
    const present = this.slots[slot];
    if (present && present.seq > seq) return;
    this.slots[slot] = rec;
    if (this.listeners.size) {
      const view = recordView(rec);
      for (const l of this.listeners) l(view);
    }
    for (const w of this.watchers) w(seq);
  }

  /** Calls `watcher` with the sequence number of every record added from now on; returns the unsubscribe. */
  onAdded(watcher: (seq: number) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  /** The record of a sequence number still held, or undefined. */
  get(seq: number): LogRecord | undefined {
    const r = this.slots[seq % this.capacity];
    return r && r.seq === seq ? r : undefined;
  }

  /** The raw body kept for a request (for diffs against a later body), or undefined. */
  bodyOf(seq: number): { text: string | null; sha256: string; truncated: boolean; receivedReal: number } | undefined {
    const r = this.get(seq);
    return r && { text: r.bodyText, sha256: r.bodySha256, truncated: r.bodyTruncated, receivedReal: r.receivedReal };
  }

  /**
   * Newest first, up to `limit`, and the cursor of the next (older) page when one remains.
   * `oldestFirst`: from the oldest matching up (a reader following with `after`).
   */
  list(
    filter: RequestFilter,
    limit: number,
    oldestFirst = false,
  ): { records: Array<Record<string, unknown>>; nextCursor: string | null } {
    const out: LogRecord[] = [];
    const newest = Math.min(this.nextSeq - 1, (filter.beforeSeq ?? Infinity) - 1);
    const oldest = Math.max(1, this.nextSeq - this.capacity, (filter.afterSeq ?? 0) + 1);
    if (oldestFirst) {
      for (let seq = oldest; seq <= newest && out.length < limit; seq++) {
        const r = this.get(seq);
        if (r && matches(r, filter)) out.push(r);
      }
      return { records: out.map(recordView), nextCursor: null };
    }
    let seq = newest;
    for (; seq >= oldest; seq--) {
      const r = this.get(seq);
      if (!r || !matches(r, filter)) continue;
      if (out.length === limit) break;
      out.push(r);
    }
    return { records: out.map(recordView), nextCursor: seq >= oldest ? String(out.at(-1)!.seq) : null };
  }

  /**
   * The requests newer than `afterSeq` that a reader following with `after` can no longer get:
   * the log already made room for newer ones (it keeps `capacity`). `null` when none was lost.
   */
  droppedAfter(afterSeq: number): { count: number; first: string; last: string } | null {
    const firstKept = Math.max(1, this.nextSeq - this.capacity);
    const count = firstKept - (afterSeq + 1);
    return count > 0 ? { count, first: requestId(afterSeq + 1), last: requestId(firstKept - 1) } : null;
  }

  /** Calls `listener` with every record added from now on (`mock start --log`); returns the unsubscribe. */
  onRecord(listener: (view: Record<string, unknown>) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clear(): void {
    this.slots.fill(undefined);
  }
}
