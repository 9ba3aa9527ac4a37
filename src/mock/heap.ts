// A binary heap: the item for which `first(item, other)` holds against every other comes out first.
// Used for what falls due in time order (delivery history) and for the rows of a list page.
export class Heap<T> {
  private readonly items: T[] = [];

  constructor(private readonly first: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    for (let i = a.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!this.first(a[i]!, a[parent]!)) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) this.replaceTop(last);
    return top;
  }

  /** Puts `item` in the top's place and restores the order (a pop and a push in one pass). */
  replaceTop(item: T): void {
    const a = this.items;
    a[0] = item;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && this.first(a[l]!, a[m]!)) m = l;
      if (r < a.length && this.first(a[r]!, a[m]!)) m = r;
      if (m === i) return;
      [a[m], a[i]] = [a[i]!, a[m]!];
      i = m;
    }
  }

  /** The items, in no particular order. */
  toArray(): T[] {
    return [...this.items];
  }
}
