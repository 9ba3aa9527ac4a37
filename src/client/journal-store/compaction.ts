// Retention (docs/journal.md, "Retention"): resolved operations older than the retention are
// reduced to one `compact` record each, in both their copies (the hour's segment and the key
// bucket), holding what the 24-hour rule and `ops show` need: key, target, key id, body hash,
// time and the folded outcome. An operation whose outcome is unknown keeps every record. A file
// with a damaged line is left as it is (reported; `ops repair` first). Files are replaced by
// rewriteFile, so money commands appending at the same time lose nothing; one compaction runs
// at a time (a lock file), never during a takeover. Work is per day, oldest first; the days done
// are remembered in compaction.json, so each run reads only the days that aged past the retention.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compactOf, Journal, type JournalCompact } from '../journal.js';
import { rewriteFile } from './files.js';
import { keyBucketFile, keyBucketName } from './layout.js';
import { decodeText, encodeLine, isDamaged } from './lines.js';
import { isStateFolderProblem, stateFolderError } from '../state-folder.js';
import { tryLock } from './takeover-lock.js';

export const DEFAULT_RETENTION_DAYS = 90;
const DAY_MS = 86_400_000;
/** compacted records held before the key buckets they belong to are rewritten (bounds memory) */
const FLUSH_EVERY = 50_000;

export interface CompactionReport {
  retention_days: number;
  /** operations first sent before this time and resolved are compacted */
  cutoff: string;
  days: string[];
  compacted: number;
  /** operations older than the cutoff whose outcome is not known: kept whole */
  kept_unknown: number;
  files_rewritten: number;
  bytes_before: number;
  bytes_after: number;
  /** files left as they were because a line in them is damaged */
  damaged: string[];
  /** why nothing was done (another compaction runs, a takeover is under way) */
  skipped?: string;
}

interface State {
  compacted_through?: string;
  last_run?: string;
}

export const statePath = (root: string): string => join(root, 'compaction.json');

export function readCompactionState(root: string): State {
  try {
    const s = JSON.parse(readFileSync(statePath(root), 'utf8')) as State;
    return typeof s === 'object' && s !== null ? s : {};
  } catch {
    return {};
  }
}

const sizeOf = (file: string): number => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

/** Days (YYYY-MM-DD) with segments that ended before the cutoff and are not compacted yet, oldest first. */
function dueDays(root: string, cutoffMs: number, through: string | undefined): string[] {
  const dir = join(root, 'segments');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter(
      (d) =>
        /^\d{4}-\d\d-\d\d$/.test(d) &&
        Date.parse(`${d}T00:00:00Z`) + DAY_MS <= cutoffMs &&
        (through === undefined || d > through),
    )
    .sort();
}

/** The text with every record of the given ops replaced by its compact record (once, where its first record was); undefined when a line is damaged. */
function compactText(
  text: string,
  compacts: ReadonlyMap<string, JournalCompact>,
): { text: string; changed: boolean } | undefined {
  const out: string[] = [];
  const written = new Set<string>();
  let changed = false;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const [rec] = decodeText(line);
    if (!rec || isDamaged(rec)) return undefined;
    const c = compacts.get(rec.id);
    if (!c) {
      out.push(line + '\n');
      continue;
    }
    if (written.has(rec.id)) {
      changed = true; // a later record of a compacted op: folded into its compact record
      continue;
    }
    written.add(rec.id);
    if (rec.type === 'compact' && rec.compacted_at === c.compacted_at) {
      out.push(line + '\n');
    } else {
      out.push(encodeLine(c));
      changed = true;
    }
  }
  return { text: out.join(''), changed };
}

class Compactor {
  readonly report: CompactionReport;
  private pending = new Map<string, Map<string, JournalCompact>>();
  private pendingCount = 0;
  private readonly journal: Journal;
  private readonly now: string;

  constructor(
    private readonly root: string,
    retentionDays: number,
    nowMs: number,
  ) {
    this.journal = new Journal(root, true);
    this.now = new Date(nowMs).toISOString();
    this.report = {
      retention_days: retentionDays,
      cutoff: new Date(nowMs - retentionDays * DAY_MS).toISOString(),
      days: [],
      compacted: 0,
      kept_unknown: 0,
      files_rewritten: 0,
      bytes_before: 0,
      bytes_after: 0,
      damaged: [],
    };
  }

  /** One hour's segment: its resolved old ops compacted there, and queued for their key buckets. Returns false when it is damaged. */
  segment(file: string): boolean {
    const { entries, damaged } = this.journal.segmentEntries(file);
    if (damaged.length) return this.damaged(file);
    const cutoff = Date.parse(this.report.cutoff);
    const compacts = new Map<string, JournalCompact>();
    for (const e of entries) {
      if (Date.parse(e.time) >= cutoff) continue;
      if (e.outcome !== 'resolved' || existsSync(join(this.root, 'unresolved', e.id))) {
        this.report.kept_unknown++;
        continue;
      }
      compacts.set(e.id, compactOf(e, this.now));
    }
    if (!this.rewrite(file, compacts)) return false;
    for (const c of compacts.values()) {
      const bucket = keyBucketName(c.idempotency_key);
      const map = this.pending.get(bucket) ?? new Map<string, JournalCompact>();
      map.set(c.id, c);
      this.pending.set(bucket, map);
      this.pendingCount++;
    }
    return this.pendingCount >= FLUSH_EVERY ? this.flush() : true;
  }

  /** Rewrites the key buckets of the ops compacted so far. Returns false when one was damaged. */
  flush(): boolean {
    let sound = true;
    for (const [bucket, compacts] of this.pending) {
      const file = keyBucketFile(this.root, bucket);
      if (!this.rewrite(file, compacts)) sound = false;
      else this.report.compacted += compacts.size;
    }
    this.pending = new Map();
    this.pendingCount = 0;
    return sound;
  }

  private rewrite(file: string, compacts: ReadonlyMap<string, JournalCompact>): boolean {
    if (compacts.size === 0) return true;
    const before = sizeOf(file);
    let damaged = false;
    const done = rewriteFile(file, (text) => {
      const next = compactText(text, compacts);
      if (!next) damaged = true;
      return next?.changed ? next.text : undefined;
    });
    if (damaged) return this.damaged(file);
    if (done) {
      this.report.files_rewritten++;
      this.report.bytes_before += before;
      this.report.bytes_after += sizeOf(file);
    }
    return true;
  }

  private damaged(file: string): false {
    this.report.damaged.push(file.slice(this.root.length + 1));
    return false;
  }
}

/**
 * Compacts the resolved operations first sent more than `retentionDays` ago. Safe while money
 * commands run; a second compaction at the same time does nothing (`skipped`).
 */
export function compactJournal(root: string, opts: { retentionDays?: number; nowMs?: number } = {}): CompactionReport {
  const retentionDays = opts.retentionDays ?? DEFAULT_RETENTION_DAYS;
  const nowMs = opts.nowMs ?? Date.now();
  const compactor = new Compactor(root, retentionDays, nowMs);
  const report = compactor.report;
  if (existsSync(join(root, '..', 'journal.importing')))
    return { ...report, skipped: 'the old operations.ndjson is being taken over' };
  if (!existsSync(root)) return report;
  const lock = tryLock(join(root, 'compaction.lock'));
  if (!lock) return { ...report, skipped: 'another cardctl process is compacting the journal' };
  try {
    const state = readCompactionState(root);
    // a day that has not yet aged past the cutoff cannot have been done (a damaged byte, a clock that ran ahead): then every day is looked at again
    if (
      !(
        typeof state.compacted_through === 'string' &&
        Date.parse(`${state.compacted_through}T00:00:00Z`) + DAY_MS <= Date.parse(report.cutoff)
      )
    )
      delete state.compacted_through;
    let through = state.compacted_through;
    let sound = true;
    for (const day of dueDays(root, Date.parse(report.cutoff), state.compacted_through)) {
      const dir = join(root, 'segments', day);
      for (const hour of readdirSync(dir)
        .filter((h) => /^\d\d\.ndjson$/.test(h))
        .sort()) {
        lock.touch(); // worked on: see src/client/lock-owner.ts
        sound = compactor.segment(join(dir, hour)) && sound;
      }
      report.days.push(day);
      if (sound) through = day; // from a damaged day on, done again after `ops repair`
    }
    // the key buckets once for every day (each flush rewrites every bucket it touches)
    if (!compactor.flush()) through = state.compacted_through;
    writeFileSync(
      statePath(root),
      JSON.stringify({ compacted_through: through, last_run: new Date(nowMs).toISOString() }) + '\n',
      { mode: 0o600 },
    );
    return report;
  } catch (err) {
    // a full disk: the file whose copy could not be written whole is as it was (files.ts), the days are done again next time
    throw isStateFolderProblem(err)
      ? stateFolderError(err, join(root, '..'), 'compaction stopped; the file it was rewriting is as it was')
      : err;
  } finally {
    lock.release();
  }
}
