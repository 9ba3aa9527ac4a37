// The whole state: a summary of what it holds, and a reset to the start.
import { ok, type Reply } from '../envelope.js';
import type { Runtime } from '../runtime.js';
import type { ControlRequest } from './request.js';

function summary(rt: Runtime): Record<string, unknown> {
  const s = rt.state;
  const count = (o: object) => Object.keys(o).length;
  return {
    merchants: count(s.merchants),
    keys: count(s.keys),
    customers: count(s.customers),
    cards: count(s.cards),
    transactions: Object.values(s.transactions).reduce((n, list) => n + list.length, 0),
    deposit_addresses: count(s.addresses),
    deposits: count(s.deposits),
    events: s.events.length,
    webhook_endpoints: count(s.endpoints),
    webhook_deliveries: count(s.deliveries ?? {}),
    idempotency_keys: count(s.idempotency),
    faults: s.faults.length,
    withdrawals: s.withdrawals,
    networks: s.networks,
    seed: s.seed,
    clock: rt.clock.view(),
  };
}

export const readState = ({ rt }: ControlRequest): Reply => ok(summary(rt));

export function resetState({ rt }: ControlRequest): Reply {
  rt.reset();
  return ok(summary(rt));
}
