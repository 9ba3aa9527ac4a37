// Where each record lives in the journal folder (docs/journal.md):
//   keys/<3 hex of sha256(idempotency key)>.ndjson  every record of the keys in that bucket (the 24-hour rule reads one)
//   ids/<2 characters of the id>.ndjson             one fixed-length line per operation: id -> key bucket, time
//   segments/<YYYY-MM-DD>/<HH>.ndjson               every record of the operations sent in that hour (UTC), for lists and export
//   unresolved/<id>                                 one small file per operation whose outcome is not known
// Each op record is thus in two places (its key bucket and its segment), its key too.
import { createHash } from 'node:crypto';
import { join, sep } from 'node:path';

/** Every id-index line has this length, so the number of operations is the index's size / this. */
export const ID_LINE_BYTES = 192;

export const keyBucketName = (key: string): string => createHash('sha256').update(key).digest('hex').slice(0, 3);

/** Two characters of the id after `op_`, lower case: an id prefix of two or more characters names one file. */
export const idShard = (id: string): string =>
  (
    id
      .slice(3, 5)
      .toLowerCase()
      .replace(/[^0-9a-z]/g, '_') + '__'
  ).slice(0, 2);

export const keyBucketFile = (root: string, bucket: string): string => `${root}${sep}keys${sep}${bucket}.ndjson`;
export const idBucketFile = (root: string, shard: string): string => join(root, 'ids', `${shard}.ndjson`);
export const markerFile = (root: string, id: string): string => join(root, 'unresolved', id);

/** The hour's segment of a time (`2026-11-24T19:39:13.000Z` -> segments/2026-11-24/19.ndjson). */
export function segmentFile(root: string, time: string): string {
  const iso =
    time.length === 24 && time.endsWith('Z') && time[10] === 'T' ? time : new Date(Date.parse(time)).toISOString();
  return `${root}${sep}segments${sep}${iso.slice(0, 10)}${sep}${iso.slice(11, 13)}.ndjson`;
}

/** The op's time as the index keeps it: ISO 8601 in UTC, always 24 characters. */
export const isoTime = (time: string): string => new Date(Date.parse(time)).toISOString();

/** The id-index record, padded so that its line is ID_LINE_BYTES long. */
export function idRecord(id: string, time: string, keyBucket: string): Record<string, string> {
  const base = { type: 'id', id, time: isoTime(time), key_bucket: keyBucket, pad: '' };
  const len = JSON.stringify(base).length + 10; // checksum, space, newline
  return { ...base, pad: ' '.repeat(Math.max(0, ID_LINE_BYTES - len)) };
}
