// One journal line: `<crc32 of the JSON, 8 hex> <JSON>\n`. The checksum catches any damaged byte
// (a CRC-32 detects every burst of up to 32 bits), so a damaged record is reported, never read
// as another record nor skipped silently. The shape of each record is checked too: a record of
// the wrong shape is reported like a damaged one, never an internal error.
import { createRequire } from 'node:module';

/** node:zlib's crc32, loaded on first use: a command that reads or writes no journal line (every GET) does not load zlib at start-up */
let zlibCrc32: typeof import('node:zlib').crc32 | undefined;
const crc32 = (data: string | Uint8Array): number =>
  (zlibCrc32 ??= (createRequire(import.meta.url)('node:zlib') as typeof import('node:zlib')).crc32)(data);

export type RawRecord = Record<string, unknown> & { type: string; id: string };

/** What a line that cannot be used is: its text (for `ops repair`) and why. */
export interface DamagedLine {
  damaged: true;
  why: string;
  text: string;
}

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

export function encodeLine(record: object): string {
  return encodeJson(JSON.stringify(record));
}

/** A line from JSON text already serialized (a takeover keeps each record's text as it was). */
export const encodeJson = (json: string): string => `${hex8(crc32(json))} ${json}\n`;

const isStr = (v: unknown): v is string => typeof v === 'string';
const isStrOrNull = (v: unknown): boolean => v === null || v === undefined || typeof v === 'string';
const isStatus = (v: unknown): boolean =>
  v === null || v === undefined || (typeof v === 'number' && Number.isInteger(v));

/** Why a parsed record cannot be used, or undefined when its shape is right. */
export function shapeProblem(r: unknown): string | undefined {
  if (typeof r !== 'object' || r === null || Array.isArray(r)) return 'not a JSON object';
  const o = r as Record<string, unknown>;
  if (!isStr(o.id) || !/^op_[\w.-]{1,64}$/.test(o.id)) return 'no operation id (op_...)';
  if (!isStr(o.time) || Number.isNaN(Date.parse(o.time))) return `${o.id}: no valid time`;
  if (o.type === 'op') {
    for (const f of ['mode', 'base_url', 'method', 'path', 'idempotency_key', 'body_b64', 'body_sha256', 'source']) {
      if (!isStr(o[f])) return `${o.id}: op without ${f}`;
    }
    if (!isStrOrNull(o.query) || !isStrOrNull(o.profile) || !isStrOrNull(o.key_id))
      return `${o.id}: op with a field of the wrong type`;
    return undefined;
  }
  if (o.type === 'outcome') {
    if (o.outcome !== 'resolved' && o.outcome !== 'unknown') return `${o.id}: outcome neither resolved nor unknown`;
    if (!isStatus(o.status) || !isStrOrNull(o.code) || !isStrOrNull(o.resource_id))
      return `${o.id}: outcome with a field of the wrong type`;
    return undefined;
  }
  if (o.type === 'resolution') {
    if (o.outcome !== 'succeeded' && o.outcome !== 'failed') return `${o.id}: resolution neither succeeded nor failed`;
    if (!isStrOrNull(o.note)) return `${o.id}: resolution note of the wrong type`;
    return undefined;
  }
  if (o.type === 'compact') {
    for (const f of ['mode', 'base_url', 'method', 'path', 'idempotency_key', 'body_sha256', 'compacted_at']) {
      if (!isStr(o[f])) return `${o.id}: compacted op without ${f}`;
    }
    if (o.outcome !== 'resolved') return `${o.id}: compacted op not resolved`;
    if (o.not_processed !== undefined && o.not_processed !== true)
      return `${o.id}: compacted op with a field of the wrong type`;
    if (o.balance_minor !== undefined && !Number.isSafeInteger(o.balance_minor))
      return `${o.id}: compacted op with a balance of the wrong type`;
    if (
      !isStatus(o.status) ||
      !isStrOrNull(o.code) ||
      !isStrOrNull(o.resource_id) ||
      !isStrOrNull(o.key_id) ||
      !isStrOrNull(o.resolved_by)
    )
      return `${o.id}: compacted op with a field of the wrong type`;
    const res = o.resolution as Record<string, unknown> | undefined | null;
    if (
      res !== undefined &&
      res !== null &&
      (typeof res !== 'object' ||
        (res.outcome !== 'succeeded' && res.outcome !== 'failed') ||
        !isStr(res.time) ||
        !isStrOrNull(res.note))
    )
      return `${o.id}: compacted op with a resolution of the wrong shape`;
    return undefined;
  }
  if (o.type === 'id')
    return isStr(o.key_bucket) && /^[0-9a-f]{3}$/.test(o.key_bucket)
      ? undefined
      : `${o.id}: index line without its key bucket`;
  return `${o.id}: unknown record type ${JSON.stringify(o.type)?.slice(0, 40)}`;
}

/** A parsed record of the right shape, or what is wrong with it (checksum, JSON, shape). */
export function parseRecord(json: string): RawRecord | DamagedLine {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return { damaged: true, why: 'not JSON', text: json };
  }
  const problem = shapeProblem(value);
  return problem ? { damaged: true, why: `wrong shape (${problem})`, text: json } : (value as RawRecord);
}

/** Whether the line at bytes `start` to `end` of a buffer has a checksum that matches its JSON (the CRC taken over the bytes: nothing parsed, no string made). */
export function checksumOkAt(buf: Buffer, start: number, end: number): boolean {
  if (end - start < 9 || buf[start + 8] !== 0x20) return false;
  let want = 0;
  for (let i = start; i < start + 8; i++) {
    const c = buf[i]!;
    const v = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (v < 0) return false;
    want = want * 16 + v;
  }
  return crc32(buf.subarray(start + 9, end)) === want;
}

/** The non-empty lines of a journal file's bytes, as [start, end, start, end, ...] (end: its newline, or the end of a last line without one). */
export function lineBounds(buf: Buffer): number[] {
  const bounds: number[] = [];
  for (let start = 0; start < buf.length; ) {
    let end = buf.indexOf(0x0a, start);
    if (end < 0) end = buf.length;
    if (end > start) bounds.push(start, end);
    start = end + 1;
  }
  return bounds;
}

/** Whether every line at `bounds` (lineBounds) has the checksum of its JSON. */
export function checksumsOk(buf: Buffer, bounds: readonly number[]): boolean {
  for (let i = 0; i < bounds.length; i += 2) if (!checksumOkAt(buf, bounds[i]!, bounds[i + 1]!)) return false;
  return true;
}

export function decodeLine(line: string): RawRecord | DamagedLine {
  const sp = line.indexOf(' ');
  const json = line.slice(sp + 1);
  if (sp !== 8 || !/^[0-9a-f]{8}$/.test(line.slice(0, 8)) || hex8(crc32(json)) !== line.slice(0, 8)) {
    return { damaged: true, why: 'checksum mismatch', text: line };
  }
  return parseRecord(json);
}

export const isDamaged = (r: RawRecord | DamagedLine): r is DamagedLine => (r as DamagedLine).damaged === true;

/** Looks at a line's JSON as written, before anything is checked or parsed: false leaves the line out. */
export type LineFilter = (json: string) => boolean;

/**
 * Every line of a text (a last line without its newline is a write cut short: reported as damaged
 * too); with `keep`, only the lines it keeps are checked and parsed (the others are not reported,
 * damaged or not).
 */
export function decodeText(text: string, keep?: LineFilter): Array<RawRecord | DamagedLine> {
  const out: Array<RawRecord | DamagedLine> = [];
  for (const line of text.split('\n')) if (line !== '' && (!keep || keep(line.slice(9)))) out.push(decodeLine(line));
  return out;
}

/**
 * As decodeText with `keep`, from a file read piece by piece (`read(into, position)` fills `into`
 * from that byte on, as fs.readSync does, and returns how many bytes it gave; 0 at the end): each
 * line becomes a string of its own and the buffer is reused, so an hour of a busy key (tens of
 * MB) is read for a few lines in constant memory.
 */
export function decodeChunks(
  read: (into: Buffer, position: number) => number,
  keep: LineFilter,
  chunk = 1 << 20,
): Array<RawRecord | DamagedLine> {
  const out: Array<RawRecord | DamagedLine> = [];
  const take = (from: Buffer, start: number, end: number): void => {
    const line = from.toString('utf8', start, end);
    if (keep(line.slice(9))) out.push(decodeLine(line));
  };
  let buf = Buffer.allocUnsafe(chunk);
  let have = 0; // bytes of buf holding the file, from `position - have` on
  for (let position = 0; ; ) {
    if (have === buf.length) buf = Buffer.concat([buf.subarray(0, have)], buf.length * 2); // a line longer than the buffer
    const n = read(buf.subarray(have), position);
    position += n;
    have += n;
    let start = 0;
    for (let nl = buf.indexOf(0x0a, start); nl >= 0 && nl < have; nl = buf.indexOf(0x0a, start)) {
      if (nl > start) take(buf, start, nl);
      start = nl + 1;
    }
    if (n === 0) {
      if (start < have) take(buf, start, have); // a last line without its newline: reported as damaged
      return out;
    }
    buf.copy(buf, 0, start, have);
    have -= start;
  }
}

/**
 * A top-level string field of a line's JSON as written, without parsing it; undefined when it is
 * absent, appears twice, or holds an escape (its text would then differ from its value).
 */
export function rawField(json: string, name: string): string | undefined {
  const tag = `"${name}":"`;
  const at = json.indexOf(tag);
  if (at < 0 || json.includes(tag, at + tag.length)) return undefined;
  const end = json.indexOf('"', at + tag.length);
  if (end < 0) return undefined;
  const value = json.slice(at + tag.length, end);
  return value.includes('\\') ? undefined : value;
}
