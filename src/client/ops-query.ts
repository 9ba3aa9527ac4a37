// `cardctl ops list`: the journal's operations, newest first, filtered, read a page at a time
// (never the whole journal at once), so `--ndjson --all` streams in constant memory.
import { usageError } from '../errors.js';
import { Journal, type JournalEntry } from './journal.js';
import { cardIdOf } from './money-rules.js';

export const DEFAULT_OPS_LIMIT = 20;

export interface OpsQuery {
  unresolved?: boolean;
  /** undefined: every match */
  limit?: number;
  sinceMs?: number;
  untilMs?: number;
  card?: string;
  key?: string;
  /** where the journal says what it waits for (the command's stderr) */
  tell?: (line: string) => void;
  /** `--journal` (src/client/journal-db/target.ts) */
  journal?: string;
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Whether the fields of an ISO 8601 date are a real time (no February 30, no 25:00, no +25:00). */
function realTime(m: RegExpExecArray): boolean {
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) =>
    x === undefined ? undefined : Number(x),
  ) as number[];
  const zone = m[7] && m[7].toUpperCase() !== 'Z' ? /^[+-](\d{2}):?(\d{2})$/.exec(m[7]) : null;
  if (zone && (Number(zone[1]) > 23 || Number(zone[2]) > 59)) return false;
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return month! >= 1 && month! <= 12 && day! >= 1 && day! <= daysInMonth && hour <= 23 && minute <= 59 && second <= 59;
}

/**
 * `--since`/`--until`: a duration back from now (`90m`, `2h`, `3d`, `1w`) or an ISO 8601 date
 * (`2026-11-24`, `2026-11-24T10:00:00Z`; without a zone, local time). Nothing else: `Date.parse`
 * alone reads `90` as 1990 and `1` as 2001, and `2026-02-30` as March 2.
 */
export function parseWhen(flag: string, value: string, nowMs = Date.now()): number {
  const text = value.trim();
  const d = /^(\d{1,9})([smhdw])$/.exec(text);
  if (d) return nowMs - Number(d[1]) * UNITS[d[2]!]!;
  const hint = `For example --${flag} 2h, --${flag} 3d, or --${flag} 2026-11-24T10:00:00Z.`;
  if (/^\d+$/.test(text))
    throw usageError(
      `--${flag} "${value}" has no unit: a duration is a number and one of s, m, h, d, w (--${flag} ${text}d: ${text} day${text === '1' ? '' : 's'}).`,
      hint,
    );
  const m = DATE.exec(text);
  const ms = m && realTime(m) ? Date.parse(text.replace(' ', 'T')) : NaN;
  if (Number.isNaN(ms)) throw usageError(`--${flag} "${value}" is neither a duration nor a date.`, hint);
  return ms;
}

/** `--since` and `--until` together: a window that cannot hold anything is a usage error, not an empty list. */
export function parseWindow(
  since: string | undefined,
  until: string | undefined,
  nowMs = Date.now(),
): { sinceMs?: number; untilMs?: number } {
  const sinceMs = since === undefined ? undefined : parseWhen('since', since, nowMs);
  const untilMs = until === undefined ? undefined : parseWhen('until', until, nowMs);
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs > untilMs) {
    throw usageError(
      `--since "${since}" is after --until "${until}": no operation can match.`,
      'A duration counts back from now: --since 3d --until 1d is from three days ago to one day ago.',
    );
  }
  return { sinceMs, untilMs };
}

/** Whether an entry passes the filters (time, card, unresolved). */
function matches(e: JournalEntry, q: OpsQuery): boolean {
  const t = Date.parse(e.time);
  if (q.sinceMs !== undefined && t < q.sinceMs) return false;
  if (q.untilMs !== undefined && t > q.untilMs) return false;
  // ids are ULIDs, the same in either case (`cards get` takes a lower-case one): so is --card
  if (q.card !== undefined && cardIdOf(e)?.toUpperCase() !== q.card.toUpperCase()) return false;
  if (q.unresolved && e.outcome !== 'unknown') return false;
  return true;
}

export interface OpsScan {
  entries: AsyncGenerator<JournalEntry>;
}

/** Candidates newest first: the key's sends, or the journal's operations in the time range (unresolved ones only, with --unresolved). */
async function* candidates(journal: Journal, q: OpsQuery): AsyncGenerator<JournalEntry> {
  if (q.key !== undefined) return yield* (await journal.history(q.key, { strict: false })).reverse();
  yield* journal.newest({ sinceMs: q.sinceMs, untilMs: q.untilMs, unknownOnly: q.unresolved });
}

/** The matching operations, newest first (lazily: stop reading when you have enough). */
export function scanOps(q: OpsQuery, journal = Journal.open(undefined, q.tell, { flag: q.journal })): OpsScan {
  async function* entries(): AsyncGenerator<JournalEntry> {
    for await (const e of candidates(journal, q)) if (matches(e, q)) yield e;
  }
  return { entries: entries() };
}

/** What is left past the limit: an exact count where it costs nothing to know, else whether there is more. */
export async function moreAfter(
  q: OpsQuery,
  shown: number,
  rest: AsyncGenerator<JournalEntry>,
  journal = Journal.open(undefined, q.tell, { flag: q.journal }),
): Promise<number | 'some' | 0> {
  const unfiltered =
    !q.unresolved && q.key === undefined && q.card === undefined && q.sinceMs === undefined && q.untilMs === undefined;
  if (unfiltered) return Math.max(0, (await journal.stats()).ops - shown);
  if (q.unresolved && q.key === undefined && q.card === undefined && q.sinceMs === undefined && q.untilMs === undefined)
    return Math.max(0, (await journal.unresolvedCount()) - shown);
  return (await rest.next()).done ? 0 : 'some';
}
