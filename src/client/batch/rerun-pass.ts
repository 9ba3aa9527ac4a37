// A `--batch` rerun's pass over the journal: each named key bucket read once, each key of the
// batch (`PREFIX-<digest>-<n>`, found in the batch's digests; and the keys the version before gave
// its rows, `LEGACY-ROW`) judged by the money rules (src/client/money-rules.ts) as they stand, and
// the verdict put in the row's slot (src/client/batch/slot-file.ts; a legacy key's in a second file). Nothing is kept
// per key, so a pass over a million keys holds one bucket at a time. The same function runs in
// the main thread and, for a large batch, in a worker too, the two taking buckets in turn
// (src/client/batch/rerun-pass-worker.ts).
import { entriesOf, type JournalEntry } from '../journal.js';
import { recordsAt, wantedSpans } from '../journal-store/key-spans.js';
import { JournalStore } from '../journal-store/store.js';
import { inAccount, identityText, type Account } from '../identity.js';
import { sendVerdict } from '../money-rules.js';
import { encodeSlot, SLOT_BYTES, slotRow, type SlotValue } from './rerun-slots.js';
import { SlotFile, type SlotFileShare } from './slot-file.js';
import { DigestLookup, type DigestShare } from './digests.js';
import { rowOfRowKey } from './row-keys.js';
import { entryRequest, requestSha } from './request-identity.js';

/** The account the rows are sent for (the batch's credentials): part of an operation's identity. */
export type RerunTarget = Account;

/** The pass (plain data: it crosses to a worker as it is). */
export interface PassJob {
  /** the journal's folder, already prepared (taken over, checked) by the main thread */
  dir: string;
  buckets: string[];
  /** the next bucket to read, shared by the threads of the pass (each takes the next one when done with its last: neither waits long for the other) */
  next: SharedArrayBuffer;
  keyPrefix: string;
  /** the version before's key prefix (`LEGACY-ROW`, ROW 1 to total) */
  legacyPrefix: string;
  total: number;
  /** the batch's row digests: a key's row */
  digests: DigestShare;
  /** the slot file of the legacy keys' verdicts */
  legacy: SlotFileShare;
  target: RerunTarget;
  nowMs: number;
}

/** The verdict for a key's sends in the account, for the one request (method, path, body) they were all sent with; `ask` when there were several (the ordinary way refuses the others). */
export function slotValue(sends: readonly JournalEntry[], key: string, target: RerunTarget, nowMs: number): SlotValue {
  let request: JournalEntry | undefined;
  let id: string | undefined;
  for (const e of sends) {
    if (!inAccount(e, target)) continue;
    const eid = identityText([e.method, e.path, e.body_sha256]);
    if (id === undefined) [request, id] = [e, eid];
    else if (eid !== id) return 'ask';
  }
  if (!request) return 'none';
  const { method, path, body_sha256: bodySha256 } = request;
  // a literal, not `{ ...target, ... }`: V8 (Node 20) builds a spread followed by more fields some 50 times slower
  const verdict = sendVerdict(
    sends,
    {
      baseUrl: target.baseUrl,
      mode: target.mode,
      keyId: target.keyId,
      formerKeyIds: target.formerKeyIds,
      idempotencyKey: key,
      method,
      path,
      bodySha256,
      batch: true,
    },
    nowMs,
  );
  return verdict.send ? 'none' : 'report' in verdict ? { report: verdict.report, bodySha256 } : 'ask';
}

/**
 * A legacy key's verdict: as slotValue's, for its request (method, route and body: the hash a
 * slot holds is the request's, src/client/batch/request-identity.ts), since the row it is read
 * for may ask something else; a key with sends the rules would send again is `ask` (the row reads
 * its history and replays that key: never a new key while its outcome is unknown).
 */
export function legacySlotValue(
  sends: readonly JournalEntry[],
  key: string,
  target: RerunTarget,
  nowMs: number,
): SlotValue {
  if (sends.length === 0) return 'none';
  const asRequests = sends.map((e) => ({ ...e, body_sha256: requestSha(entryRequest(e)) }));
  const value = slotValue(asRequests, key, target, nowMs);
  return value === 'none' ? 'ask' : value;
}

/** The row of one of the batch's legacy keys (`PREFIX-row`, 1 to total), else 0. */
export function rowOfKey(keyPrefix: string, total: number): (key: string) => number {
  const dash = keyPrefix.length + 1;
  return (key) => {
    if (
      key.length <= dash ||
      key[dash - 1] !== '-' ||
      !key.startsWith(keyPrefix) ||
      !/^[1-9]\d*$/.test(key.slice(dash))
    )
      return 0;
    const row = Number(key.slice(dash));
    return row <= total ? row : 0;
  };
}

/** The row of a key of the batch: positive for its own key, negative for its legacy key, 0 for another key. */
export function rowOfAnyKey(
  job: Pick<PassJob, 'keyPrefix' | 'legacyPrefix' | 'total' | 'digests'>,
): (key: string) => number {
  const own = rowOfRowKey(job.keyPrefix, new DigestLookup(job.digests));
  const legacy = rowOfKey(job.legacyPrefix, job.total);
  return (key) => {
    const old = legacy(key);
    return old > 0 ? -old : own(key);
  };
}

/** A new pass's shared bucket counter. */
export const bucketCounter = (): SharedArrayBuffer => new SharedArrayBuffer(4);

/**
 * One key bucket's verdicts, encoded in `scratch` (grown as needed, returned with the count), or
 * undefined when the bucket is passed over: a damaged line (its rows go the ordinary way, which
 * says why) or a key or id written with an escape (the ordinary way reads it exactly). A key's
 * records are parsed only for its verdict, so few are alive at once (src/client/journal-store/key-spans.ts).
 */
function bucketVerdicts(
  bytes: Buffer,
  job: PassJob,
  rowOf: (key: string) => number,
  scratch: Buffer,
  legacy: boolean[],
): { scratch: Buffer; count: number } | undefined {
  const spans = wantedSpans(bytes, (key) => rowOf(key) !== 0);
  if (typeof spans === 'string') return undefined;
  let count = 0;
  for (const [key, at] of spans) {
    const records = recordsAt(bytes, at, key);
    if (typeof records === 'string') return undefined;
    const row = rowOf(key);
    const value =
      row > 0
        ? slotValue(entriesOf(records), key, job.target, job.nowMs)
        : legacySlotValue(entriesOf(records), key, job.target, job.nowMs);
    if (value === 'none') continue;
    if ((count + 1) * SLOT_BYTES > scratch.length) scratch = Buffer.concat([scratch, Buffer.alloc(scratch.length)]);
    encodeSlot(scratch, count * SLOT_BYTES, value, Math.abs(row));
    legacy[count] = row < 0;
    count++;
  }
  return { scratch, count };
}

/**
 * This thread's part of the pass over `job.buckets`: it takes buckets from the shared counter
 * until none is left. Every verdict that is not "send it the ordinary way" goes into its row's
 * slot (a legacy key's into `job.legacy`); a bucket's verdicts go in only once the whole bucket
 * was read. The slots gathered are written before this returns.
 */
export function passOver(job: PassJob, slots: SlotFile): void {
  const store = new JournalStore(job.dir);
  const rowOf = rowOfAnyKey(job);
  const legacySlots = SlotFile.attach(job.legacy);
  const next = new Int32Array(job.next);
  let scratch: Buffer = Buffer.alloc(256 * SLOT_BYTES);
  const legacy: boolean[] = [];
  for (let i = Atomics.add(next, 0, 1); i < job.buckets.length; i = Atomics.add(next, 0, 1)) {
    const found = bucketVerdicts(store.keyBucketBytes(job.buckets[i]!), job, rowOf, scratch, legacy);
    if (!found) continue;
    scratch = found.scratch;
    for (let k = 0; k < found.count; k++) {
      const from = k * SLOT_BYTES;
      (legacy[k] ? legacySlots : slots).put(slotRow(scratch, from), (buf, at) =>
        scratch.copy(buf, at, from, from + SLOT_BYTES),
      );
    }
  }
  slots.finish();
  legacySlots.finish();
}
