// One key bucket's lines grouped by the keys a reader wants, without parsing them: a first sweep
// checks every line's checksum and notes where each wanted key's lines lie; each key's records
// are parsed only when it is that key's turn. A `--batch` rerun's pass reads the buckets of a
// million keys this way: holding a whole bucket's parsed records at once (some 500 records, a
// few hundred KB) had them outlive young collections, and the old generation grew with garbage
// (bench/README.md, "Batches").
// Exact by construction: a key or id is taken from a line's text only when it holds no escape,
// and every parsed record is checked against what its text said; otherwise the bucket is
// `inexact` and its reader reads it the ordinary way.
import { checksumOkAt, isDamaged, parseRecord, type RawRecord } from './lines.js';

export const KEY_LABEL = Buffer.from('"idempotency_key":"');
export const ID_LABEL = Buffer.from('"id":"');

/** The JSON string after the first `label` in a line's bytes, as written (no escapes decoded), or undefined. */
export function fieldText(line: Buffer, label: Buffer): string | undefined {
  const at = line.indexOf(label);
  if (at < 0) return undefined;
  const end = line.indexOf(0x22, at + label.length);
  return end < 0 ? undefined : line.toString('utf8', at + label.length, end);
}

/** A field's text when it holds no escape (then it is the field's value), else 'escaped'. */
function plainField(line: Buffer, label: Buffer): string | undefined | 'escaped' {
  const s = fieldText(line, label);
  return s !== undefined && s.includes('\\') ? 'escaped' : s;
}

/** Each wanted key's lines as [start, end, start, end, ...], keys in the order first seen. */
export type KeySpans = Map<string, number[]>;

/**
 * Where the wanted keys' lines lie in a key bucket's bytes: the op (or compact) lines naming the
 * key, and the later lines (outcomes, resolutions) of the same operation ids. `damaged` when a
 * line fails its checksum, `inexact` when a key or id this needs is written with an escape.
 * `anyOrder`: also `inexact` when a line of a wanted op's id lies before that op, or another
 * op (of any key) has the same id; what is found is then what attributing each record to its op's id
 * wherever it lies finds (Journal.historyMany's reading).
 */
export function wantedSpans(buf: Buffer, wanted: (key: string) => boolean, opts: { anyOrder?: boolean } = {}): KeySpans | 'damaged' | 'inexact' {
  const spans: KeySpans = new Map();
  const byId = new Map<string, number[]>(); // op id -> its key's spans
  const others = opts.anyOrder ? new Set<string>() : undefined; // ids of the lines not attributed
  for (let start = 0; start < buf.length; ) {
    let end = buf.indexOf(0x0a, start);
    if (end < 0) end = buf.length;
    const s = start;
    start = end + 1;
    if (end === s) continue;
    if (!checksumOkAt(buf, s, end)) return 'damaged';
    const line = buf.subarray(s, end);
    const key = plainField(line, KEY_LABEL);
    if (key === 'escaped') return 'inexact';
    // only op and compact records hold a key (a nested object never does): this is one
    if (key !== undefined && wanted(key)) {
      const id = plainField(line, ID_LABEL);
      if (id === undefined || id === 'escaped' || (others && (others.has(id) || byId.has(id)))) return 'inexact';
      let list = spans.get(key);
      if (!list) spans.set(key, (list = []));
      list.push(s, end);
      byId.set(id, list);
      continue;
    }
    if (byId.size === 0 && !others) continue;
    const id = plainField(line, ID_LABEL);
    if (id === 'escaped') return 'inexact';
    if (id === undefined) continue;
    const list = key === undefined ? byId.get(id) : undefined;
    if (list) list.push(s, end);
    else if (others) {
      if (byId.has(id)) return 'inexact'; // another key's op with a wanted op's id
      others.add(id);
    }
  }
  return spans;
}

/**
 * The records of `key` at its spans, parsed: `damaged` when one cannot be read; `inexact` when
 * one is not what its text said (an op line of another key, an id found in a nested field).
 */
export function recordsAt(buf: Buffer, spans: readonly number[], key: string): RawRecord[] | 'damaged' | 'inexact' {
  const out: RawRecord[] = [];
  for (let i = 0; i < spans.length; i += 2) {
    const s = spans[i]!;
    const end = spans[i + 1]!;
    const line = buf.subarray(s, end);
    const rec = parseRecord(line.toString('utf8', 9));
    if (isDamaged(rec)) return 'damaged';
    const isOp = rec.type === 'op' || rec.type === 'compact';
    if (isOp && rec.idempotency_key !== key) return 'inexact';
    if (typeof rec.id !== 'string' || fieldText(line, ID_LABEL) !== rec.id) return 'inexact';
    out.push(rec as RawRecord);
  }
  return out;
}
