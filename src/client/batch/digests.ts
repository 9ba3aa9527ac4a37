// Identical rows of a batch, found in a set of 64-bit digests (two Uint32Arrays and the row that
// gave each digest): 12 bytes a row at most, about 24 MB for a million rows, where a Set of
// strings would take several times that. A digest is two 32-bit MurmurHash3-style hashes with
// different seeds (a SHA-256 per row cost 15 us, more than everything else a row needs): two
// different rows with the same 64 bits would be refused as identical (nothing is sent), never
// the reverse.

/** A 32-bit hash of the text's UTF-16 code units (MurmurHash3's mixing). */
function hash32(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) {
    let k = Math.imul(text.charCodeAt(i), 0xcc9e2d51);
    k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
    h ^= k;
    h = Math.imul((h << 13) | (h >>> 19), 5) + 0xe6546b64;
  }
  h ^= text.length;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export class RowDigests {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private rows = new Uint32Array(1024);
  private size = 0;

  /** Adds the row's text; the earlier row with the same text, or 0. */
  add(text: string, row: number): number {
    const hi = hash32(text, 0x9747b28c);
    const lo = hash32(text, 0x5bd1e995);
    const earlier = this.find(hi, lo);
    if (earlier) return earlier;
    if ((this.size + 1) * 2 > this.rows.length) this.grow();
    this.put(hi, lo, row);
    this.size++;
    return 0;
  }

  private slot(hi: number, lo: number, mask: number): number {
    return (lo ^ Math.imul(hi, 0x9e3779b1)) & mask;
  }

  private find(hi: number, lo: number): number {
    const mask = this.rows.length - 1;
    for (let i = this.slot(hi, lo, mask); this.rows[i] !== 0; i = (i + 1) & mask) if (this.hi[i] === hi && this.lo[i] === lo) return this.rows[i]!;
    return 0;
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
    this.hi = new Uint32Array(rows.length * 2);
    this.lo = new Uint32Array(rows.length * 2);
    this.rows = new Uint32Array(rows.length * 2);
    for (let i = 0; i < rows.length; i++) if (rows[i] !== 0) this.put(hi[i]!, lo[i]!, rows[i]!);
  }
}
