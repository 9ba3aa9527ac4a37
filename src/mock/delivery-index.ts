// Which webhook deliveries need looking at, without scanning the delivery log: the ids still
// pending (the only ones an attempt can fall due for) and the finished ones ordered by when the
// spec's 30 days of history run out. Kept per plain state object, so that a reset, a snapshot
// restore or a load (a new state object) gets a fresh index, built by one scan on first use.
import { Heap } from './heap.js';
import type { DeliveryRec, MockState } from './state.js';

/** Spec: "delivery records and payloads pruned after 30 days" (simulated time, finished ones only). */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

/** When a finished delivery's history began to run out: its last attempt (or its creation, if it had none). */
export const lastActivity = (d: DeliveryRec): number => d.attempts.at(-1)?.at ?? d.created_at;

export class DeliveryIndex {
  /** ids of the deliveries still pending */
  readonly pending = new Set<string>();
  /** finished deliveries by the simulated time their history expires */
  private readonly expiry = new Heap<[number, string]>((a, b) => a[0] < b[0]);

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
