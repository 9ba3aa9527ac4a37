// Every record of the older file journals, read once for their takeover (src/client/journal-db/takeover.ts),
// without a database: the folder journal's files (key buckets, hour segments, what an earlier
// takeover could not read) and the single operations.ndjson before it, line by line
// (old-lines.ts). Each record is given once (the second copy of a record is recognised by its
// bytes before it is decoded: seen-records.ts), checked (its checksum, JSON and shape), with its
// text as it will be stored and its CRC-32; a line that cannot be read is given as such, never
// skipped. Runs in the takeover's reader thread (takeover-reader.ts), beside the thread writing the rows.
import { isUtf8 } from 'node:buffer';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { checkedCrc, eachLine, isBlank, isDamaged, parseRecord } from './old-lines.js';
import type { RawRecord } from './records.js';
import { SeenRecords } from './seen-records.js';

/** What the reading gives: each record once, and each line that cannot be read. */
export interface OldRecordSink {
  record(r: RawRecord, text: string, crc: number): void;
  /** `text`: the line as read, at most SHOWN characters of it */
  unreadable(file: string, why: string, text: string): void;
}

/** The longest text of an unreadable line kept for `ops verify` (a line of megabytes is cut). */
export const SHOWN = 4096;

/** Every file of the old folder journal that holds records (key buckets, segments, what an earlier takeover could not read). */
function folderFiles(dir: string): string[] {
  const files: string[] = [];
  const walk = (d: string): void => {
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.ndjson')) files.push(p);
    }
  };
  for (const part of ['keys', 'segments']) walk(join(dir, part));
  if (existsSync(join(dir, 'damaged.ndjson'))) files.push(join(dir, 'damaged.ndjson'));
  return files;
}

/**
 * Reads every record of the old journals `from` (oldJournals' list) into `to`. `once`: a record
 * read twice is given once (the folder's two copies, or the old file beside it), recognised by
 * its bytes; without it (a single old file) every record is given as read.
 */
export function readOldRecords(from: readonly string[], once: boolean, to: OldRecordSink): void {
  const seen = once ? new SeenRecords() : undefined;
  for (const old of from) {
    const checksummed = !old.endsWith('.ndjson');
    for (const file of checksummed ? folderFiles(old) : [old]) {
      const lost = file.endsWith('damaged.ndjson'); // what an older takeover of the folder could not read
      const cannotRead = (why: string, text: string) => to.unreadable(file, why, text.slice(0, SHOWN));
      eachLine(file, (buf, start, end) => {
        if (isBlank(buf, start, end)) return;
        let json = start;
        let crc: number | undefined;
        if (checksummed) {
          crc = checkedCrc(buf, start, end);
          if (crc === undefined)
            return cannotRead('checksum mismatch', buf.toString('utf8', start, Math.min(end, start + 4 * SHOWN)));
          json = start + 9;
        } else crc = crc32(buf.subarray(start, end));
        if (!lost && seen?.has(buf, json, end, crc)) return; // the other copy of a record taken already
        const text = buf.toString('utf8', json, end);
        if (!isUtf8(buf.subarray(json, end))) crc = crc32(text); // (stored as read, its invalid bytes replaced: its checksum is the text's)
        const r = parseRecord(text);
        if (isDamaged(r)) return cannotRead(r.why, r.text);
        if (lost) return cannotRead('unreadable in an older takeover', text);
        to.record(r, text, crc);
        seen?.add(buf, json, end, crc);
      });
    }
  }
}
