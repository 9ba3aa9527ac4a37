// The takeover's records as its reader thread (takeover-reader.ts) hands them to the thread that
// writes the rows (takeover.ts): a batch is one flat array of numbers and strings, a few values a
// record, which a message copies far faster than an object a record (each object's field names
// copied again). A record is given with what the rows need of it, worked out in the reader: an
// operation's columns (tables.ts's lookupColumns: its key's digest hashed there), an answer's
// operation and whether it learned nothing. The record's text and CRC-32 go as read.
import type { RawRecord } from './records.js';
import type { SqlValue } from './sql.js';
import { lookupColumns } from './tables.js';

/** The first value of each record in a batch: what follows it. */
const OP = 0; // crc, text, the 8 lookup columns
const COMPACT = 1; // the same, of a compacted operation
const ANSWER = 2; // crc, text, op id
const LEARNED_NOTHING = 3; // the same, of an outcome `unknown`
const OTHER = 4; // nothing: a record the rows do not hold (an `id` line of the old index), counted as read
const UNREADABLE = 5; // file, why, text
const COLUMNS = 8;

/** A batch being filled in the reader thread. */
export class BatchWriter {
  values: SqlValue[] = [];
  /** records and unreadable lines in `values` */
  count = 0;

  record(r: RawRecord, text: string, crc: number): void {
    this.count++;
    if (r.type === 'op' || r.type === 'compact')
      this.values.push(r.type === 'op' ? OP : COMPACT, crc, text, ...lookupColumns(r));
    else if (r.type === 'outcome' || r.type === 'resolution')
      this.values.push(r.outcome === 'unknown' ? LEARNED_NOTHING : ANSWER, crc, text, r.id);
    else this.values.push(OTHER);
  }

  unreadable(file: string, why: string, text: string): void {
    this.count++;
    this.values.push(UNREADABLE, file, why, text);
  }

  /** The batch filled so far; the writer starts a new one. */
  take(): SqlValue[] {
    const v = this.values;
    this.values = [];
    this.count = 0;
    return v;
  }
}

/** What a batch is read into (takeover-load.ts's TakeoverLoad, and the takeover's count of records and unreadable lines). */
export interface BatchSink {
  /** `columns`: lookupColumns' (id, idempotency_key, key_digest, time, key_id, method, path, body_sha256) */
  op(columns: SqlValue[], compacted: boolean, text: string, crc: number): void;
  answer(opId: string, learnedNothing: boolean, text: string, crc: number): void;
  unreadable(file: string, why: string, text: string): void;
}

/** Every record and unreadable line of a batch, in the order read; returns how many records it held (unreadable lines not counted). */
export function readBatch(v: readonly SqlValue[], to: BatchSink): number {
  let records = 0;
  for (let i = 0; i < v.length; records++) {
    const kind = v[i] as number;
    if (kind === OP || kind === COMPACT) {
      to.op(v.slice(i + 3, i + 3 + COLUMNS), kind === COMPACT, v[i + 2] as string, v[i + 1] as number);
      i += 3 + COLUMNS;
    } else if (kind === ANSWER || kind === LEARNED_NOTHING) {
      to.answer(v[i + 3] as string, kind === LEARNED_NOTHING, v[i + 2] as string, v[i + 1] as number);
      i += 4;
    } else if (kind === OTHER) {
      i += 1; // (`id` lines of the old id index say nothing the records do not)
    } else if (kind === UNREADABLE) {
      to.unreadable(v[i + 1] as string, v[i + 2] as string, v[i + 3] as string);
      i += 4;
      records--;
    } else throw new Error(`a takeover batch with a record of kind ${String(kind)}`);
  }
  return records;
}
