// What the runtime needs of webhook delivery, and nothing more: the runtime receives one of these
// at construction (webhooks.ts implements it), so neither reaches into the other. Before, the
// delivery manager overwrote slots on the runtime and the control plane found it through a
// module-level WeakMap.
import type { EndpointRec } from './state.js';

export const DELIVERY_STATES = ['pending', 'succeeded', 'dead'] as const;

export interface DeliveryFilter {
  event_id?: string;
  endpoint_id?: string;
  merchant_id?: string;
  state?: (typeof DELIVERY_STATES)[number];
}

export interface Deliveries {
  /** starts delivering: subscribes to recorded events, sends what is pending (once the server listens) */
  start(): void;
  /** sends the deliveries that fell due; true when something changed */
  kick(): boolean;
  /** the delivery log, oldest first, narrowed by every field given */
  log(filter?: DeliveryFilter): Record<string, unknown>[];
  /** re-enables a disabled endpoint (its held deliveries become due at once); null when there is none */
  enable(endpointId: string): EndpointRec | null;
  /** runs `run` (which brings things due) and waits, bounded, for the webhook attempts it started */
  runAndSettle(run: () => void): Promise<void>;
  /** stops timers and aborts attempts in flight (they stay pending in the state) */
  close(): void;
}

/** No webhook delivery (a runtime built without one). */
export const NO_DELIVERIES: Deliveries = {
  start: () => {},
  kick: () => false,
  log: () => [],
  enable: () => null,
  runAndSettle: (run) => {
    run();
    return Promise.resolve();
  },
  close: () => {},
};
