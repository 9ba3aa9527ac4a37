// A `--batch` rerun's pass over the journal, once per batch: every key bucket that can hold one
// of the batch's keys (`PREFIX-1` to `PREFIX-N`) is read once, each key's sends are judged by the
// money rules (src/client/money-rules.ts) as they stand, and the verdict goes into a fixed-size
// slot per row (src/client/batch/rerun-slots.ts) of a private, already unlinked file, in regions
// of rows (SlotFile). The rows then read their region's slots once: memory does not grow with the
// batch or the journal.
// A slot is only a shortcut: a row with nothing journaled, or whose key's history the slot
// cannot hold, or whose body is not the one the verdict was made for, goes the ordinary way.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyBucketName } from '../journal-store/layout.js';
import type { Journal, JournalEntry } from '../journal.js';
import { normalBase, sendVerdict, type SendTarget } from '../money-rules.js';
import { SLOT_BYTES, decodeSlot, encodeSlot, slotRow, type Slot, type SlotValue } from './rerun-slots.js';

/** What the rows are sent to and with (the batch's credentials): part of an operation's identity. */
export type RerunTarget = Pick<SendTarget, 'baseUrl' | 'mode' | 'keyId'>;

/** Number of key buckets (keyBucketName: 3 hex digits). */
const BUCKETS = 4096;

/** The verdict for a key's sends, for the body they were all sent with. */
export function slotValue(sends: readonly JournalEntry[], key: string, target: RerunTarget, nowMs: number): SlotValue {
  const base = normalBase(target.baseUrl);
  const hashes = new Set<string>();
  for (const e of sends) if (e.mode === target.mode && normalBase(e.base_url) === base) hashes.add(e.body_sha256);
  if (hashes.size === 0) return 'none';
  if (hashes.size > 1) return 'ask';
  const [bodySha256] = hashes as unknown as [string];
  // a literal, not `{ ...target, ... }`: V8 (Node 20) builds a spread followed by more fields some 50 times slower
  const verdict = sendVerdict(sends, { baseUrl: target.baseUrl, mode: target.mode, keyId: target.keyId, idempotencyKey: key, bodySha256, batch: true }, nowMs);
  return verdict.send ? 'none' : { report: verdict.report, bodySha256 };
}

/** Rows per region of the slot file: a region's slots are written together and read together (2 MiB). */
const REGION_ROWS = 16_384;
/** Slots gathered per region before they are written (32 KiB a region). */
const FLUSH_SLOTS = 256;

/**
 * The slots in a private file, in regions of REGION_ROWS rows: the pass finds rows in no order (a
 * bucket's keys are any rows), so each region's slots are gathered in memory and appended to the
 * region's part of the file in batches (a few thousand writes for a million rows, not a million),
 * each slot carrying its row. A region is read back whole when the rows reach it.
 */
class SlotFile {
  private readonly fd = openPrivate();
  private readonly filled: Uint32Array;
  private readonly pending = new Map<number, Buffer>();
  private loaded = -1;
  private readonly raw = Buffer.alloc(REGION_ROWS * SLOT_BYTES);
  private readonly slots = Buffer.alloc(REGION_ROWS * SLOT_BYTES);

  constructor(total: number) {
    this.filled = new Uint32Array(Math.ceil(total / REGION_ROWS));
  }

  /** Row `row`'s slot, encoded by `write` at the given offset of a buffer. */
  put(row: number, write: (buf: Buffer, at: number) => void): void {
    const region = Math.floor((row - 1) / REGION_ROWS);
    let buf = this.pending.get(region);
    if (!buf) this.pending.set(region, (buf = Buffer.alloc(FLUSH_SLOTS * SLOT_BYTES + 4)));
    const count = buf.readUInt32LE(FLUSH_SLOTS * SLOT_BYTES);
    write(buf, count * SLOT_BYTES);
    buf.writeUInt32LE(count + 1, FLUSH_SLOTS * SLOT_BYTES);
    if (count + 1 === FLUSH_SLOTS) this.flush(region, buf);
  }

  /** Everything gathered goes to the file (after the pass). */
  finish(): void {
    for (const [region, buf] of this.pending) this.flush(region, buf);
    this.pending.clear();
  }

  private flush(region: number, buf: Buffer): void {
    const count = buf.readUInt32LE(FLUSH_SLOTS * SLOT_BYTES);
    if (count === 0) return;
    const at = (region * REGION_ROWS + this.filled[region]!) * SLOT_BYTES;
    for (let done = 0; done < count * SLOT_BYTES; ) done += writeSync(this.fd, buf, done, count * SLOT_BYTES - done, at + done);
    this.filled[region]! += count;
    buf.writeUInt32LE(0, FLUSH_SLOTS * SLOT_BYTES);
  }

  /** The region's slots by row (REGION_ROWS of them, zeroed where nothing was found): read once, kept until another region is asked for; the two buffers are reused. */
  region(region: number): Buffer {
    if (this.loaded === region) return this.slots;
    const bytes = (this.filled[region] ?? 0) * SLOT_BYTES;
    for (let got = 0; got < bytes; ) {
      const n = readSync(this.fd, this.raw, got, bytes - got, region * REGION_ROWS * SLOT_BYTES + got);
      if (n === 0) throw new Error('the batch slot file ended early'); // private to this process: a bug
      got += n;
    }
    this.slots.fill(0);
    for (let at = 0; at < bytes; at += SLOT_BYTES) this.raw.copy(this.slots, ((slotRow(this.raw, at) - 1) % REGION_ROWS) * SLOT_BYTES, at, at + SLOT_BYTES);
    this.loaded = region;
    return this.slots;
  }

  close(): void {
    closeSync(this.fd);
  }
}

export class RerunIndex {
  private constructor(
    private readonly slots: SlotFile | undefined,
    private readonly keyPrefix: string,
  ) {}

  /** An index that knows nothing (every row goes the ordinary way). */
  static empty(keyPrefix: string): RerunIndex {
    return new RerunIndex(undefined, keyPrefix);
  }

  /** The pass: reads each key bucket the batch's keys can be in, once. */
  static build(journal: Journal, opts: { keyPrefix: string; total: number; target: RerunTarget; nowMs: number }): RerunIndex {
    const { keyPrefix, total } = opts;
    const existing = journal.keyBuckets();
    if (existing.length === 0 || total === 0) return RerunIndex.empty(keyPrefix);
    const slots = new SlotFile(total);
    try {
      const dash = keyPrefix.length + 1;
      const rowOf = (key: string): number => (key.length > dash && key.startsWith(keyPrefix) && key[dash - 1] === '-' && /^[1-9]\d*$/.test(key.slice(dash)) ? Number(key.slice(dash)) : 0);
      const wanted = (key: string): boolean => {
        const row = rowOf(key);
        return row >= 1 && row <= total;
      };
      journal.scanForBatch(bucketsOf(keyPrefix, total, existing), wanted, (key, sends) => {
        const value = slotValue(sends, key, opts.target, opts.nowMs);
        if (value === 'none') return;
        const row = rowOf(key);
        slots.put(row, (buf, at) => encodeSlot(buf, at, value, row));
      });
      slots.finish();
    } catch (err) {
      slots.close();
      throw err;
    }
    return new RerunIndex(slots, keyPrefix);
  }

  /** The slot of each row, read at `nowMs` (rows asked in ascending order read each region of the file once). */
  read(nowMs: number): (row: number) => Slot {
    const none: Slot = { kind: 'none' };
    const file = this.slots;
    if (file === undefined) return () => none;
    return (row) => {
      const region = Math.floor((row - 1) / REGION_ROWS);
      return decodeSlot(file.region(region), ((row - 1) % REGION_ROWS) * SLOT_BYTES, `${this.keyPrefix}-${row}`, nowMs);
    };
  }

  close(): void {
    this.slots?.close();
  }
}

/** The buckets to read: those on disk that one of the batch's keys hashes to (every one on disk, for a batch of more rows than that takes to find). */
function bucketsOf(keyPrefix: string, total: number, existing: readonly string[]): string[] {
  if (total > 8 * BUCKETS) return [...existing];
  const needed = new Set<string>();
  for (let row = 1; row <= total && needed.size < BUCKETS; row++) needed.add(keyBucketName(`${keyPrefix}-${row}`));
  return existing.filter((b) => needed.has(b));
}

/** A file only this process can reach: created in a private folder, its name removed at once. */
function openPrivate(): number {
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-rerun-'));
  try {
    return openSync(join(dir, 'slots'), 'w+', 0o600);
  } finally {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Windows cannot remove an open file: the temporary folder is the system's to clean
    }
  }
}
