// `cardctl ops repair`, second part: the places an interruption left without a record. An op is
// appended to its key bucket, then its segment, then the id index, then its unresolved marker
// (and an outcome to the bucket, then the segment, then the marker cleared): a process killed
// between two of these leaves a record in the key bucket (which the 24-hour rule reads) that
// `ops list`, `ops show ID` and `ops resolve ID` cannot find. Each is restored from the bucket.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { entriesOf } from '../journal.js';
import { appendLines } from './files.js';
import { decodeLine, isDamaged, type RawRecord } from './lines.js';
import { idBucketFile, idRecord, idShard, keyBucketName, markerFile, segmentFile } from './layout.js';
import { JournalStore } from './store.js';

export interface Completion {
  /** files that lacked records an interruption left out, and how many were restored */
  completed: Array<{ file: string; restored: number }>;
  /** unresolved markers written or removed to follow their operation's outcome */
  markers: number;
}

const ndjsonIn = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? ndjsonIn(join(dir, d.name)) : d.name.endsWith('.ndjson') ? [join(dir, d.name)] : [])) : [];

/** Each readable line of a file with its checksum (the same record has the same line in every copy). */
function* linesOf(file: string): Generator<{ crc: string; rec: RawRecord }> {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const rec = decodeLine(line);
    if (!isDamaged(rec)) yield { crc: line.slice(0, 8), rec };
  }
}

/** What the segments and the id index hold: `<crc><id>` of every line, `@<id>` of every op or compact record, `#<id>` of every compact one, and the indexed ids. */
function present(root: string): { lines: Set<string>; indexed: Set<string> } {
  const lines = new Set<string>();
  for (const file of ndjsonIn(join(root, 'segments'))) {
    for (const { crc, rec } of linesOf(file)) {
      lines.add(crc + rec.id);
      if (rec.type === 'op' || rec.type === 'compact') lines.add('@' + rec.id);
      if (rec.type === 'compact') lines.add('#' + rec.id);
    }
  }
  const indexed = new Set<string>();
  for (const file of ndjsonIn(join(root, 'ids'))) for (const { rec } of linesOf(file)) indexed.add(rec.id);
  return { lines, indexed };
}

export function completeJournal(root: string): Completion {
  const { lines, indexed } = present(root);
  const store = new JournalStore(root);
  const missing = new Map<string, RawRecord[]>();
  const add = (file: string, rec: RawRecord) => missing.set(file, [...(missing.get(file) ?? []), rec]);
  let markers = 0;
  for (const bucket of ndjsonIn(join(root, 'keys'))) {
    const records: RawRecord[] = [];
    const places = new Map<string, { key: string; time: string }>();
    for (const { crc, rec } of linesOf(bucket)) {
      records.push(rec);
      if (rec.type === 'op' || rec.type === 'compact') places.set(rec.id, { key: rec.idempotency_key as string, time: rec.time as string });
      const place = places.get(rec.id);
      if (!place) continue;
      // a compacted operation's segment holds its compact record for all of its records
      const isOp = rec.type === 'op' || rec.type === 'compact';
      if (!lines.has(crc + rec.id) && !lines.has('#' + rec.id) && !(isOp && lines.has('@' + rec.id))) add(segmentFile(root, place.time), rec);
      if ((rec.type === 'op' || rec.type === 'compact') && !indexed.has(rec.id)) {
        indexed.add(rec.id);
        add(idBucketFile(root, idShard(rec.id)), idRecord(rec.id, place.time, keyBucketName(place.key)) as unknown as RawRecord);
      }
    }
    for (const e of entriesOf(records)) {
      const unknown = e.outcome === 'unknown';
      if (unknown !== existsSync(markerFile(root, e.id))) {
        store.mark(e.id, e.idempotency_key, unknown, e.time);
        markers++;
      }
    }
  }
  for (const [file, recs] of missing) appendLines(file, recs, true);
  return { completed: [...missing].map(([file, recs]) => ({ file: relative(root, file), restored: recs.length })), markers };
}
