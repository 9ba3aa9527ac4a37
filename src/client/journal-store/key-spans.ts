// One key bucket's lines grouped by the keys a reader wants, without parsing them: a first sweep
// checks every line's checksum and notes where each wanted key's lines lie; each key's records
// are parsed only when it is that key's turn. A `--batch` rerun's pass reads the buckets of a
// million keys this way: holding a whole bucket's parsed records at once (some 500 records, a
// few hundred KB) had them outlive young collections, and the old generation grew with garbage
// (bench/README.md, "Batches").
// Exact by construction: a key or id is taken from a line's text only when it holds no escape,
// and every parsed record is checked against what its text said; otherwise the bucket is
// `inexact` and its reader reads it the ordinary way.
import { checksumsOk, isDamaged, lineBounds, parseRecord, type RawRecord } from './lines.js';

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
 * key, and the later lines (outcomes, resolutions) of the same operation ids. `damaged` when a line fails its checksum,
 * `inexact` when a key or id this needs is written with an escape.
 */
export function wantedSpans(buf: Buffer, wanted: (key: string) => boolean): KeySpans | 'damaged' | 'inexact' {
  const spans: KeySpans = new Map();
  const byId = new Map<string, number[]>(); // op id -> its key's spans
  const bounds = lineBounds(buf);
  if (!checksumsOk(buf, bounds)) return 'damaged';
  for (let i = 0; i < bounds.length; i += 2) {
    const s = bounds[i]!;
    const end = bounds[i + 1]!;
    const line = buf.subarray(s, end);
    const key = plainField(line, KEY_LABEL);
    if (key === 'escaped') return 'inexact';
    if (key !== undefined) {
      // only op and compact records hold a key (a nested object never does): this is one
      if (!wanted(key)) continue;
      const id = plainField(line, ID_LABEL);
      if (id === undefined || id === 'escaped') return 'inexact';
      let list = spans.get(key);
      if (!list) spans.set(key, (list = []));
      list.push(s, end);
      byId.set(id, list);
      continue;
    }
    if (byId.size === 0) continue;
    const id = plainField(line, ID_LABEL);
    if (id === 'escaped') return 'inexact';
    const list = id === undefined ? undefined : byId.get(id);
    if (list) list.push(s, end);
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

/**
 * The lines of a few keys' operations in a key bucket, found by their bytes (listing a few
 * operations: only their lines are made strings): each line holding `"idempotency_key":<key>`,
 * then every line holding `"id":<that line's id>`, wherever it lies, in file order, with the op
 * ids found per key. `damaged` when a line of the bucket fails its checksum. What it finds is a
 * candidate: its reader checks the parsed records (recordsOfIds) and else reads the bucket whole.
 */
export function fewKeysLines(
  buf: Buffer,
  keys: Iterable<string>,
): Map<string, { lines: number[]; ids: Set<string> }> | 'damaged' {
  const bounds = lineBounds(buf);
  if (!checksumsOk(buf, bounds)) return 'damaged';
  /** The line (its index in bounds, in pairs) holding the byte at `offset`. */
  const lineAt = (offset: number): number => {
    let lo = 0;
    let hi = bounds.length / 2 - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (bounds[2 * mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const holding = (needle: Buffer): number[] => {
    const found: number[] = [];
    for (let at = buf.indexOf(needle); at >= 0; at = buf.indexOf(needle, at + needle.length)) found.push(lineAt(at));
    return found;
  };
  const out = new Map<string, { lines: number[]; ids: Set<string> }>();
  for (const key of keys) {
    const lines = new Set<number>();
    const ids = new Set<string>();
    for (const opLine of holding(Buffer.from(`"idempotency_key":${JSON.stringify(key)}`))) {
      const id = fieldText(buf.subarray(bounds[2 * opLine]!, bounds[2 * opLine + 1]!), ID_LABEL);
      if (id === undefined) return 'damaged'; // a key without an id: read the bucket whole, which says what is wrong
      ids.add(id);
      for (const l of holding(Buffer.from(`"id":"${id}"`))) lines.add(l);
    }
    out.set(key, { lines: [...lines].sort((a, b) => a - b).flatMap((l) => [bounds[2 * l]!, bounds[2 * l + 1]!]), ids });
  }
  return out;
}

/**
 * The records at `lines` (from fewKeysLines), parsed: `damaged` when one cannot be read,
 * `inexact` when an id was written with an escape or a record's own id is not one of `ids`.
 */
export function recordsOfIds(
  buf: Buffer,
  lines: readonly number[],
  ids: ReadonlySet<string>,
): RawRecord[] | 'damaged' | 'inexact' {
  for (const id of ids) if (id.includes('\\')) return 'inexact';
  const out: RawRecord[] = [];
  for (let i = 0; i < lines.length; i += 2) {
    const rec = parseRecord(buf.toString('utf8', lines[i]! + 9, lines[i + 1]!));
    if (isDamaged(rec)) return 'damaged';
    if (typeof rec.id !== 'string' || !ids.has(rec.id)) return 'inexact';
    out.push(rec as RawRecord);
  }
  return out;
}

/**
 * Each wanted key's records in a key bucket's bytes, as Journal.historyMany attributes them (an op
 * or compact record names its key; every record follows its op's id, wherever it lies), finding
 * and parsing only their lines; undefined when that cannot be done exactly (a damaged line, an
 * escaped id, an op id two wanted keys share, a line that is not what its bytes said): then read
 * the bucket whole.
 */
export function fewKeysRecords(bytes: Buffer, wanted: ReadonlySet<string>): Map<string, RawRecord[]> | undefined {
  const lines = fewKeysLines(bytes, wanted);
  if (lines === 'damaged') return undefined;
  const seen = new Set<string>();
  const out = new Map<string, RawRecord[]>();
  for (const [k, { lines: at, ids }] of lines) {
    for (const id of ids) {
      if (seen.has(id)) return undefined;
      seen.add(id);
    }
    const records = recordsOfIds(bytes, at, ids);
    if (typeof records === 'string') return undefined;
    const opIds = new Set(
      records.filter((r) => (r.type === 'op' || r.type === 'compact') && r.idempotency_key === k).map((r) => r.id),
    );
    if (opIds.size !== ids.size) return undefined;
    out.set(k, records);
  }
  return out;
}
