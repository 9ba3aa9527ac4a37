// Each row's digest and its occurrence among identical rows: what a row's default Idempotency-Key
// is made of (`PREFIX-<digest>-<occurrence>`, src/client/batch/row-keys.ts), what finds identical
// rows, and how a rerun's pass over the journal finds the row of a key. A digest is two 32-bit
// MurmurHash3-style hashes of the row's checked request with different seeds (the operation mixed
// into both): one hash per row (a SHA-256 per row cost 15 us, more than everything else a row
// needs). Two different requests with the same 64 bits would be refused as identical (nothing
// sent), never the reverse.
//
// The table holds one entry per row: a row's own digest for its first occurrence, the digest mixed
// with the occurrence number for the later ones (so a million identical rows, as
// `--allow-duplicates` sends them, are a million entries, not a list to walk). 12 bytes a row at
// most: about 24 MB for a million rows. Its arrays are SharedArrayBuffers: the rerun's second
// thread looks keys up in the same memory.

/** A 32-bit hash of the text's UTF-16 code units (MurmurHash3's mixing). */
function hash32(text: string, seed: number): number {
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
  hi: SharedArrayBuffer;
  lo: SharedArrayBuffer;
  rows: SharedArrayBuffer;
}

/** Finds the row of a (digest, occurrence): the lookup part, shared by the planner's table and another thread's view of it. */
export class DigestLookup {
  protected hi: Uint32Array;
  protected lo: Uint32Array;
  protected rows: Uint32Array;

  constructor(share: DigestShare) {
    this.hi = new Uint32Array(share.hi);
    this.lo = new Uint32Array(share.lo);
    this.rows = new Uint32Array(share.rows);
  }

  share(): DigestShare {
    return { hi: this.hi.buffer as SharedArrayBuffer, lo: this.lo.buffer as SharedArrayBuffer, rows: this.rows.buffer as SharedArrayBuffer };
  }

  /** The row whose digest is (hi, lo) at occurrence n, else 0. */
  rowOf(hi: number, lo: number, n: number): number {
    return n === 1 ? this.find(hi, lo) : this.find(mixHi(hi, n), mixLo(lo, n));
  }

  protected slot(hi: number, lo: number, mask: number): number {
    return (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
  }

  protected find(hi: number, lo: number): number {
    const mask = this.rows.length - 1;
    for (let i = this.slot(hi, lo, mask); this.rows[i] !== 0; i = (i + 1) & mask) if (this.hi[i] === hi && this.lo[i] === lo) return this.rows[i]!;
    return 0;
  }
}

const shared = (n: number): SharedArrayBuffer => new SharedArrayBuffer(4 * n);

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

  constructor(operation: string) {
    super({ hi: shared(1024), lo: shared(1024), rows: shared(1024) });
    [this.seedHi, this.seedLo] = seeds(operation);
  }

  /** Adds a row's request text; returns its occurrence (1 for the first row asking this). */
  add(text: string, row: number): number {
    const hi = (this.hi32 = hash32(text, this.seedHi));
    const lo = (this.lo32 = hash32(text, this.seedLo));
    const first = (this.earlier = this.find(hi, lo));
    const n = first === 0 ? 1 : (this.repeats.get(first) ?? 1) + 1;
    if (n > 1) this.repeats.set(first, n);
    if ((this.size + 1) * 2 > this.rows.length) this.grow();
    if (n === 1) this.put(hi, lo, row);
    else this.put(mixHi(hi, n), mixLo(lo, n), row);
    this.size++;
    return n;
  }

  /** The first row added with this text, else 0 (nothing added). */
  firstRowOf(text: string): number {
    return this.find(hash32(text, this.seedHi), hash32(text, this.seedLo));
  }

  private put(hi: number, lo: number, row: number): void {
    const mask = this.rows.length - 1;
    let i = this.slot(hi, lo, mask);
    while (this.rows[i] !== 0) i = (i + 1) & mask;
    this.hi[i] = hi;
    this.lo[i] = lo;
    this.rows[i] = row;
  }

  private grow(): void {
    const { hi, lo, rows } = this;
    const n = rows.length * 2;
    this.hi = new Uint32Array(shared(n));
    this.lo = new Uint32Array(shared(n));
    this.rows = new Uint32Array(shared(n));
    for (let i = 0; i < rows.length; i++) if (rows[i] !== 0) this.put(hi[i]!, lo[i]!, rows[i]!);
  }
}
