// A batch held back before its first row when its rows repeat successes the journal recorded for
// the same account in the last 24 hours under other keys (PRODUCT.md, "Bulk"; docs/batch.md): the
// same operation, target and amount (src/client/batch/request-identity.ts). Rows answered from
// the journal under their own keys (or the version before's) are not repeats: they are not sent.
// What these catch: a file first run by the version before and edited since (its keys were the
// whole file's hash), the same rows under another --idempotency-prefix, a file written anew.
import type { Credentials } from '../../profiles/types.js';
import type { Journal, JournalEntry } from '../journal.js';
import { hash32, RowDigests } from './digests.js';
import { checkedRows } from './planner.js';
import { rawField, type LineFilter } from '../journal-store/lines.js';
import { entryRequest, requestText, rowRequests } from './request-identity.js';
import { rowOfAnyKey } from './rerun-pass.js';
import type { JournalAnswers } from './journal-check.js';
import { JOURNAL_CHUNK } from './runner.js';
import { MAX_PROBLEMS_KEPT, type BatchPlan, type BatchRow } from './types.js';

/** How far back a success counts as a repeat: the API's own memory of a key. */
export const REPEAT_WINDOW_MS = 24 * 3_600_000;

export interface Repeat {
  row: number;
  line: number;
  /** the earlier success */
  entry: Pick<JournalEntry, 'id' | 'time' | 'idempotency_key' | 'method' | 'path' | 'body_b64'>;
}

/** The first MAX_PROBLEMS_KEPT repeats, in the order found, and how many rows repeat in all. */
export interface Repeats {
  shown: Repeat[];
  rows: number;
}

/** The rows that would be sent under keys the journal does not hold (candidates), keyed by their request; and the rows that keep the version before's key. */
async function rowsToSend(plan: BatchPlan, known: JournalAnswers['answers']) {
  const requestOf = await rowRequests(plan.operation);
  const candidates = new RowDigests('repeat', plan.total);
  const bodies = new BodyPrefixes();
  const lines = new Map<number, number>();
  const legacyUsed = new Uint8Array(plan.total + 1);
  let count = 0;
  let chunk: BatchRow[] = [];
  const flush = async (): Promise<void> => {
    const answers = await known(chunk);
    for (const [i, row] of chunk.entries()) {
      if (row.idempotencyKey === row.legacyKey) legacyUsed[row.row] = 1;
      else if (answers[i] === undefined) {
        const request = requestOf(row);
        candidates.add(request, row.row);
        bodies.add(request.slice(request.lastIndexOf('\n') + 1));
        if (lines.size < 1 << 16) lines.set(row.row, row.line);
        count++;
      }
    }
    chunk = [];
  };
  for (const row of checkedRows(plan)) {
    chunk.push(row);
    if (chunk.length >= JOURNAL_CHUNK) await flush();
  }
  await flush();
  return { candidates, bodies, legacyUsed, count, lines };
}

/**
 * Whether any row of the batch would be sent: one the journal does not answer (a rerun the
 * journal answers whole sends nothing). Stops at the first chunk that holds one.
 */
export async function anyRowToSend(plan: BatchPlan, known: JournalAnswers['answers']): Promise<boolean> {
  let chunk: BatchRow[] = [];
  const sends = async (): Promise<boolean> => {
    const answers = await known(chunk);
    chunk = [];
    for (let i = 0; i < answers.length; i++) if (answers[i] === undefined) return true;
    return false;
  };
  for (const row of checkedRows(plan)) {
    chunk.push(row);
    if (chunk.length >= JOURNAL_CHUNK && (await sends())) return true;
  }
  return chunk.length > 0 && sends();
}

const succeeded = (e: JournalEntry): boolean =>
  e.outcome === 'resolved' &&
  (e.resolution ? e.resolution.outcome === 'succeeded' : e.status !== null && e.status >= 200 && e.status < 300);

/** The hour segments that can hold an operation sent since `sinceMs` (segments/<day>/<HH>.ndjson). */
function recentSegments(journal: Journal, sinceMs: number): string[] {
  const since = new Date(sinceMs - 3_600_000).toISOString();
  return journal.segments().filter((file) => {
    const m = /(\d{4}-\d\d-\d\d)[\\/](\d\d)\.ndjson$/.exec(file);
    return m !== null && `${m[1]}T${m[2]}` >= since.slice(0, 13);
  });
}

const SHA_TAG = '"body_sha256":"';

/**
 * The first 24 bits of the candidates' body SHA-256s, as a 2 MiB bitmap: most journal lines are
 * left out by one look (a million candidates set about 6% of it), without a set of strings.
 */
export class BodyPrefixes {
  private readonly bits = new Uint8Array(1 << 21);
  add(sha: string): void {
    const n = Number.parseInt(sha.slice(0, 6), 16);
    if (n >= 0) this.bits[n >> 3]! |= 1 << (n & 7);
  }
  /** whether the hex at `at` of `text` may begin a candidate's SHA-256 (true also when it is not hex: looked at further) */
  has(text: string, at: number): boolean {
    const n = Number.parseInt(text.slice(at, at + 6), 16);
    return !(n >= 0) || /[^0-9a-f]/.test(text.slice(at, at + 6)) || (this.bits[n >> 3]! & (1 << (n & 7))) !== 0;
  }
}

/**
 * Which lines of a segment can hold a repeat, read from their text before anything is parsed (a
 * day of a busy key is a million lines): a send whose request text (method, route, body's SHA-256:
 * entryRequest, from the line's own fields) is no candidate's is left out, with its outcome and
 * resolution lines. A line whose fields cannot be read plainly (escaped, repeated) is kept, and
 * every kept line is checked and parsed as before, so the repeats found are the same.
 */
export function mayRepeat(candidates: RowDigests, bodies: BodyPrefixes): LineFilter {
  const kept = new Set<string>(); // the sends kept in this segment (few): their outcomes and resolutions are kept too
  // the sends left out, by a 32-bit hash of their id (a number: no string of the line is held); a
  // record whose id's hash is here and that is no kept send's is left out too (should another id
  // share the hash, that record's send is read from its key's history instead: segmentEntries)
  const left = new Set<number>();
  return (json) => {
    const id = idText(json);
    // first the body's SHA-256 against the candidates' (most lines stop here), then the whole request text
    const at = json.indexOf(SHA_TAG); // op and compacted op records hold one; no other record does
    if (at < 0) return id === undefined || kept.has(id) || !left.has(hash32(id, 0x9e3779b9));
    if (id !== undefined && kept.has(id)) return true;
    const sha =
      bodies.has(json, at + SHA_TAG.length) || json.includes(SHA_TAG, at + 1) ? rawField(json, 'body_sha256') : null;
    const method = sha ? rawField(json, 'method') : undefined;
    const path = sha ? rawField(json, 'path') : undefined;
    const no =
      sha === null ||
      (method !== undefined &&
        path !== undefined &&
        sha !== undefined &&
        candidates.firstRowOf(requestText(method, path, sha)) === 0);
    if (id !== undefined) {
      if (no) left.add(hash32(id, 0x9e3779b9));
      else kept.add(id);
    }
    return !no;
  };
}

/** The text of a line's first `"id"` field (a record's own id comes first: no nested object holds one before it). */
function idText(json: string): string | undefined {
  const at = json.indexOf('"id":"');
  if (at < 0) return undefined;
  const end = json.indexOf('"', at + 6);
  return end < 0 ? undefined : json.slice(at + 6, end);
}

/**
 * The batch's rows that repeat a success of the last 24 hours under another key, for the same
 * account (the key id, or one the profile held before). Reads only when a row would be sent
 * under a key the journal does not hold, and then only the last day's segments.
 */
export async function findRepeats(
  plan: BatchPlan,
  journal: Journal,
  credentials: Pick<Credentials, 'keyId' | 'formerKeyIds'>,
  known: JournalAnswers,
  nowMs: number,
): Promise<Repeats> {
  const found: Repeats = { shown: [], rows: 0 };
  const sinceMs = nowMs - REPEAT_WINDOW_MS;
  if (known.allKnown) return found;
  const segments = recentSegments(journal, sinceMs);
  if (segments.length === 0) return found; // nothing sent in the last day
  const { candidates, bodies, legacyUsed, count, lines } = await rowsToSend(plan, known.answers);
  if (count === 0) return found;
  const account = new Set([credentials.keyId, ...(credentials.formerKeyIds ?? [])]);
  const keyRow = rowOfAnyKey({ ...plan, digests: plan.digests!.share() });
  const own = (key: string): boolean => {
    const r = keyRow(key);
    return r > 0 || (r < 0 && legacyUsed[-r] === 1);
  };
  const flagged = new Uint8Array(plan.total + 1);
  for (const file of segments) {
    for (const e of journal.segmentEntries(file, mayRepeat(candidates, bodies)).entries) {
      if (!succeeded(e) || !account.has(e.key_id ?? '') || Date.parse(e.time) < sinceMs || own(e.idempotency_key))
        continue;
      const row = candidates.firstRowOf(entryRequest(e));
      if (row === 0 || flagged[row] === 1) continue;
      flagged[row] = 1;
      found.rows++;
      if (found.shown.length < MAX_PROBLEMS_KEPT) found.shown.push({ row, line: lines.get(row) ?? 0, entry: e });
    }
  }
  found.shown.sort((a, b) => a.row - b.row);
  return found;
}
