// `cardctl ops repair`, second part: the places an interruption left without a record. An op is
// appended to its key bucket, then its segment, then the id index, then its unresolved marker
// (and an outcome to the bucket, then the segment, then the marker cleared): a process killed
// between two of these leaves a record in the key bucket (which the 24-hour rule reads) that
// `ops list`, `ops show ID` and `ops resolve ID` cannot find. Each is restored from the bucket;
// and a key bucket lost or emptied (moved aside, a folder in its place) gets its records back
// from the segments, before anything else.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { entriesOf } from '../journal.js';
import { appendLines } from './files.js';
import { decodeLine, isDamaged, type RawRecord } from './lines.js';
import { idBucketFile, idRecord, idShard, keyBucketFile, keyBucketName, markerFile, segmentFile } from './layout.js';
import { JournalStore, unreadable } from './store.js';

export interface Completion {
  /** files that lacked records an interruption left out, and how many were restored */
  completed: Array<{ file: string; restored: number }>;
  /** unresolved markers written or removed to follow their operation's outcome */
  markers: number;
}

const ndjsonIn = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
        d.isDirectory() ? ndjsonIn(join(dir, d.name)) : d.name.endsWith('.ndjson') ? [join(dir, d.name)] : [],
      )
    : [];

/** Each readable line of a file with its checksum (the same record has the same line in every copy). */
function* linesOf(file: string): Generator<{ crc: string; rec: RawRecord }> {
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line === '') continue;
    const rec = decodeLine(line);
    if (!isDamaged(rec)) yield { crc: line.slice(0, 8), rec };
  }
}

/** `<crc><id>` of every line of the files, `@<id>` of every op or compact record, `#<id>` of every compact one. */
function fingerprints(files: readonly string[]): Set<string> {
  const have = new Set<string>();
  for (const file of files) {
    for (const { crc, rec } of linesOf(file)) {
      have.add(crc + rec.id);
      if (rec.type === 'op' || rec.type === 'compact') have.add('@' + rec.id);
      if (rec.type === 'compact') have.add('#' + rec.id);
    }
  }
  return have;
}

type Place = { key: string; time: string };
const isOp = (rec: RawRecord): boolean => rec.type === 'op' || rec.type === 'compact';

/** Each record of `file` with its op's place, and whether the copies `have` describes lack it (a compacted operation's compact record stands for all of its records). */
function* withPlaces(file: string, have: Set<string>): Generator<{ rec: RawRecord; place: Place; lacking: boolean }> {
  const places = new Map<string, Place>();
  for (const { crc, rec } of linesOf(file)) {
    if (isOp(rec)) places.set(rec.id, { key: rec.idempotency_key as string, time: rec.time as string });
    const place = places.get(rec.id);
    if (place)
      yield {
        rec,
        place,
        lacking: !have.has(crc + rec.id) && !have.has('#' + rec.id) && !(isOp(rec) && have.has('@' + rec.id)),
      };
  }
}

class Missing {
  readonly files = new Map<string, RawRecord[]>();
  add(file: string, rec: RawRecord): void {
    const list = this.files.get(file);
    if (list) list.push(rec);
    else this.files.set(file, [rec]);
  }
  /** Appended (synced) to their files; what was restored, relative to the journal folder. */
  write(root: string): Completion['completed'] {
    for (const [file, recs] of this.files) {
      try {
        appendLines(file, recs, true);
      } catch (err) {
        throw unreadable(file, err);
      }
    }
    return [...this.files].map(([file, recs]) => ({ file: relative(root, file), restored: recs.length }));
  }
}

export function completeJournal(root: string): Completion {
  const segments = ndjsonIn(join(root, 'segments'));
  // a key bucket lost or emptied (the 24-hour rule reads it): its records back from the segments first
  const toBuckets = new Missing();
  const inBuckets = fingerprints(ndjsonIn(join(root, 'keys')));
  for (const file of segments)
    for (const { rec, place, lacking } of withPlaces(file, inBuckets))
      if (lacking) toBuckets.add(keyBucketFile(root, keyBucketName(place.key)), rec);
  const completed = toBuckets.write(root);
  // then what the buckets hold and the segments, the id index or the markers lack
  const inSegments = fingerprints(segments);
  const indexed = new Set<string>();
  for (const file of ndjsonIn(join(root, 'ids'))) for (const { rec } of linesOf(file)) indexed.add(rec.id);
  const missing = new Missing();
  const store = new JournalStore(root);
  let markers = 0;
  for (const bucket of ndjsonIn(join(root, 'keys'))) {
    const records: RawRecord[] = [];
    for (const { rec, place, lacking } of withPlaces(bucket, inSegments)) {
      records.push(rec);
      if (lacking) missing.add(segmentFile(root, place.time), rec);
      if (isOp(rec) && !indexed.has(rec.id)) {
        indexed.add(rec.id);
        missing.add(
          idBucketFile(root, idShard(rec.id)),
          idRecord(rec.id, place.time, keyBucketName(place.key)) as unknown as RawRecord,
        );
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
  return { completed: completed.concat(missing.write(root)), markers };
}
