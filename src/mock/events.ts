// The event log. Each state change the spec's event table names is recorded here, in order;
// delivery to webhook endpoints subscribes through `onEvent` (the seam for the delivery module).
import { newId, cryptoRandom } from './random.js';
import { nextSeq, type EventRec, type MockState, type Mode } from './state.js';
import { isoTime } from './clock.js';

export type EventListener = (event: EventRec, state: MockState) => void;

export class EventLog {
  private readonly listeners = new Set<EventListener>();

  constructor(
    private readonly getState: () => MockState,
    private readonly now: () => number,
  ) {}

  /** Subscribe (webhook delivery); returns the unsubscribe function. */
  onEvent(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  record(merchantId: string, mode: Mode, type: string, data: Record<string, unknown>): EventRec {
    const state = this.getState();
    const at = this.now();
    const event: EventRec = {
      id: newId(cryptoRandom, at),
      seq: nextSeq(state),
      merchant_id: merchantId,
      mode,
      type,
      occurred_at: at,
      data,
    };
    state.events.push(event);
    for (const l of this.listeners) {
      try {
        l(event, state);
      } catch {
        // a failing subscriber never breaks the operation that emitted the event
      }
    }
    return event;
  }
}

/** The control plane's and the future webhook body's view of an event. */
export function eventView(e: EventRec): Record<string, unknown> {
  return {
    id: e.id,
    merchant_id: e.merchant_id,
    mode: e.mode,
    type: e.type,
    occurred_at: isoTime(e.occurred_at),
    data: e.data,
  };
}
