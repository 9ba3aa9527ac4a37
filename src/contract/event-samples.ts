// Realistic `data` for each of the spec's 12 event types (spec "Event types"): the shapes the
// mock sends. Shared by the mock (`mock events emit TYPE` without --data) and by `webhooks
// test` (one delivery of each type), so both always agree with the event table. Ids come from
// the caller (ULIDs in both), so this module imports nothing of the project.
import type { EventType } from './resources.js';

export function sampleEventData(type: EventType | string, newId: () => string): Record<string, unknown> {
  if (type.startsWith('customer.kyc.')) {
    const status = type.slice('customer.kyc.'.length);
    return {
      customer_id: newId(),
      kyc_status: status,
      ...(status === 'rejected' ? { reason: 'identity_mismatch' } : {}),
    };
  }
  if (type === 'card.issued') return { card_id: newId() };
  if (type === 'card.terminated') return { card_id: newId(), refunded_amount_minor: 0 };
  if (type === 'deposit.credited') return { deposit_id: newId(), credited_amount_minor: 10_000 };
  const data: Record<string, unknown> = { withdrawal_id: newId(), amount_minor: 10_000 };
  if (type === 'withdrawal.requested') data.fee_minor = 100;
  if (type === 'withdrawal.completed') Object.assign(data, { fee_minor: 100, net_amount_minor: 9_900 });
  return data;
}
