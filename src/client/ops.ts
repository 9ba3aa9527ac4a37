// `cardctl ops`: the journal of money operations, and replaying one with its exact bytes and key.
import { CardctlError, usageError } from '../errors.js';
import type { ApiResponse, PreparedRequest } from './client.js';
import { Journal, type JournalEntry } from './journal.js';
import { retentionDays, DAY_MS } from './retention.js';
import { inAccount, normalBase } from './identity.js';
import { withSession, type SessionOptions } from './session.js';

/** Where the journal is: the environment and `--journal` (src/client/journal-db/target.ts). */
export interface JournalAt {
  env?: NodeJS.ProcessEnv;
  /** `--journal` */
  journal?: string;
  tell?: (line: string) => void;
}

const openAt = (at: JournalAt): Journal => Journal.open(at.env, at.tell, { flag: at.journal });

export function listOps(opts: JournalAt & { unresolved?: boolean } = {}): Promise<JournalEntry[]> {
  const journal = openAt(opts);
  return opts.unresolved ? journal.unresolved() : journal.entries();
}

/** A warning while lines of a taken-over old journal could not be read, with the command that shows them. */
export async function damageNotes(at: JournalAt = {}): Promise<string[]> {
  const unreadable = await openAt({ ...at, tell: undefined }).unreadable();
  return unreadable
    ? [
        `Warning: ${unreadable} line${unreadable === 1 ? '' : 's'} of the older journal could not be read when it was taken over; money commands refuse until you have looked: \`cardctl ops verify\`.`,
      ]
    : [];
}

/** `tell`: where the journal says what it waits for (the command's stderr) */
export async function showOp(id: string, at: JournalAt & { dryRun?: boolean } = {}): Promise<JournalEntry> {
  // `--dry-run` reads the journal only if it exists: it never creates one
  const chosen = openAt(at);
  const journal = at.dryRun ? await Journal.openIfExists(at.env, at.tell, { flag: at.journal }) : chosen;
  const found = await journal?.find(id);
  if (!found) {
    throw new CardctlError(`no operation "${id}" in the journal ${chosen.file}.`, {
      kind: 'not_found',
      hint: 'List them with `cardctl ops list`, or give its idempotency key.',
    });
  }
  if ('ambiguous' in found) {
    const n = found.ambiguous.length;
    const shown = found.ambiguous.slice(0, 10).join(', ') + (n > 10 ? `, and ${n - 10} more` : '');
    throw usageError(
      `the prefix "${id}" is ambiguous: it matches ${n} operations (${shown}).`,
      'Give more characters of the id (`cardctl ops list` shows them whole), or the idempotency key.',
    );
  }
  return found;
}

/** An operation the API's answer resolved is not overridden by hand. */
function refuseIfAnswered(entry: JournalEntry): void {
  if (entry.outcome !== 'resolved' || entry.resolution) return;
  throw usageError(
    `operation ${entry.id} is already resolved by the API's answer (${entry.status ?? 'no status'}${entry.code ? ` ${entry.code}` : ''}${entry.resolved_by ? `, through ${entry.resolved_by}` : ''}).`,
    `\`cardctl ops show ${entry.id}\` shows it; only an operation whose outcome is unknown is resolved by hand.`,
  );
}

/** Longest `--note` (it is kept in the journal and shown by `ops show`). */
export const MAX_NOTE_LENGTH = 1000;

/**
 * `ops resolve`: records what a person learned about an operation whose outcome is unknown (from
 * `cards get`, the portal, support). Appended to the journal, never deleting: `ops show` keeps
 * every earlier record. An operation the API's answer resolved is not overridden by hand.
 */
export async function resolveOp(
  id: string,
  opts: JournalAt & { outcome: 'succeeded' | 'failed'; note?: string },
): Promise<JournalEntry> {
  const entry = await showOp(id, opts);
  refuseIfAnswered(entry);
  const note = opts.note?.trim();
  if (note !== undefined && (note.length > MAX_NOTE_LENGTH || /[\u0000-\u001f\u007f]/u.test(note))) {
    throw usageError(
      `the note must be one line of at most ${MAX_NOTE_LENGTH} characters.`,
      'Shorten it, e.g. --note "card 01J... seen active in the portal".',
    );
  }
  // not while a send of the key is under way: its answer may be about to resolve the entry
  const journal = openAt(opts);
  const release = await journal.holdKey({
    keyId: entry.key_id ?? `${normalBase(entry.base_url)} ${entry.mode}`,
    idempotencyKey: entry.idempotency_key,
  });
  try {
    refuseIfAnswered(await showOp(entry.id, opts)); // an answer may have come while the lock was awaited
    await journal.recordResolution({ id: entry.id, outcome: opts.outcome, note: note || null });
  } finally {
    await release();
  }
  return showOp(entry.id, opts);
}

/** Whether an entry was sent for the account of these credentials (src/client/identity.ts). */
export function sentWith(
  e: JournalEntry,
  c: { baseUrl: string; mode: string; keyId: string; formerKeyIds?: readonly string[] },
): boolean {
  return inAccount(e, c);
}

/** The entry as people and `--json` see it: the body decoded when it is text. */
export function opView(e: JournalEntry): Record<string, unknown> {
  const { type: _type, outcomes, body_b64, ...rest } = e;
  if (e.compacted_at) {
    // retention kept its identity and outcome; the body's hash still tells a resend of other bytes
    const { profile: _p, source: _s, query: _q, ...kept } = rest;
    return { ...kept, body: null, body_b64: null, attempts_recorded: null };
  }
  return {
    ...rest,
    body: Buffer.from(body_b64, 'base64').toString('utf8'),
    body_b64,
    attempts_recorded: outcomes.length,
  };
}

/** Resends the same bytes with the same key and records the new outcome under the same id. */
export async function replayOp(
  id: string,
  opts: SessionOptions,
): Promise<{ entry: JournalEntry; response: ApiResponse }> {
  const entry = await showOp(id, {
    env: opts.env,
    journal: opts.journal,
    tell: (line) => opts.io.stderr.write(line + '\n'),
    dryRun: opts.dryRun,
  });
  const profile = opts.profile ?? entry.profile ?? undefined;
  return withSession({ ...opts, profile }, async ({ client, credentials }) => {
    const recordedWith = entry.profile ? `profile "${entry.profile}"` : 'the CARDCTL_* environment';
    if (!inAccount(entry, credentials)) {
      // the API scopes idempotency keys to the account: another key may be another merchant, where this would be a new operation
      const sentBy =
        entry.key_id === undefined ? `to ${entry.base_url} (${entry.mode})` : `with API key ${entry.key_id}`;
      const inUse =
        entry.key_id === undefined
          ? `point to ${credentials.baseUrl} (${credentials.mode})`
          : `have key ${credentials.keyId}`;
      throw usageError(
        `operation ${entry.id} was sent ${sentBy} (${recordedWith}); the credentials in use ${inUse}.`,
        `Replay it with the key it was sent with${entry.profile ? ` (--profile ${entry.profile})` : ' (the same CARDCTL_API_KEY)'}.`,
      );
    }
    if (entry.key_id === undefined) {
      opts.io.stderr.write(
        `Warning: ${entry.id} was recorded without its API key id, so cardctl cannot check that key ${credentials.keyId} is the one it was sent with (${recordedWith}).\n`,
      );
    }
    const prepared: PreparedRequest = {
      method: entry.method,
      origin: new URL(entry.base_url).origin,
      path: entry.path,
      query: entry.query,
      body: Buffer.from(entry.body_b64, 'base64'),
      money: true,
      idempotencyKey: entry.idempotency_key,
      ...(entry.compacted_at ? { answerFromJournalOnly: { bodySha256: entry.body_sha256 } } : {}),
    };
    opts.io.stderr.write(
      `${opts.dryRun ? 'Dry run of replaying' : 'Replaying'} ${entry.id} with Idempotency-Key: ${entry.idempotency_key}\n`,
    );
    const response = await client.sendPrepared(prepared, entry.id);
    return { entry, response };
  });
}

export interface CompactionReport {
  file: string;
  retention_days: number;
  cutoff: string;
  compacted: number;
  kept_unknown: number;
}

/** `ops compact`: compacts the resolved operations older than the retention (docs/journal.md, "Retention"). */
export async function compactOps(
  opts: JournalAt & { retentionDays?: number; nowMs?: number } = {},
): Promise<CompactionReport> {
  const journal = openAt(opts);
  const days = opts.retentionDays ?? retentionDays(opts.env) ?? 90;
  const cutoffMs = (opts.nowMs ?? Date.now()) - days * DAY_MS;
  const compacted = await journal.compact(cutoffMs);
  let keptUnknown = 0;
  for await (const _ of journal.newest({ untilMs: cutoffMs, unknownOnly: true })) keptUnknown++;
  return {
    file: journal.file,
    retention_days: days,
    cutoff: new Date(cutoffMs).toISOString(),
    compacted,
    kept_unknown: keptUnknown,
  };
}

export interface CopyReport {
  from: string;
  to: string;
  /** operations read from the journal copied from */
  operations: number;
  /** of those, how many were not in the other journal yet */
  added: number;
}

/** `ops copy --to`: this journal's operations into another (idempotently: src/client/journal.ts copyInto). */
export async function copyOps(opts: JournalAt & { to: string }): Promise<CopyReport> {
  const from = openAt(opts);
  const to = Journal.open(opts.env, opts.tell, { flag: opts.to });
  const { operations, added } = await from.copyInto(to);
  return { from: from.file, to: to.file, operations, added };
}

export interface VerifyReport {
  file: string;
  /** SQLite's quick_check: ['ok'] when sound */
  check: string[];
  ok: boolean;
  operations: number;
  unreadable: Array<{ source: string; why: string; text: string }>;
  discarded: number;
}

/** `ops verify`: SQLite's own check of the database, and the lines of an old journal that could not be read (set aside with `discardUnreadable`). */
export async function verifyOps(opts: JournalAt & { discardUnreadable?: boolean } = {}): Promise<VerifyReport> {
  const journal = openAt(opts);
  const check = await journal.check();
  const unreadable = await journal.unreadableLines();
  const discarded = opts.discardUnreadable && unreadable.length ? await journal.discardUnreadable() : 0;
  return {
    file: journal.file,
    check,
    ok: check.length === 1 && check[0] === 'ok',
    operations: (await journal.stats()).ops,
    unreadable,
    discarded,
  };
}
