// `cardctl ops repair`: every record of the journal is held twice (its key bucket and its
// segment; the id index is derived from the buckets), so a damaged file is rebuilt from the
// other copies. Each rebuilt file replaces the damaged one by an atomic rename; the damaged one
// is kept beside it (`.damaged`). Lines of an old operations.ndjson that could not be read have
// no second copy: they are shown, and set aside only when the person says so. Files are replaced
// as compaction does (rewriteFile), so records appended meanwhile are kept.
import { copyFileSync, existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { rewriteFile } from './files.js';
import { completeJournal, type Completion } from './reconcile.js';
import { join, relative } from 'node:path';
import { decodeText, encodeLine, isDamaged, type RawRecord } from './lines.js';
import { idBucketFile, idRecord, idShard, keyBucketName, segmentFile } from './layout.js';

export interface RepairReport {
  checked: number;
  /** files that held damaged lines, relative to the journal folder, and what became of them */
  repaired: Array<{ file: string; damaged: number; restored: number; lost: number }>;
  /** lines of the old file that could not be read (damaged.ndjson) */
  unreadable: Array<{ offset: number; why: string; text: string }>;
  discarded: number;
  /** files that lacked records an interruption left out (restored from the key bucket), and the unresolved markers set right */
  completed: Completion['completed'];
  markers: number;
}

function filesIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? filesIn(join(dir, d.name)) : d.name.endsWith('.ndjson') ? [join(dir, d.name)] : [],
  );
}

type Decoded = { file: string; records: RawRecord[]; damaged: number };

/** Each file decoded in turn (one at a time in memory). */
function* readAll(files: string[]): Generator<Decoded> {
  for (const file of files) {
    const all = decodeText(readFileSync(file, 'utf8'));
    const records = all.filter((r): r is RawRecord => !isDamaged(r));
    yield { file, records, damaged: all.length - records.length };
  }
}

/** Every op's place (key bucket, segment) from one set of copies, then each of its records. */
function* withPlaces(copies: Iterable<Decoded>): Generator<{ rec: RawRecord; key: string; time: string }> {
  for (const c of copies) {
    const ops = new Map<string, { key: string; time: string }>();
    for (const r of c.records)
      if (r.type === 'op' || r.type === 'compact')
        ops.set(r.id, { key: r.idempotency_key as string, time: r.time as string });
    for (const r of c.records) {
      const place = ops.get(r.id);
      if (place) yield { rec: r, ...place };
    }
  }
}

/**
 * The union of the file's readable lines and the other copies that belong in it, by line text;
 * each operation's record before its later ones, and those in the order they were written (their
 * time): a restored record appended after the later ones would be read out of order (an outcome
 * read before its op is lost, and the operation then reads as unknown).
 */
function rebuild(target: Decoded, fromOthers: RawRecord[]): { text: string; restored: number } {
  const kept = target.records.map((r) => ({ r, line: encodeLine(r) }));
  const seen = new Set(kept.map((k) => k.line));
  let restored = 0;
  for (const r of fromOthers) {
    const line = encodeLine(r);
    if (seen.has(line)) continue;
    seen.add(line);
    kept.push({ r, line });
    restored++;
  }
  const rank = (r: RawRecord): number => (r.type === 'op' || r.type === 'compact' || r.type === 'id' ? 0 : 1);
  kept.sort((a, b) => rank(a.r) - rank(b.r) || Date.parse(a.r.time as string) - Date.parse(b.r.time as string));
  return { text: kept.map((k) => k.line).join(''), restored };
}

/** The file rebuilt from its readable lines as they are now and the other copies; lines appended meanwhile by a money command are kept (rewriteFile). */
function replace(d: Decoded, fromOthers: RawRecord[]): number {
  copyFileSync(d.file, `${d.file}.damaged`);
  let restored = 0;
  rewriteFile(d.file, (text) => {
    const all = decodeText(text);
    const now = { file: d.file, records: all.filter((r): r is RawRecord => !isDamaged(r)), damaged: 0 };
    const rebuilt = rebuild(now, fromOthers);
    restored = rebuilt.restored;
    return rebuilt.text;
  });
  return restored;
}

export function repairJournal(root: string, opts: { discardUnreadable?: boolean } = {}): RepairReport {
  const buckets = filesIn(join(root, 'keys'));
  const segments = filesIn(join(root, 'segments'));
  const ids = filesIn(join(root, 'ids'));
  const report: RepairReport = {
    checked: buckets.length + segments.length + ids.length,
    repaired: [],
    unreadable: [],
    discarded: 0,
    completed: [],
    markers: 0,
  };
  const damagedOf = (files: string[]): Decoded[] => {
    const out: Decoded[] = [];
    for (const d of readAll(files)) if (d.damaged > 0) out.push(d);
    return out;
  };
  const badBuckets = damagedOf(buckets);
  const badSegments = damagedOf(segments);
  const note = (d: Decoded, restored: number) =>
    report.repaired.push({
      file: relative(root, d.file),
      damaged: d.damaged,
      restored,
      lost: Math.max(0, d.damaged - restored),
    });
  for (const d of badBuckets) {
    const name = d.file.slice(-10, -7);
    const others = [...withPlaces(readAll(segments))].filter((x) => keyBucketName(x.key) === name).map((x) => x.rec);
    note(d, replace(d, others));
  }
  for (const d of badSegments) {
    const others = [...withPlaces(readAll(buckets))]
      .filter((x) => segmentFile(root, x.time) === d.file)
      .map((x) => x.rec);
    note(d, replace(d, others));
  }
  for (const d of damagedOf(ids)) {
    const others = [...withPlaces(readAll(buckets))]
      .filter(
        (x) => (x.rec.type === 'op' || x.rec.type === 'compact') && idBucketFile(root, idShard(x.rec.id)) === d.file,
      )
      .map((x) => idRecord(x.rec.id, x.time, keyBucketName(x.key)) as unknown as RawRecord);
    note(d, replace(d, others));
  }
  Object.assign(report, completeJournal(root));
  const unreadable = join(root, 'damaged.ndjson');
  if (existsSync(unreadable)) {
    report.unreadable = readFileSync(unreadable, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as RepairReport['unreadable'][number]);
    if (opts.discardUnreadable) {
      renameSync(unreadable, join(root, `damaged.discarded-${new Date().toISOString().replace(/[:.]/g, '-')}.ndjson`));
      report.discarded = report.unreadable.length;
    }
  }
  return report;
}
