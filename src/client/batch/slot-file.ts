// The slots of a `--batch` rerun (src/client/batch/rerun-slots.ts) in a private file, already
// unlinked, in regions of REGION_ROWS rows. The pass finds rows in no order (a bucket's keys are
// any rows), so each region's slots are gathered in memory and appended to the region's part of
// the file in batches (a few thousand writes for a million rows, not a million), each slot
// carrying its row. A region is read back whole when the rows reach it. The pass may run in two
// threads at once (src/client/batch/rerun-pass.ts): both write through the same descriptor, and
// each batch of slots reserves its place in its region with one atomic add, so they never overlap.
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SLOT_BYTES, slotRow } from './rerun-slots.js';

/** Rows per region of the slot file: a region's slots are written together and read together (2 MiB). */
export const REGION_ROWS = 16_384;
/** Slots gathered per region before they are written (32 KiB a region). */
const FLUSH_SLOTS = 256;

/** What another thread needs to write to the same slot file: its descriptor and the regions' fill counts. */
export interface SlotFileShare {
  fd: number;
  filled: SharedArrayBuffer;
}

export class SlotFile {
  private readonly filled: Int32Array;
  private readonly pending = new Map<number, Buffer>();
  private loaded = -1;
  private raw: Buffer | undefined;
  private slots: Buffer | undefined;

  private constructor(
    private readonly fd: number,
    private readonly shared: SharedArrayBuffer,
    private readonly owner: boolean,
  ) {
    this.filled = new Int32Array(shared);
  }

  /** A new file for `total` rows (this thread owns it: it reads and closes it). */
  static create(total: number): SlotFile {
    return new SlotFile(openPrivate(), new SharedArrayBuffer(4 * Math.max(1, Math.ceil(total / REGION_ROWS))), true);
  }

  /** The same file, written from another thread. */
  static attach(share: SlotFileShare): SlotFile {
    return new SlotFile(share.fd, share.filled, false);
  }

  share(): SlotFileShare {
    return { fd: this.fd, filled: this.shared };
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
    const first = Atomics.add(this.filled, region, count);
    if (first + count > REGION_ROWS) throw new Error('a batch slot region overflowed'); // a row found twice: a bug
    const at = (region * REGION_ROWS + first) * SLOT_BYTES;
    for (let done = 0; done < count * SLOT_BYTES; )
      done += writeSync(this.fd, buf, done, count * SLOT_BYTES - done, at + done);
    buf.writeUInt32LE(0, FLUSH_SLOTS * SLOT_BYTES);
  }

  /** The region's slots by row (REGION_ROWS of them, zeroed where nothing was found): read once, kept until another region is asked for; the two buffers are reused. */
  region(region: number): Buffer {
    this.raw ??= Buffer.alloc(REGION_ROWS * SLOT_BYTES);
    this.slots ??= Buffer.alloc(REGION_ROWS * SLOT_BYTES);
    if (this.loaded === region) return this.slots;
    const bytes = (Atomics.load(this.filled, region) ?? 0) * SLOT_BYTES;
    for (let got = 0; got < bytes; ) {
      const n = readSync(this.fd, this.raw, got, bytes - got, region * REGION_ROWS * SLOT_BYTES + got);
      if (n === 0) throw new Error('the batch slot file ended early'); // private to this process: a bug
      got += n;
    }
    this.slots.fill(0);
    for (let at = 0; at < bytes; at += SLOT_BYTES)
      this.raw.copy(this.slots, ((slotRow(this.raw, at) - 1) % REGION_ROWS) * SLOT_BYTES, at, at + SLOT_BYTES);
    this.loaded = region;
    return this.slots;
  }

  /** Slots written so far (by every thread, once each has finished). */
  count(): number {
    let n = 0;
    for (let r = 0; r < this.filled.length; r++) n += Atomics.load(this.filled, r);
    return n;
  }

  /** Closes the file (its owner only: a thread that attached leaves it open). */
  close(): void {
    if (this.owner) closeSync(this.fd);
  }
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
