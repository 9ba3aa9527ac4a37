// Identical rows of a batch, found in a set of 64-bit digests (two Uint32Arrays and the row that
// gave each digest): 12 bytes a row at most, about 24 MB for a million rows, where a Set of
// strings would take several times that. A digest is the first 8 bytes of a SHA-256.
import { createHash } from 'node:crypto';

export class RowDigests {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private rows = new Uint32Array(1024);
  private size = 0;

  /** Adds the row's text; the earlier row with the same text, or 0. */
  add(text: string, row: number): number {
    const d = createHash('sha256').update(text).digest();
    const hi = d.readUInt32BE(0);
    const lo = d.readUInt32BE(4);
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
