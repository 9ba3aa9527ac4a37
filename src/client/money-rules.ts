// What became of a money operation, and whether it may be sent (again): the rules in one place,
// pure (the journal's entries and the clock are passed in).
//
// 1. The final error: a later refusal (503, 429) or a send that reached nothing does not undo an
//    earlier attempt that may have gone through, in this command or in an earlier one whose
//    outcome is still unknown: the outcome stays unknown.
// 2. Journal resolution: an entry is resolved only by an answer that tells what became of the
//    operation (a result, a definitive refusal, a 404), or when no attempt can have been
//    processed (a first send refused with 401/403, 429, 503, or never connected). Anything else
//    (a failed replay included) leaves it unknown.
// 3. The API forgets an idempotency key 24 h after it first saw it; then the same key is a NEW
//    charge. The journal is the client's memory past the API's: a key first sent more than 23 h
//    ago (journal time) is never sent again. The journal's outcome is reported instead (or
//    "unknown", with how to find out). A clock that went back more than 5 minutes behind the
//    journal cannot tell the key's age, so such a key is not sent again either.
// 4. `--batch` never resends a row whose entry resolved (succeeded or definitively refused),
//    whatever its age: the journal's outcome is the row's result.
import { CardctlError } from '../errors.js';
import { replayHint } from './errors.js';
import type { JournalEntry, JournalOutcome } from './journal.js';

/** The API's memory of a key is 24 h; the client stops sending a key one hour before that. */
export const RESEND_LIMIT_MS = 23 * 3_600_000;
/** A journal entry dated further in the future than this means the clock went back. */
export const CLOCK_BACK_TOLERANCE_MS = 300_000;
/** Refusals the API does not store under the key (PRODUCT.md, settled readings): nothing happened. */
const TEMPORARY_CODES = new Set(['kyc_not_approved']);

export type OperationResult = 'succeeded' | 'failed' | 'not_processed' | 'unknown';

/** What one journal entry says became of its operation. */
export function resultOf(e: JournalEntry): OperationResult {
  if (e.resolution) return e.resolution.outcome;
  if (e.outcome === 'unknown') return 'unknown';
  const last = e.outcomes.at(-1);
  if (!e.resolved_by && last?.type === 'outcome' && last.not_processed) return 'not_processed';
  if (e.code && TEMPORARY_CODES.has(e.code)) return 'not_processed';
  if (e.status !== null && e.status >= 200 && e.status < 300) return 'succeeded';
  return 'failed';
}

// ---------------------------------------------------------------------------------------------
// Rules 1 and 2: after the attempts

/** Rule 1: an error that follows an attempt which may have gone through says the outcome is unknown. */
export function finalError(err: CardctlError | null, f: { money: boolean; ambiguous: boolean; idempotencyKey?: string; journalId?: string }): CardctlError | null {
  if (!err || !f.money || !f.ambiguous || (err.kind !== 'unavailable' && err.kind !== 'rate_limited')) return err;
  return new CardctlError(`${err.message} An earlier attempt may have gone through.`, {
    kind: 'outcome_unknown',
    status: err.status,
    errors: err.errors,
    code: err.code,
    idempotencyKey: f.idempotencyKey,
    hint: replayHint(f.idempotencyKey, f.journalId),
  });
}

/**
 * Rule 3 in flight: the retries stopped because the key would be past 23 h at the next send.
 * Replaying is no longer the way to learn the outcome (a replay is refused from then on): the
 * hint says where to look and how to record it, as the journal's answer past 23 h does.
 */
export function stoppedAtLimit(err: CardctlError, f: { journalId?: string; cardId: string | null }): CardctlError {
  if (err.kind !== 'outcome_unknown') return err;
  const how = f.cardId ? `\`cardctl cards get ${f.cardId}\`` : 'the portal';
  const record = f.journalId ? `, then record it: \`cardctl ops resolve ${f.journalId} --outcome succeeded|failed\`` : '';
  return new CardctlError(
    `${err.message} Retries stopped: the key was first sent 23 h ago, and the API forgets a key after 24 h (sent again, it could be a new charge).`,
    { kind: err.kind, status: err.status, errors: err.errors, code: err.code, idempotencyKey: err.idempotencyKey, data: err.data, hint: `Find out with ${how}${record}. Do not send it with a new key unless you know it failed.` },
  );
}

/** Rule 2: the outcome record of one send (first send or replay). */
export function journalOutcome(f: { err: CardctlError | null; replay: boolean; ambiguous: boolean; status: number | null; resourceId: string | null; balanceMinor?: number | null }): Omit<JournalOutcome, 'type' | 'time' | 'id'> {
  const { err } = f;
  const reveals = !err || err.kind === 'business' || err.kind === 'usage' || err.kind === 'not_found';
  const notProcessed = !reveals && !f.replay && !f.ambiguous && (err.kind === 'auth' || err.kind === 'unavailable' || err.kind === 'rate_limited');
  return {
    status: f.status,
    outcome: reveals || notProcessed ? 'resolved' : 'unknown',
    code: err?.code ?? null,
    resource_id: f.resourceId,
    ...(f.balanceMinor !== undefined && f.balanceMinor !== null && !err ? { balance_minor: f.balanceMinor } : {}),
    ...(notProcessed ? { not_processed: true } : {}),
    ...(f.replay ? { replay: true } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Rules 3 and 4: before sending

/** What is about to be sent, as the journal identifies it. */
export interface SendTarget {
  idempotencyKey: string;
  baseUrl: string;
  mode: string;
  keyId: string;
  bodySha256: string;
  /** a batch row (rule 4) */
  batch?: boolean;
}

/** The journal's answer instead of a request: shown to people and in `--json`, marked as such. */
export interface JournalReport {
  from_journal: true;
  /** `reused`: the key was first sent (over 23 h ago) with another body or another API key */
  outcome: 'succeeded' | 'failed' | 'unknown' | 'reused';
  /** the card the operation concerns, when the journal knows it */
  id: string | null;
  /** the card's balance in the answer that resolved it (a success; older entries do not hold it) */
  balance_minor?: number;
  status: number | null;
  code: string | null;
  idempotency_key: string;
  journal_id: string;
  first_sent_at: string;
  /** `key_forgotten`: first sent over 23 h ago (rule 3); `resolved`: a batch row already resolved (rule 4) */
  why: 'key_forgotten' | 'resolved';
  /** `ops resolve`: a person recorded the outcome (with this note); `api`: an answer did */
  recorded_by: 'api' | 'ops resolve';
  note: string | null;
}

/**
 * `earlierUnknown`: an earlier send of the same operation (same API, key and body) has no known
 * outcome. A failure of this send that reaches nothing (unreachable, 503, 429) tells nothing
 * about the operation then: its outcome stays unknown (rule 1), never "not processed".
 */
export type SendVerdict = { send: true; firstSentMs?: number; earlierUnknown?: boolean } | { send: false; report: JournalReport };

/**
 * One spelling of a base URL for an operation's identity (the journal's rules, the key lock):
 * scheme and host in lower case, no default port, no trailing slash
 * (`HTTPS://API.Example.com:443/api/v1/` is `https://api.example.com/api/v1`).
 */
export function normalBase(url: string): string {
  let normal = normalBases.get(url);
  if (normal === undefined) {
    try {
      const u = new URL(url);
      normal = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
    } catch {
      normal = url.replace(/\/+$/, '');
    }
    if (normalBases.size >= 64) normalBases.clear();
    normalBases.set(url, normal);
  }
  return normal;
}

/** A journal names a handful of base URLs, a million times (a URL parse costs microseconds). */
const normalBases = new Map<string, string>();

/** Rule 3's test: may a key first sent at `firstSentMs` still be sent at `atMs`? */
export function keyStillRemembered(firstSentMs: number, atMs: number): boolean {
  return atMs - firstSentMs <= RESEND_LIMIT_MS && firstSentMs - atMs <= CLOCK_BACK_TOLERANCE_MS;
}

/** The card in a money operation's path (recharge, terminate), or null (issue). */
export const cardIdInPath = (path: string): string | null => /\/cards\/([0-9A-HJKMNP-TV-Z]{26})(?:\/|$)/i.exec(path)?.[1] ?? null;

/** The card an entry concerns: the one its answer named (a pending card too), else the one in its path. */
export function cardIdOf(e: JournalEntry): string | null {
  return e.resource_id ?? cardIdInPath(e.path);
}

function report(e: JournalEntry, outcome: JournalReport['outcome'], why: JournalReport['why'], firstSentMs: number): JournalReport {
  // built as two literals, not with a conditional spread: V8 builds that many times slower, and a
  // --batch rerun reports a million rows
  const id = cardIdOf(e);
  const status = outcome === 'reused' ? null : e.status;
  const code = outcome === 'reused' ? null : e.code;
  const first_sent_at = new Date(firstSentMs).toISOString();
  const recorded_by = e.resolution ? 'ops resolve' : 'api';
  const note = e.resolution?.note ?? null;
  const { idempotency_key, id: journal_id, balance_minor } = e;
  return outcome === 'succeeded' && typeof balance_minor === 'number'
    ? { from_journal: true, outcome, id, balance_minor, status, code, idempotency_key, journal_id, first_sent_at, why, recorded_by, note }
    : { from_journal: true, outcome, id, status, code, idempotency_key, journal_id, first_sent_at, why, recorded_by, note };
}

/** The operation's result over every send of it: a success anywhere wins, then a refusal, else unknown (the newest entry of each). */
function operationResult(sends: JournalEntry[]): { result: 'succeeded' | 'failed' | 'unknown'; entry: JournalEntry } {
  const newest = (r: OperationResult) => sends.filter((e) => resultOf(e) === r).at(-1);
  const ok = newest('succeeded');
  if (ok) return { result: 'succeeded', entry: ok };
  const failed = newest('failed');
  if (failed) return { result: 'failed', entry: failed };
  return { result: 'unknown', entry: sends.find((e) => e.resource_id) ?? sends.at(-1)! };
}

/**
 * Rules 3 and 4 over every journaled send of the key (`history`, oldest first). The key's age
 * counts from its first send to this API (base URL and mode) that may have reached it, under
 * any API key: the journal cannot tell whether another key id is the same account (a rotated
 * key is), and a refusal costs a new key where a resend may cost a second charge.
 */
export function sendVerdict(history: readonly JournalEntry[], t: SendTarget, nowMs: number): SendVerdict {
  const sent = history.filter((e) => normalBase(e.base_url) === normalBase(t.baseUrl) && e.mode === t.mode && resultOf(e) !== 'not_processed');
  if (sent.length === 0) return { send: true };
  const firstSentMs = Math.min(...sent.map((e) => Date.parse(e.time)).filter((ms) => !Number.isNaN(ms)));
  const mine = sent.filter((e) => (e.key_id === undefined || e.key_id === t.keyId) && e.body_sha256 === t.bodySha256);
  if (!keyStillRemembered(firstSentMs, nowMs)) {
    if (mine.length === 0) return { send: false, report: report(sent[0]!, 'reused', 'key_forgotten', firstSentMs) };
    const { result, entry } = operationResult(mine);
    return { send: false, report: report(entry, result, 'key_forgotten', firstSentMs) };
  }
  if (t.batch && mine.length > 0) {
    const { result, entry } = operationResult(mine);
    if (result !== 'unknown') return { send: false, report: report(entry, result, 'resolved', firstSentMs) };
  }
  const sameOperation = sent.filter((e) => e.body_sha256 === t.bodySha256);
  const earlierUnknown = sameOperation.length > 0 && operationResult(sameOperation).result === 'unknown';
  return { send: true, firstSentMs, earlierUnknown };
}
