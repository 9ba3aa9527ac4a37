// What a `--batch` rerun's pass over the journal found for one row, in a fixed-size record (so a
// million rows sit in a file, not in memory, and a chunk of rows is one read): nothing journaled
// for its key, the journal's answer for it (the money rules' report, src/client/money-rules.ts,
// valid for one body hash), or "ask the journal" (anything the record cannot hold exactly).
// Pure: encoding and decoding only.
import type { JournalReport } from '../money-rules.js';
import { keyStillRemembered } from '../money-rules.js';

export const SLOT_BYTES = 128;

/** `none`: nothing the rules act on (send it the ordinary way); `ask`: read the key's history for this row. */
/** `bodySha256Prefix`: the first hex digits of the SHA-256 of the body the answer is valid for. */
export type Slot =
  | { kind: 'none' }
  | { kind: 'ask' }
  | { kind: 'answer'; report: JournalReport; bodySha256Prefix: string };

/** What the pass decided for a key: its report, valid for rows whose body has this SHA-256 (hex). */
export type SlotValue = 'none' | 'ask' | { report: JournalReport; bodySha256: string };

const KIND = { none: 0, answer: 1, ask: 2 } as const;
const OUTCOMES = ['succeeded', 'failed', 'unknown'] as const;
const WHY = ['resolved', 'key_forgotten'] as const;
const RECORDED_BY = ['api', 'ops resolve'] as const;
const HASH_BYTES = 16;
const NO_STATUS = 0xffff;
const ABSENT = 0xff;
// offsets in a slot
const AT = {
  kind: 0,
  outcome: 1,
  why: 2,
  recordedBy: 3,
  status: 4,
  flags: 6,
  balance: 8,
  firstSent: 16,
  hash: 24,
  id: 40,
  code: 73,
  journalId: 102,
  row: 124,
} as const;
const ID_MAX = 32;
const CODE_MAX = 28;
const JOURNAL_ID_MAX = AT.row - AT.journalId - 1;

/** The row a slot belongs to (written with it: slots are stored in the order they were found). */
export const slotRow = (buf: Buffer, at: number): number => buf.readUInt32LE(at + AT.row);

/** A string the slot holds byte for byte: printable ASCII of at most `max` characters. */
const fits = (s: string | null, max: number): boolean => s === null || (s.length <= max && /^[\x20-\x7e]*$/.test(s));

function putText(buf: Buffer, at: number, s: string | null): void {
  buf[at] = s === null ? ABSENT : s.length;
  if (s !== null) buf.write(s, at + 1, 'latin1');
}

function getText(buf: Buffer, at: number): string | null {
  const len = buf[at]!;
  return len === ABSENT ? null : buf.toString('latin1', at + 1, at + 1 + len);
}

/** Writes row `row`'s value into the slot at `at`. A report it cannot hold exactly becomes `ask`. */
export function encodeSlot(buf: Buffer, at: number, value: SlotValue, row: number): void {
  buf.fill(0, at, at + SLOT_BYTES);
  buf.writeUInt32LE(row, at + AT.row);
  if (value === 'none') return;
  const r = value === 'ask' ? undefined : value.report;
  const firstSent = r ? Date.parse(r.first_sent_at) : NaN;
  const exact =
    r !== undefined &&
    r.note === null &&
    /^[0-9a-f]{64}$/.test((value as { bodySha256: string }).bodySha256) &&
    fits(r.id, ID_MAX) &&
    fits(r.code, CODE_MAX) &&
    fits(r.journal_id, JOURNAL_ID_MAX) &&
    (r.status === null || (Number.isInteger(r.status) && r.status >= 0 && r.status < NO_STATUS)) &&
    Number.isFinite(firstSent) &&
    new Date(firstSent).toISOString() === r.first_sent_at &&
    (r.balance_minor === undefined || Number.isSafeInteger(r.balance_minor));
  if (!exact) {
    buf[at + AT.kind] = KIND.ask;
    return;
  }
  buf[at + AT.kind] = KIND.answer;
  buf[at + AT.outcome] = OUTCOMES.indexOf(r.outcome);
  buf[at + AT.why] = WHY.indexOf(r.why);
  buf[at + AT.recordedBy] = RECORDED_BY.indexOf(r.recorded_by);
  buf.writeUInt16LE(r.status ?? NO_STATUS, at + AT.status);
  buf[at + AT.flags] = r.balance_minor === undefined ? 0 : 1;
  buf.writeDoubleLE(r.balance_minor ?? 0, at + AT.balance);
  buf.writeDoubleLE(firstSent, at + AT.firstSent);
  buf.write((value as { bodySha256: string }).bodySha256.slice(0, HASH_BYTES * 2), at + AT.hash, 'hex');
  putText(buf, at + AT.id, r.id);
  putText(buf, at + AT.code, r.code);
  putText(buf, at + AT.journalId, r.journal_id);
}

/**
 * The slot at `at`, for the row whose key is `idempotencyKey`, read at `nowMs`: a row resolved
 * while its key was remembered reads as `key_forgotten` once 23 h have passed since its first
 * send (what the money rules would say at that moment).
 */
export function decodeSlot(buf: Buffer, at: number, idempotencyKey: string, nowMs: number): Slot {
  const kind = buf[at + AT.kind];
  if (kind === KIND.none) return { kind: 'none' };
  if (kind !== KIND.answer) return { kind: 'ask' };
  const firstSentMs = buf.readDoubleLE(at + AT.firstSent);
  const outcome = OUTCOMES[buf[at + AT.outcome]!]!;
  const status = buf.readUInt16LE(at + AT.status);
  const stored = WHY[buf[at + AT.why]!]!;
  const why = stored === 'resolved' && !keyStillRemembered(firstSentMs, nowMs) ? 'key_forgotten' : stored;
  const id = getText(buf, at + AT.id);
  const code = getText(buf, at + AT.code);
  const journal_id = getText(buf, at + AT.journalId) ?? '';
  const first_sent_at = new Date(firstSentMs).toISOString();
  const recorded_by = RECORDED_BY[buf[at + AT.recordedBy]!]!;
  const st = status === NO_STATUS ? null : status;
  // the key order of money-rules' report(), as two literals (a conditional spread is many times slower)
  const report: JournalReport =
    buf[at + AT.flags] === 1
      ? {
          from_journal: true,
          outcome,
          id,
          balance_minor: buf.readDoubleLE(at + AT.balance),
          status: st,
          code,
          idempotency_key: idempotencyKey,
          journal_id,
          first_sent_at,
          why,
          recorded_by,
          note: null,
        }
      : {
          from_journal: true,
          outcome,
          id,
          status: st,
          code,
          idempotency_key: idempotencyKey,
          journal_id,
          first_sent_at,
          why,
          recorded_by,
          note: null,
        };
  return { kind: 'answer', report, bodySha256Prefix: buf.toString('hex', at + AT.hash, at + AT.hash + HASH_BYTES) };
}
