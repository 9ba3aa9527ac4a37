// What a takeover of an older journal has taken already, kept in typed arrays (a million
// operations' records in a few tens of MiB, never a million strings):
// - SeenRecords: the second copy of a record (the older folder journal kept every record twice: in
//   its key's bucket and in its hour's segment) recognised by its bytes before it is decoded. A
//   record is known by its operation id, its length and its CRC-32 (the one its line carries,
//   already checked): the same op id, length and CRC-32 are the same record unless two records of
//   one operation collide in 32 bits of CRC (and a copy matters only where the other was lost).
// - OpIds: the ids of the operations written, exactly (the takeover loads the table without its
//   unique index, and an operation read twice is kept once).

/** A set of pairs of 32-bit numbers, open-addressed, doubling at half full; the pair (0, 0) is never added (0 marks an empty slot). */
class PairSet {
  private slots = new Uint32Array(2 << 16);
  private count = 0;

  has(a: number, b: number): boolean {
    return this.find(a >>> 0, b >>> 0) >= 0;
  }

  /** Returns whether it was new. */
  add(a: number, b: number): boolean {
    if (this.find(a >>> 0, b >>> 0) >= 0) return false;
    if ((this.count + 1) * 4 > this.slots.length) this.grow();
    this.place(a >>> 0, b >>> 0);
    this.count++;
    return true;
  }

  private find(a: number, b: number): number {
    const mask = (this.slots.length >> 1) - 1;
    for (let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask; ; i = (i + 1) & mask) {
      const x = this.slots[2 * i]!;
      const y = this.slots[2 * i + 1]!;
      if (x === 0 && y === 0) return -1;
      if (x === a && y === b) return i;
    }
  }

  private place(a: number, b: number): void {
    const mask = (this.slots.length >> 1) - 1;
    let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask;
    while (this.slots[2 * i] !== 0 || this.slots[2 * i + 1] !== 0) i = (i + 1) & mask;
    this.slots[2 * i] = a;
    this.slots[2 * i + 1] = b;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i += 2) if (old[i] !== 0 || old[i + 1] !== 0) this.place(old[i]!, old[i + 1]!);
  }
}

/** FNV-1a of the bytes, seeded with `seed`; never 0. */
function fnv(buf: Buffer, start: number, end: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193) >>> 0;
  return h === 0 ? 1 : h;
}

const ID_FIELD = Buffer.from('"id":"');

/** Where the record's operation id is in its JSON (the first `"id":"` of its first 200 bytes: every record names it near its start), or undefined. */
function idSpan(buf: Buffer, start: number, end: number): [number, number] | undefined {
  const at = buf.indexOf(ID_FIELD, start);
  if (at === -1 || at >= Math.min(end, start + 200)) return undefined;
  const from = at + ID_FIELD.length;
  const to = buf.indexOf(0x22, from);
  return to === -1 || to > end || to - from > 80 ? undefined : [from, to];
}

export class SeenRecords {
  private readonly pairs = new PairSet();

  /** Whether this record (its JSON's bytes and CRC-32) was added; one that names no op id is never seen (it is decoded every time). */
  has(buf: Buffer, start: number, end: number, crc: number): boolean {
    const id = idSpan(buf, start, end);
    return id !== undefined && this.pairs.has(fnv(buf, id[0], id[1], end - start), crc);
  }

  add(buf: Buffer, start: number, end: number, crc: number): void {
    const id = idSpan(buf, start, end);
    if (id) this.pairs.add(fnv(buf, id[0], id[1], end - start), crc);
  }
}

/** cardctl's operation ids: `op_` and 12 hex digits (48 bits: kept as two numbers); any other id is kept as its text. */
const HEX_ID = /^op_[0-9a-f]{12}$/;

export class OpIds {
  private readonly hex = new PairSet();
  private readonly other = new Set<string>();

  has(id: string): boolean {
    return HEX_ID.test(id) ? this.hex.has(...OpIds.pair(id)) : this.other.has(id);
  }

  add(id: string): void {
    if (HEX_ID.test(id)) this.hex.add(...OpIds.pair(id));
    else this.other.add(id);
  }

  /** The id's 48 bits as (high 16 bits + 1, low 32 bits): never (0, 0). */
  private static pair(id: string): [number, number] {
    return [Number.parseInt(id.slice(3, 7), 16) + 1, Number.parseInt(id.slice(7), 16)];
  }
}
