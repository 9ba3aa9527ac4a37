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
// 5. One idempotency key is one money operation per account (src/client/identity.ts): the same
//    key with another request (method, path or body) is refused before it is sent, naming what
//    differs, as the API's `payload_mismatch` would, and also past the API's 24 hours.
import { CardctlError } from '../errors.js';
import { replayHint } from './errors.js';
import { inAccount, type Account } from './identity.js';
import type { JournalEntry, JournalOutcome, JournalReport } from './journal-types.js';

export type { JournalReport } from './journal-types.js';

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
export function finalError(
  err: CardctlError | null,
  f: { money: boolean; ambiguous: boolean; idempotencyKey?: string; journalId?: string },
): CardctlError | null {
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
  const record = f.journalId
    ? `, then record it: \`cardctl ops resolve ${f.journalId} --outcome succeeded|failed\``
    : '';
  return new CardctlError(
    `${err.message} Retries stopped: the key was first sent 23 h ago, and the API forgets a key after 24 h (sent again, it could be a new charge).`,
    {
      kind: err.kind,
      status: err.status,
      errors: err.errors,
      code: err.code,
      idempotencyKey: err.idempotencyKey,
      data: err.data,
      hint: `Find out with ${how}${record}. Do not send it with a new key unless you know it failed.`,
    },
  );
}

/** Rule 2: the outcome record of one send (first send or replay). */
export function journalOutcome(f: {
  err: CardctlError | null;
  replay: boolean;
  ambiguous: boolean;
  status: number | null;
  resourceId: string | null;
  balanceMinor?: number | null;
  /** the product an issued card got */
  productId?: string | null;
}): Omit<JournalOutcome, 'type' | 'time' | 'id'> {
  const { err } = f;
  const reveals = !err || err.kind === 'business' || err.kind === 'usage' || err.kind === 'not_found';
  const notProcessed =
    !reveals &&
    !f.replay &&
    !f.ambiguous &&
    (err.kind === 'auth' || err.kind === 'unavailable' || err.kind === 'rate_limited');
  return {
    status: f.status,
    outcome: reveals || notProcessed ? 'resolved' : 'unknown',
    code: err?.code ?? null,
    resource_id: f.resourceId,
    ...(f.balanceMinor !== undefined && f.balanceMinor !== null && !err ? { balance_minor: f.balanceMinor } : {}),
    ...(typeof f.productId === 'string' && !err ? { product_id: f.productId } : {}),
    ...(notProcessed ? { not_processed: true } : {}),
    ...(f.replay ? { replay: true } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Rules 3 and 4: before sending

/** What is about to be sent, as the journal identifies it: the key within the account, and the request. */
export interface SendTarget extends Account {
  idempotencyKey: string;
  method: string;
  /** the path sent (with the base URL's prefix, without query) */
  path: string;
  bodySha256: string;
  /** the card or customer the operation names (merchantTarget): its earlier sends under any key id are the same merchant's */
  target?: string;
  /** a batch row (rule 4) */
  batch?: boolean;
}

/**
 * `earlierUnknown`: an earlier send of the same operation (same account, key, request) has no known
 * outcome. A failure of this send that reaches nothing (unreachable, 503, 429) tells nothing
 * about the operation then: its outcome stays unknown (rule 1), never "not processed".
 * `earlier`: the first send of the same operation in the account (this send is then a replay).
 * `conflict`: the key was sent in the account with another request (method, path or body):
 * refused before sending, as the API's `payload_mismatch` would be (rule 5).
 */
export type SendVerdict =
  | { send: true; firstSentMs?: number; earlierUnknown?: boolean; earlier?: JournalEntry }
  | { send: false; report: JournalReport }
  | { send: false; conflict: JournalEntry };

/** Rule 3's test: may a key first sent at `firstSentMs` still be sent at `atMs`? */
export function keyStillRemembered(firstSentMs: number, atMs: number): boolean {
  return atMs - firstSentMs <= RESEND_LIMIT_MS && firstSentMs - atMs <= CLOCK_BACK_TOLERANCE_MS;
}

/** The card in a money operation's path (recharge, terminate), or null (issue). */
export const cardIdInPath = (path: string): string | null =>
  /\/cards\/([0-9A-HJKMNP-TV-Z]{26})(?:\/|$)/i.exec(path)?.[1] ?? null;

/** The card an entry concerns: the one its answer named (a pending card too), else the one in its path. */
export function cardIdOf(e: JournalEntry): string | null {
  return e.resource_id ?? cardIdInPath(e.path);
}

function report(
  e: JournalEntry,
  outcome: JournalReport['outcome'],
  why: JournalReport['why'],
  firstSentMs: number,
): JournalReport {
  // built as two literals, not with a conditional spread: V8 builds that many times slower, and a
  // --batch rerun reports a million rows
  const id = cardIdOf(e);
  const { status, code } = e;
  const first_sent_at = new Date(firstSentMs).toISOString();
  const recorded_by = e.resolution ? 'ops resolve' : 'api';
  const note = e.resolution?.note ?? null;
  const { idempotency_key, id: journal_id, balance_minor } = e;
  const sent_from = e.host ?? null;
  return outcome === 'succeeded' && typeof balance_minor === 'number'
    ? {
        from_journal: true,
        outcome,
        id,
        balance_minor,
        status,
        code,
        idempotency_key,
        journal_id,
        first_sent_at,
        sent_from,
        why,
        recorded_by,
        note,
      }
    : {
        from_journal: true,
        outcome,
        id,
        status,
        code,
        idempotency_key,
        journal_id,
        first_sent_at,
        sent_from,
        why,
        recorded_by,
        note,
      };
}

/** The operation's result over every send of it: a success anywhere wins, then a refusal, else unknown (the newest entry of each). */
function operationResult(sends: JournalEntry[]): { result: 'succeeded' | 'failed' | 'unknown'; entry: JournalEntry } {
  let ok: JournalEntry | undefined;
  let failed: JournalEntry | undefined;
  for (const e of sends) {
    const r = resultOf(e);
    if (r === 'succeeded') ok = e;
    else if (r === 'failed') failed = e;
  }
  if (ok) return { result: 'succeeded', entry: ok };
  if (failed) return { result: 'failed', entry: failed };
  return { result: 'unknown', entry: sends.find((e) => e.resource_id) ?? sends.at(-1)! };
}

/**
 * The card (recharge, terminate: in the path) or the customer (issue: `customer_id` in the body)
 * a money operation names. A card or a customer belongs to exactly one merchant, so the sends of
 * a key that named the same one are that merchant's, whatever API key sent them (another key of
 * the merchant, a key given through the environment); a fresh mock has other ids.
 */
export function merchantTarget(method: string, path: string, body: () => Buffer | undefined): string | undefined {
  const card = cardIdInPath(path);
  if (card) return `card ${card.toUpperCase()}`;
  if (method !== 'POST' || !/\/cards\/?$/.test(path)) return undefined;
  const json = jsonObject(body() ?? Buffer.alloc(0));
  return typeof json?.customer_id === 'string' ? `customer ${json.customer_id.toUpperCase()}` : undefined;
}

/** Whether an earlier send belongs to the account, or named the same card or customer (the same merchant). */
const sameMerchant = (e: JournalEntry, t: SendTarget): boolean =>
  inAccount(e, t) ||
  (t.target !== undefined &&
    merchantTarget(e.method, e.path, () => (e.body_b64 ? Buffer.from(e.body_b64, 'base64') : undefined)) === t.target);

/** The same request: method, path and body bytes. */
const sameRequest = (e: JournalEntry, t: SendTarget): boolean =>
  e.body_sha256 === t.bodySha256 && e.method === t.method && e.path === t.path;

/**
 * Rules 3, 4 and 5 over every journaled send of the key (`history`, oldest first). Only the
 * account's sends count (src/client/identity.ts): the API key id and the ones the profile held
 * before, whatever base URL spelling or profile sent them, and any send that named the same card
 * or customer (the same merchant, merchantTarget); another key id elsewhere is another account.
 * The key's age counts from its first send in the account that may have reached the API.
 */
export function sendVerdict(history: readonly JournalEntry[], t: SendTarget, nowMs: number): SendVerdict {
  const sent = history.filter((e) => sameMerchant(e, t) && resultOf(e) !== 'not_processed');
  if (sent.length === 0) return { send: true };
  // the key's age from its first send (one whose time cannot be read does not count)
  let firstSentMs = Number.POSITIVE_INFINITY;
  for (const e of sent) {
    // rule 5: one key is one operation; another request under it is refused before it leaves
    if (!sameRequest(e, t)) return { send: false, conflict: e };
    const ms = Date.parse(e.time);
    if (ms < firstSentMs) firstSentMs = ms;
  }
  const mine = sent; // every send in the account is this very request (rule 5 above)
  const { result, entry } = operationResult(mine);
  if (!keyStillRemembered(firstSentMs, nowMs))
    return { send: false, report: report(entry, result, 'key_forgotten', firstSentMs) };
  if (t.batch && result !== 'unknown') return { send: false, report: report(entry, result, 'resolved', firstSentMs) };
  return { send: true, firstSentMs, earlierUnknown: result === 'unknown', earlier: mine[0] };
}

/** What differs between an earlier request under the key and this one, for people: `card`, `amount`, ... */
export function requestDifferences(
  e: Pick<JournalEntry, 'method' | 'path' | 'body_b64' | 'compacted_at'>,
  t: { method: string; path: string; body: Buffer },
): string[] {
  const out: string[] = [];
  if (e.method !== t.method) out.push(`method (${e.method} then, ${t.method} now)`);
  if (e.path !== t.path) {
    const [a, b] = [cardIdInPath(e.path), cardIdInPath(t.path)];
    out.push(a && b && a !== b ? `card (${a} then, ${b} now)` : `path (${e.path} then, ${t.path} now)`);
  }
  if (e.compacted_at)
    return out.length ? out : ['body (the journal keeps only its hash: the operation is older than the retention)'];
  const before = jsonObject(Buffer.from(e.body_b64, 'base64'));
  const now = jsonObject(t.body);
  if (!before || !now) return out.length || before === now ? out : [...out, 'body'];
  for (const k of new Set([...Object.keys(before), ...Object.keys(now)])) {
    const [x, y] = [JSON.stringify(before[k]), JSON.stringify(now[k])];
    if (x !== y) out.push(`${k} (${short(x)} then, ${short(y)} now)`);
  }
  return out.length ? out : ['body (the same fields in other bytes)'];
}

const short = (json: string | undefined): string =>
  json === undefined ? 'absent' : json.length > 40 ? `${json.slice(0, 37)}...` : json;

function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  if (body.length === 0) return {};
  try {
    const v = JSON.parse(body.toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v)
      ? Object.assign(Object.create(null) as Record<string, unknown>, v)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Rule 5's refusal: the key was sent in the account with another request. */
export function keyConflictError(e: JournalEntry, t: { method: string; path: string; body: Buffer }): CardctlError {
  const how = e.profile ? `with profile "${e.profile}"` : 'with the CARDCTL_* environment';
  return new CardctlError(
    `Idempotency-Key ${e.idempotency_key} was first sent ${e.time} (${e.id}, ${how}, ${e.base_url}) with another request; it differs in ${requestDifferences(e, t).join(', ')}. One key is one money operation: nothing was sent.`,
    {
      kind: 'business',
      code: 'payload_mismatch',
      idempotencyKey: e.idempotency_key,
      hint: `To repeat the earlier operation, send exactly what it sent (\`cardctl ops show ${e.id}\`); for a new operation, use a new idempotency key.`,
    },
  );
}
