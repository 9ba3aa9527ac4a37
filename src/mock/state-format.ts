// The bytes of `--state` files, format 2 (docs/mock-state.md). Every file starts with a header line
// naming the format; every record after it is `CRC32HEX JSON\n`, the checksum over the JSON text.
//   base     FILE              header, then ONE record: the whole state
//   journal  FILE.journal.N    header, then one record per saved batch (an array of changes)
// Reading never guesses: a record that does not verify is damage, reported with the file, the
// line and the byte offset, except what a crash can leave at the END of a journal (batches written
// at once, none acknowledged past the first one missing): an unterminated last line, or a run of
// NUL bytes (a hole a crash left where a batch was not written yet). One changed byte can make
// neither: it cannot add a run of 8 NULs (JSON holds none) and an unterminated last line that
// verifies without its last byte is a damaged newline, reported as damage.
// Format 1 (before checksums): a bare JSON base and bare JSON lines; read strictly, once, then
// rewritten as format 2 (see loadDurableState).
import { crc32 } from 'node:zlib';

export const STATE_FORMAT = 2;
export const BASE_HEADER = `{"format":"cardctl-mock-state","version":${STATE_FORMAT}}`;
export const JOURNAL_HEADER = `{"format":"cardctl-mock-journal","version":${STATE_FORMAT}}`;

const NL = 0x0a;
const HOLE = Buffer.alloc(8); // 8 NUL bytes

export const checksum = (json: string | Buffer): string => crc32(json).toString(16).padStart(8, '0');

/** One record line: checksum, a space, the JSON text, a newline. */
export const recordLine = (json: string): string => `${checksum(json)} ${json}\n`;

export const baseText = (stateJson: string): string => `${BASE_HEADER}\n${recordLine(stateJson)}`;

/** Where a file stops verifying. */
export interface Damage {
  file: string;
  /** 1-based line */
  line: number;
  /** byte offset of that line's first byte */
  offset: number;
  why: string;
}

export const describeDamage = (d: Damage): string => `${d.file}, line ${d.line} (byte ${d.offset}): ${d.why}`;

interface Segment {
  bytes: Buffer;
  offset: number;
  line: number;
  /** ended by a newline */
  terminated: boolean;
}

function* segments(buf: Buffer): Generator<Segment> {
  let start = 0;
  let line = 1;
  while (start < buf.length) {
    const nl = buf.indexOf(NL, start);
    const end = nl === -1 ? buf.length : nl;
    yield { bytes: buf.subarray(start, end), offset: start, line, terminated: nl !== -1 };
    start = end + 1;
    line++;
  }
}

/** The JSON of a record line, or why not. */
function verify(bytes: Buffer): { json: string } | { why: string } {
  if (bytes.length < 10 || bytes[8] !== 0x20) return { why: 'not a checksummed record' };
  const sum = bytes.subarray(0, 8).toString('latin1');
  const body = bytes.subarray(9);
  if (!/^[0-9a-f]{8}$/.test(sum)) return { why: 'not a checksummed record' };
  if (checksum(body) !== sum) return { why: 'the checksum does not match the record' };
  return { json: body.toString('utf8') };
}

export interface JournalRead {
  batches: unknown[];
  /** damage that was not a crash's tail; the batches are those before it */
  damage: Damage | null;
  /** bytes of the file that verified (header and whole batches) */
  goodBytes: number;
}

/** A format-2 journal: its batches up to the first line that does not verify. */
export function readJournal(file: string, buf: Buffer): JournalRead {
  const batches: unknown[] = [];
  let goodBytes = 0;
  for (const seg of segments(buf)) {
    const damage = (why: string): JournalRead => ({
      batches,
      damage: { file, line: seg.line, offset: seg.offset, why },
      goodBytes,
    });
    if (seg.line === 1) {
      if (seg.bytes.toString('latin1') === JOURNAL_HEADER && seg.terminated) {
        goodBytes = seg.offset + seg.bytes.length + 1;
        continue;
      }
      // a crash between creating the journal and its header: a prefix of the header, nothing else
      if (!seg.terminated && JOURNAL_HEADER.startsWith(seg.bytes.toString('latin1')))
        return { batches, damage: null, goodBytes };
      return damage('not a cardctl mock journal header (format 2)');
    }
    const v = verify(seg.bytes);
    if ('json' in v) {
      let batch: unknown;
      try {
        batch = JSON.parse(v.json);
      } catch {
        return damage('the record is not JSON');
      }
      if (!Array.isArray(batch)) return damage('the record is not a batch of changes');
      if (!seg.terminated) return damage('the line has lost its newline');
      batches.push(batch);
      goodBytes = seg.offset + seg.bytes.length + 1;
      continue;
    }
    // what a crash can leave at the end: nothing after it was acknowledged
    if (seg.bytes.includes(HOLE)) return { batches, damage: null, goodBytes };
    if (!seg.terminated) {
      const withoutLast = seg.bytes.subarray(0, seg.bytes.length - 1);
      if (seg.bytes.length > 1 && 'json' in verify(withoutLast)) return damage('the line has lost its newline');
      return { batches, damage: null, goodBytes };
    }
    return damage(v.why);
  }
  return { batches, damage: null, goodBytes };
}

/** A format-2 base: the state's JSON text, or the damage. */
export function readBase(file: string, buf: Buffer): { json: string } | { damage: Damage } {
  const segs = [...segments(buf)];
  const at = (i: number, why: string): { damage: Damage } => {
    const s = segs[i];
    return { damage: { file, line: i + 1, offset: s ? s.offset : buf.length, why } };
  };
  if (segs[0]?.bytes.toString('latin1') !== BASE_HEADER || !segs[0].terminated)
    return at(0, 'not a cardctl mock state header (format 2)');
  const rec = segs[1];
  if (!rec) return at(1, 'the state record is missing (cut short)');
  const v = verify(rec.bytes);
  if ('why' in v) return at(1, v.why);
  if (!rec.terminated) return at(1, 'the line has lost its newline');
  if (segs.length > 2) return at(2, 'unexpected bytes after the state record');
  return { json: v.json };
}

/** True when the file starts like a format-2 base (else it may be format 1, a bare JSON object). */
export const looksLikeFormat2 = (buf: Buffer): boolean =>
  buf.subarray(0, 12).toString('latin1') === BASE_HEADER.slice(0, 12);
export const journalLooksLikeFormat2 = (buf: Buffer): boolean =>
  buf.length === 0 || buf.subarray(0, 12).toString('latin1') === JOURNAL_HEADER.slice(0, 12);

/**
 * A format-1 journal (bare JSON lines), read strictly: every line must be a batch, except an
 * unterminated last line (a crash's tail). Used once, to migrate.
 */
export function readJournalV1(file: string, buf: Buffer): JournalRead {
  const batches: unknown[] = [];
  let goodBytes = 0;
  for (const seg of segments(buf)) {
    if (seg.bytes.length === 0) continue;
    let batch: unknown = null;
    try {
      batch = JSON.parse(seg.bytes.toString('utf8'));
    } catch {
      // not JSON
    }
    if (Array.isArray(batch) && seg.terminated) {
      batches.push(batch);
      goodBytes = seg.offset + seg.bytes.length + 1;
      continue;
    }
    if ((!seg.terminated && !Array.isArray(batch)) || seg.bytes.includes(HOLE))
      return { batches, damage: null, goodBytes };
    return {
      batches,
      damage: { file, line: seg.line, offset: seg.offset, why: 'not a batch of changes (format 1, before checksums)' },
      goodBytes,
    };
  }
  return { batches, damage: null, goodBytes };
}
