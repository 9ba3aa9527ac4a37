// Events: list what was recorded, emit one (with sample data when none is given).
import { EVENT_TYPES } from '../../contract/resources.js';
import { ok, type Reply } from '../envelope.js';
import { isReply } from '../pagination.js';
import { eventView } from '../events.js';
import { newId, cryptoRandom } from '../random.js';
import { MODES, type Mode } from '../state.js';
import { Input, merchantOf, type ControlRequest } from './request.js';

/** Sample data for a triggered event, so that `mock events emit TYPE` needs nothing else. */
function sampleData(type: string): Record<string, unknown> {
  const id = () => newId(cryptoRandom, Date.now());
  if (type.startsWith('customer.kyc.')) {
    const status = type.slice('customer.kyc.'.length);
    return { customer_id: id(), kyc_status: status, ...(status === 'rejected' ? { reason: 'identity_mismatch' } : {}) };
  }
  if (type === 'card.issued') return { card_id: id() };
  if (type === 'card.terminated') return { card_id: id(), refunded_amount_minor: 0 };
  if (type === 'deposit.credited') return { deposit_id: id(), credited_amount_minor: 10_000 };
  const data: Record<string, unknown> = { withdrawal_id: id(), amount_minor: 10_000 };
  if (type === 'withdrawal.requested') data.fee_minor = 100;
  if (type === 'withdrawal.completed') Object.assign(data, { fee_minor: 100, net_amount_minor: 9_900 });
  return data;
}

export function emitEvent({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const type = input.oneOf('type', EVENT_TYPES);
  const mode = input.oneOf<Mode>('mode', MODES, 'test');
  if (input.has('data') && (typeof body.data !== 'object' || Array.isArray(body.data))) input.add('data', 'The data must be a JSON object.');
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const data = input.has('data') ? (body.data as Record<string, unknown>) : sampleData(type!);
  const e = rt.events.record(merchant, mode!, type!, data);
  rt.markDirty();
  return ok(eventView(e), 201);
}

export function listEvents({ rt, query }: ControlRequest): Reply {
  const merchant = query.get('merchant_id');
  const type = query.get('type');
  return ok(rt.state.events.filter((e) => (!merchant || e.merchant_id === merchant) && (!type || e.type === type)).map(eventView));
}
