// Each row's digest and its occurrence among identical rows: what a row's default Idempotency-Key
// is made of (`PREFIX-<digest>-<occurrence>`, src/client/batch/row-keys.ts), what finds identical
// rows, and how a rerun's pass over the journal finds the row of a key. A digest is two 32-bit
// MurmurHash3-style hashes of the row's checked request with different seeds (the operation mixed
// into both): one hash per row (a SHA-256 per row cost 15 us, more than everything else a row
// needs). Two different requests with the same 64 bits would be refused as identical (nothing
// sent), never the reverse.
//
// Each row's digest is kept by row (two Uint32Arrays over growable SharedArrayBuffers, grown in
// place: 8 bytes a row), with the digest mixed with the occurrence number for a row that repeats an
// earlier one (so a million identical rows, as `--allow-duplicates` sends them, are a million
// entries, not a list to walk). An open-addressing table of row numbers (4 bytes a slot, at most
// half full) finds a digest's row. About 16 MB for a million rows. Shared memory, so the rerun's
// second thread looks keys up in the same bytes; every buffer grows in place (the table is then
// filled again from the rows' digests) because SharedArrayBuffers replaced on each doubling were
// freed late and put a million-row first reading at 151 MiB (plain buffers: 125-129).

/** A 32-bit hash of the text's UTF-16 code units (MurmurHash3's mixing). */
export function hash32(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    let k = Math.imul(text.charCodeAt(i), 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h ^= k;
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  return fmix(h ^ text.length);
}

function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** The seeds of an operation: its name mixed in, so the same text under two operations never shares a digest. */
function seeds(operation: string): [number, number] {
  const op = hash32(operation, 0);
  return [(0x9747b28c ^ op) >>> 0, (0x5bd1e995 ^ fmix(op)) >>> 0];
}

/** The table entry of occurrence `n` (> 1) of a digest. */
const mixHi = (hi: number, n: number): number => fmix(hi ^ Math.imul(n, 0x9e3779b1));
const mixLo = (lo: number, n: number): number => fmix(lo ^ Math.imul(n, 0xc2b2ae35) ^ 0x27d4eb2f);

/** What another thread needs to look rows up (plain data). */
export interface DigestShare {
  table: SharedArrayBuffer;
  hi: SharedArrayBuffer;
  lo: SharedArrayBuffer;
}

/** Finds the row of a (digest, occurrence): the lookup part, shared by the planner's table and another thread's view of it. */
export class DigestLookup {
  protected readonly table: Uint32Array;
  /** by row: its digest (mixed with its occurrence past the first); length-tracking views of growable buffers */
  protected readonly hi: Uint32Array;
  protected readonly lo: Uint32Array;

  constructor(share: DigestShare) {
    this.table = new Uint32Array(share.table);
    this.hi = new Uint32Array(share.hi);
    this.lo = new Uint32Array(share.lo);
  }

  share(): DigestShare {
    return {
      table: this.table.buffer as SharedArrayBuffer,
      hi: this.hi.buffer as SharedArrayBuffer,
      lo: this.lo.buffer as SharedArrayBuffer,
    };
  }

  /** The row whose digest is (hi, lo) at occurrence n, else 0. */
  rowOf(hi: number, lo: number, n: number): number {
    return n === 1 ? this.find(hi, lo) : this.find(mixHi(hi, n), mixLo(lo, n));
  }

  protected slot(hi: number, lo: number, mask: number): number {
    return (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
  }

  protected find(hi: number, lo: number): number {
    const mask = this.table.length - 1;
    for (let i = this.slot(hi, lo, mask), r = this.table[i]!; r !== 0; i = (i + 1) & mask, r = this.table[i]!)
      if (this.hi[r] === hi && this.lo[r] === lo) return r;
    return 0;
  }
}

/** A SharedArrayBuffer that grows in place (ES2024; Node 20 has it, the TypeScript lib in use does not name it). */
interface Growable extends SharedArrayBuffer {
  readonly maxByteLength: number;
  grow(bytes: number): void;
}
const GrowableBuffer = SharedArrayBuffer as unknown as new (bytes: number, opts: { maxByteLength: number }) => Growable;

/** A growable shared buffer of `rows` + 1 Uint32 (row numbers start at 1), able to grow to `maxRows` + 1 in place. */
const perRow = (rows: number, maxRows: number): Growable =>
  new GrowableBuffer(4 * (rows + 1), { maxByteLength: 4 * (Math.max(rows, maxRows) + 1) });

export class RowDigests extends DigestLookup {
  private size = 0;
  private readonly seedHi: number;
  private readonly seedLo: number;
  /** rows so far of each digest seen more than once, by the row of its first occurrence */
  private readonly repeats = new Map<number, number>();
  /** after add(): the row's digest, and the earlier row with the same request (0: none) */
  hi32 = 0;
  lo32 = 0;
  earlier = 0;

  /** `maxRows`: the most rows the file can hold (its size over the shortest row): the address space the per-row arrays may grow into. */
  constructor(operation: string, maxRows: number) {
    const slots = 2 ** Math.ceil(Math.log2(Math.max(1024, 2 * maxRows + 2)));
    super({
      table: new GrowableBuffer(4 * 1024, { maxByteLength: 4 * slots }),
      hi: perRow(1024, maxRows),
      lo: perRow(1024, maxRows),
    });
    [this.seedHi, this.seedLo] = seeds(operation);
  }

  /** Adds row `row` (1, 2, 3... in order) with its request text; returns its occurrence (1 for the first row asking this). */
  add(text: string, row: number): number {
    const hi = (this.hi32 = hash32(text, this.seedHi));
    const lo = (this.lo32 = hash32(text, this.seedLo));
    const first = (this.earlier = this.find(hi, lo));
    const n = first === 0 ? 1 : (this.repeats.get(first) ?? 1) + 1;
    if (n > 1) this.repeats.set(first, n);
    if ((this.size + 1) * 2 > this.table.length) this.grow();
    this.room(row);
    this.hi[row] = n === 1 ? hi : mixHi(hi, n);
    this.lo[row] = n === 1 ? lo : mixLo(lo, n);
    this.put(row);
    this.size++;
    return n;
  }

  /** The first row added with this text, else 0 (nothing added). */
  firstRowOf(text: string): number {
    return this.find(hash32(text, this.seedHi), hash32(text, this.seedLo));
  }

  private room(row: number): void {
    const buf = this.hi.buffer as Growable;
    if (row < this.hi.length) return;
    const bytes = Math.min(buf.maxByteLength, Math.max(4 * (row + 1), buf.byteLength * 2));
    if (bytes < 4 * (row + 1)) throw new Error(`a batch row past the ${buf.maxByteLength / 4 - 1} its file can hold`); // a bug: the bound is the file's size
    buf.grow(bytes);
    (this.lo.buffer as Growable).grow(bytes);
  }

  private put(row: number): void {
    const mask = this.table.length - 1;
    let i = this.slot(this.hi[row]!, this.lo[row]!, mask);
    while (this.table[i] !== 0) i = (i + 1) & mask;
    this.table[i] = row;
  }

  /** Twice the slots, in place (no second table alive meanwhile), the rows put again from their digests. */
  private grow(): void {
    const last = this.hi.length - 1;
    (this.table.buffer as Growable).grow(this.table.byteLength * 2);
    this.table.fill(0);
    for (let row = 1; row <= last; row++) if (this.hi[row] !== 0 || this.lo[row] !== 0) this.put(row); // a row never added is 0, 0 (a digest of 0, 0 is left out: its key then goes the ordinary way)
  }
}
