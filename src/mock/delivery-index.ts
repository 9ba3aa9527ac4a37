// Which webhook deliveries need looking at, without scanning the delivery log: the ids still
// pending (the only ones an attempt can fall due for) and the finished ones ordered by when the
// spec's 30 days of history run out. Kept per plain state object, so that a reset, a snapshot
// restore or a load (a new state object) gets a fresh index, built by one scan on first use.
import type { DeliveryRec, MockState } from './state.js';

/** Spec: "delivery records and payloads pruned after 30 days" (simulated time, finished ones only). */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

/** When a finished delivery's history began to run out: its last attempt (or its creation, if it had none). */
export const lastActivity = (d: DeliveryRec): number => d.attempts.at(-1)?.at ?? d.created_at;

/** A binary min-heap of [time, id]. */
class TimeHeap {
  private readonly items: Array<[number, string]> = [];

  push(item: [number, string]): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]![0] <= a[i]![0]) break;
      [a[parent], a[i]] = [a[i]!, a[parent]!];
      i = parent;
    }
  }

  peek(): [number, string] | undefined {
    return this.items[0];
  }

  pop(): void {
    const a = this.items;
    const last = a.pop()!;
    if (a.length === 0) return;
    a[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < a.length && a[l]![0] < a[m]![0]) m = l;
      if (r < a.length && a[r]![0] < a[m]![0]) m = r;
      if (m === i) return;
      [a[m], a[i]] = [a[i]!, a[m]!];
      i = m;
    }
  }
}

export class DeliveryIndex {
  /** ids of the deliveries still pending */
  readonly pending = new Set<string>();
  /** finished deliveries by the simulated time their history expires */
  private readonly expiry = new TimeHeap();

  static build(deliveries: Record<string, DeliveryRec>): DeliveryIndex {
    const index = new DeliveryIndex();
    for (const d of Object.values(deliveries)) {
      if (d.state === 'pending') index.pending.add(d.id);
      else index.finished(d);
    }
    return index;
  }

  /** A delivery left `pending` (succeeded or dead): its history runs out 30 days after its last activity. */
  finished(d: DeliveryRec): void {
    this.pending.delete(d.id);
    this.expiry.push([lastActivity(d) + DELIVERY_RETENTION_MS, d.id]);
  }

  /** Deletes the finished deliveries whose 30 days ran out by `now`; true when one was deleted. Costs what it deletes. */
  prune(deliveries: Record<string, DeliveryRec>, now: number): boolean {
    let pruned = false;
    for (let top = this.expiry.peek(); top && top[0] < now; top = this.expiry.peek()) {
      this.expiry.pop();
      const d = Object.hasOwn(deliveries, top[1]) ? deliveries[top[1]] : undefined;
      // gone already, or not the same history any more (queued again under its newer time)
      if (!d || d.state === 'pending' || lastActivity(d) + DELIVERY_RETENTION_MS !== top[0]) continue;
      delete deliveries[top[1]];
      pruned = true;
    }
    return pruned;
  }
}

const indexes = new WeakMap<MockState, DeliveryIndex>();

/** The index of this plain state's deliveries (built by one scan the first time). */
export function deliveryIndexOf(plain: MockState): DeliveryIndex {
  let index = indexes.get(plain);
  if (!index) indexes.set(plain, (index = DeliveryIndex.build(plain.deliveries ?? {})));
  return index;
}
