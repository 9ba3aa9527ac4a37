// `cardctl ops list`: the journal's operations, newest first, filtered, read one hour's segment
// at a time (never the whole journal at once), so `--ndjson --all` streams in constant memory.
import { basename, dirname } from 'node:path';
import { usageError } from '../errors.js';
import { Journal, type JournalEntry } from './journal.js';
import type { DamagedLine } from './journal-store/lines.js';
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
}

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `--since`/`--until`: a duration back from now (`90m`, `2h`, `3d`, `1w`) or a date (`2026-11-24`, ISO 8601). */
export function parseWhen(flag: string, value: string, nowMs = Date.now()): number {
  const d = /^(\d+)([smhdw])$/.exec(value.trim());
  if (d) return nowMs - Number(d[1]) * UNITS[d[2]!]!;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw usageError(`--${flag} "${value}" is neither a duration nor a date.`, `For example --${flag} 2h, --${flag} 3d, or --${flag} 2026-11-24T10:00:00Z.`);
  return ms;
}

/** Whether an entry passes the filters (time, card, unresolved). */
function matches(e: JournalEntry, q: OpsQuery): boolean {
  const t = Date.parse(e.time);
  if (q.sinceMs !== undefined && t < q.sinceMs) return false;
  if (q.untilMs !== undefined && t > q.untilMs) return false;
  if (q.card !== undefined && cardIdOf(e) !== q.card) return false;
  if (q.unresolved && e.outcome !== 'unknown') return false;
  return true;
}

/** The hour a segment file covers, from its path (`.../2026-11-24/19.ndjson`). */
function segmentHour(file: string): number {
  return Date.parse(`${basename(dirname(file))}T${basename(file, '.ndjson')}:00:00Z`);
}

export interface OpsScan {
  entries: Generator<JournalEntry>;
  /** damaged lines met so far, with their file */
  damaged: Array<{ file: string; line: DamagedLine }>;
}

/** Candidates newest first: from the key's bucket, the unresolved markers, or the segments in the time range. */
function* candidates(journal: Journal, q: OpsQuery, damaged: OpsScan['damaged']): Generator<JournalEntry> {
  if (q.key !== undefined) return yield* journal.history(q.key, { strict: false }).reverse();
  if (q.unresolved) return yield* journal.unresolvedNewest();
  for (const file of journal.segments().reverse()) {
    const hour = segmentHour(file);
    if (q.untilMs !== undefined && hour > q.untilMs) continue;
    if (q.sinceMs !== undefined && hour + 3_600_000 <= q.sinceMs) break;
    const seg = journal.segmentEntries(file);
    for (const line of seg.damaged) damaged.push({ file, line });
    yield* seg.entries.reverse();
  }
}

/** The matching operations, newest first (lazily: stop reading when you have enough). */
export function scanOps(q: OpsQuery, journal = Journal.open()): OpsScan {
  const damaged: OpsScan['damaged'] = [];
  function* entries(): Generator<JournalEntry> {
    for (const e of candidates(journal, q, damaged)) if (matches(e, q)) yield e;
  }
  return { entries: entries(), damaged };
}

/** What is left past the limit: an exact count where it costs nothing to know, else whether there is more. */
export function moreAfter(q: OpsQuery, shown: number, rest: Generator<JournalEntry>, journal = Journal.open()): number | 'some' | 0 {
  const unfiltered = !q.unresolved && q.key === undefined && q.card === undefined && q.sinceMs === undefined && q.untilMs === undefined;
  if (unfiltered) return Math.max(0, journal.stats().ops - shown);
  if (q.unresolved && q.key === undefined && q.card === undefined && q.sinceMs === undefined && q.untilMs === undefined) return Math.max(0, journal.unresolvedCount() - shown);
  return rest.next().done ? 0 : 'some';
}
