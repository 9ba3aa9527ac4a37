// The journal's records folded into entries: an operation and every record after it (answers,
// people's resolutions), the latest deciding; a later send of the same operation resolving earlier
// ones; a compacted record standing for its operation. Pure: the engines store records, this
// module says what they mean (src/client/journal.ts).
import { operationIdentity } from '../identity.js';
import type {
  JournalCompact,
  JournalEntry,
  JournalOp,
  JournalOutcome,
  JournalResolution,
  OutcomeState,
} from '../journal-types.js';

/** A record as stored: its type and the operation's id, the rest as written. */
export type RawRecord = Record<string, unknown> & { type: string; id: string };

/** What a record that cannot be used is: its text and why. */
export interface DamagedLine {
  damaged: true;
  why: string;
  text: string;
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown): boolean => v === null || v === undefined || typeof v === 'string';
const isStatus = (v: unknown): boolean =>
  v === null || v === undefined || (typeof v === 'number' && Number.isInteger(v));

/** Why a parsed record cannot be used, or undefined when its shape is right. */
export function shapeProblem(r: unknown): string | undefined {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return 'not a JSON object';
  const o = r as Record<string, unknown>;
  if (!isStr(o.id) || !/^op_[\w.-]{1,64}$/.test(o.id)) return 'no operation id (op_...)';
  if (!isStr(o.time) || Number.isNaN(Date.parse(o.time))) return `${o.id}: no valid time`;
  if (o.type === 'op') {
    for (const f of ['mode', 'base_url', 'method', 'path', 'idempotency_key', 'body_b64', 'body_sha256', 'source']) {
      if (!isStr(o[f])) return `${o.id}: op without ${f}`;
    }
    if (!isStrOrNull(o.query) || !isStrOrNull(o.profile) || !isStrOrNull(o.key_id) || !isStrOrNull(o.host))
      return `${o.id}: op with a field of the wrong type`;
    return undefined;
  }
  if (o.type === 'outcome') {
    if (o.outcome !== 'resolved' && o.outcome !== 'unknown') return `${o.id}: outcome neither resolved nor unknown`;
    if (!isStatus(o.status) || !isStrOrNull(o.code) || !isStrOrNull(o.resource_id))
      return `${o.id}: outcome with a field of the wrong type`;
    return undefined;
  }
  if (o.type === 'resolution') {
    if (o.outcome !== 'succeeded' && o.outcome !== 'failed') return `${o.id}: resolution neither succeeded nor failed`;
    if (!isStrOrNull(o.note)) return `${o.id}: resolution note of the wrong type`;
    return undefined;
  }
  if (o.type === 'compact') {
    for (const f of ['mode', 'base_url', 'method', 'path', 'idempotency_key', 'body_sha256', 'compacted_at']) {
      if (!isStr(o[f])) return `${o.id}: compacted op without ${f}`;
    }
    if (o.outcome !== 'resolved') return `${o.id}: compacted op not resolved`;
    if (o.not_processed !== undefined && o.not_processed !== true)
      return `${o.id}: compacted op with a field of the wrong type`;
    if (o.balance_minor !== undefined && !Number.isSafeInteger(o.balance_minor))
      return `${o.id}: compacted op with a balance of the wrong type`;
    if (
      !isStatus(o.status) ||
      !isStrOrNull(o.code) ||
      !isStrOrNull(o.resource_id) ||
      !isStrOrNull(o.key_id) ||
      !isStrOrNull(o.host) ||
      !isStrOrNull(o.resolved_by)
    )
      return `${o.id}: compacted op with a field of the wrong type`;
    const res = o.resolution as Record<string, unknown> | undefined | null;
    if (
      res !== undefined &&
      res !== null &&
      (typeof res !== 'object' ||
        (res.outcome !== 'succeeded' && res.outcome !== 'failed') ||
        !isStr(res.time) ||
        !isStrOrNull(res.note))
    )
      return `${o.id}: compacted op with a resolution of the wrong shape`;
    return undefined;
  }
  if (o.type === 'id')
    return isStr(o.key_bucket) && /^[0-9a-f]{3}$/.test(o.key_bucket)
      ? undefined
      : `${o.id}: index line without its key bucket`;
  return `${o.id}: unknown record type ${JSON.stringify(o.type)?.slice(0, 40)}`;
}

/** A parsed record of the right shape, or what is wrong with it (JSON, shape). */
export function parseRecord(json: string): RawRecord | DamagedLine {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { damaged: true, why: 'not JSON', text: json };
  }
  const problem = shapeProblem(value);
  return problem ? { damaged: true, why: `wrong shape (${problem})`, text: json } : (value as RawRecord);
}

/** Sends that the API treats as one operation: it answers the same key and bytes, under one account, with the same outcome. */
const sameOperation = (e: JournalOp): string => operationIdentity(e);

const apiSuccess = (e: JournalEntry): boolean =>
  e.outcome === 'resolved' &&
  !e.resolution &&
  e.status !== null &&
  e.status >= 200 &&
  e.status < 300 &&
  e.status !== 202;

/** An entry from its records, in the order they were written: the latest record decides (a success of the API stays). */
function fold(op: JournalOp, records: ReadonlyArray<JournalOutcome | JournalResolution>): JournalEntry {
  // Object.assign, not a spread followed by more fields: V8 builds that one many times slower (40 us
  // against 2 us an entry, measured), and a --batch rerun folds a million of them
  const entry: JournalEntry = Object.assign({}, op, {
    outcome: 'unknown' as OutcomeState,
    status: null,
    code: null,
    resource_id: null,
    outcomes: [...records],
  });
  for (const rec of records) {
    entry.outcome = 'resolved';
    if (rec.type === 'resolution') {
      entry.resolution = { outcome: rec.outcome, note: rec.note ?? null, time: rec.time };
      continue;
    }
    // a success the API answered is final: the key replays it for 24 h, so a later send that
    // learned nothing (a replay refused at connect, another process's in_flight) cannot undo it
    if (rec.outcome === 'unknown' && apiSuccess(entry)) continue;
    delete entry.resolution; // an answer of the API after a person's resolution knows better
    entry.outcome = rec.outcome;
    entry.status = rec.status;
    entry.code = rec.code ?? null;
    if (rec.resource_id) entry.resource_id = rec.resource_id;
    if (Number.isSafeInteger(rec.balance_minor)) entry.balance_minor = rec.balance_minor;
    if (typeof rec.product_id === 'string') entry.product_id = rec.product_id;
  }
  return entry;
}

/**
 * Resending with `--idempotency-key SAME` records a new entry; its answer is the outcome of the
 * earlier sends of the same operation too (entries oldest first, so walk back from the newest).
 */
function propagate(all: JournalEntry[]): JournalEntry[] {
  const revealed = new Map<string, JournalEntry>();
  for (let i = all.length - 1; i >= 0; i--) {
    const e = all[i]!;
    const k = sameOperation(e);
    const later = revealed.get(k);
    if (e.outcome === 'unknown' && later) {
      Object.assign(e, {
        outcome: 'resolved',
        status: later.status,
        code: later.code,
        resource_id: later.resource_id,
        resolved_by: later.resolved_by ?? later.id,
      });
      if (later.balance_minor !== undefined) e.balance_minor = later.balance_minor;
      if (later.resolution) e.resolution = later.resolution;
    } else if (
      e.outcome === 'resolved' &&
      !(e.outcomes.at(-1) as JournalOutcome | undefined)?.not_processed &&
      !later
    ) {
      revealed.set(k, e);
    }
  }
  return all;
}

/** The entry a compacted record stands for (no body, no attempts; its outcome as it was folded). */
function fromCompact(c: JournalCompact): JournalEntry {
  const {
    type: _t,
    outcome,
    status,
    code,
    resource_id,
    resolved_by,
    resolution,
    compacted_at,
    not_processed,
    ...identity
  } = c;
  const outcomes: JournalOutcome[] = not_processed
    ? [{ type: 'outcome', id: c.id, time: c.time, status, outcome, code, not_processed }]
    : [];
  const entry: JournalEntry = Object.assign({ type: 'op' as const }, identity, {
    profile: null,
    source: 'compacted',
    query: '',
    body_b64: '',
    outcome,
    status,
    code,
    resource_id,
    outcomes,
    compacted_at,
  });
  if (resolved_by) entry.resolved_by = resolved_by;
  if (resolution) entry.resolution = resolution;
  return entry;
}

/** The compacted record of a resolved entry (what retention keeps of it). */
export function compactOf(e: JournalEntry, now: string): JournalCompact {
  const c: JournalCompact = {
    type: 'compact',
    id: e.id,
    time: e.time,
    mode: e.mode,
    base_url: e.base_url,
    method: e.method,
    path: e.path,
    idempotency_key: e.idempotency_key,
    body_sha256: e.body_sha256,
    outcome: 'resolved',
    status: e.status,
    code: e.code,
    resource_id: e.resource_id,
    compacted_at: e.compacted_at ?? now,
  };
  if (e.key_id !== undefined) c.key_id = e.key_id;
  if (e.resolved_by) c.resolved_by = e.resolved_by;
  if (e.resolution) c.resolution = e.resolution;
  if ((e.outcomes.at(-1) as JournalOutcome | undefined)?.not_processed) c.not_processed = true;
  if (e.balance_minor !== undefined) c.balance_minor = e.balance_minor;
  if (e.product_id !== undefined) c.product_id = e.product_id;
  if (e.host !== undefined) c.host = e.host;
  return c;
}

/** The records of some operations (ops first, in any order of files) as entries, oldest first. A compacted record stands for its op and every record after it. */
export function entriesOf(records: readonly RawRecord[]): JournalEntry[] {
  const one = oneOperation(records);
  if (one) return [fold(one, records.slice(1) as unknown as Array<JournalOutcome | JournalResolution>)];
  const ops = new Map<string, { op: JournalOp; records: Array<JournalOutcome | JournalResolution> }>();
  const compacted = new Map<string, JournalEntry>();
  for (const r of records) {
    if (r.type === 'op') {
      if (!ops.has(r.id)) ops.set(r.id, { op: r as unknown as JournalOp, records: [] });
    } else if (r.type === 'outcome' || r.type === 'resolution') {
      ops.get(r.id)?.records.push(r as unknown as JournalOutcome | JournalResolution);
    } else if (r.type === 'compact' && !compacted.has(r.id)) {
      compacted.set(r.id, fromCompact(r as unknown as JournalCompact));
    }
  }
  const all = [...ops.values()].filter((o) => !compacted.has(o.op.id)).map((o) => fold(o.op, o.records));
  all.push(...compacted.values());
  all.sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  return propagate(all);
}

/**
 * The op of records that are one operation and what was learned after it (what nearly every key
 * holds: a --batch rerun folds a million): folded alone, as entriesOf would fold it, without its
 * maps. Undefined for anything else (several operations, a compacted one, a record of another).
 */
function oneOperation(records: readonly RawRecord[]): JournalOp | undefined {
  const op = records[0];
  if (op?.type !== 'op') return undefined;
  for (let i = 1; i < records.length; i++) {
    const r = records[i]!;
    if (r.id !== op.id || (r.type !== 'outcome' && r.type !== 'resolution')) return undefined;
  }
  return op as unknown as JournalOp;
}
