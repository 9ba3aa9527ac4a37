// Events: list what was recorded, emit one (with sample data when none is given).
import { EVENT_TYPES } from '../../contract/resources.js';
import { sampleEventData } from '../../contract/event-samples.js'; // shared with `webhooks test`
import { ok, type Reply } from '../envelope.js';
import { isReply } from '../pagination.js';
import { eventView } from '../events.js';
import { newId, cryptoRandom } from '../random.js';
import { MODES, type Mode } from '../state.js';
import { Input, merchantOf, type ControlRequest } from './request.js';

export function emitEvent({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const type = input.oneOf('type', EVENT_TYPES);
  const mode = input.oneOf<Mode>('mode', MODES, 'test');
  if (input.has('data') && (typeof body.data !== 'object' || Array.isArray(body.data)))
    input.add('data', 'The data must be a JSON object.');
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const data = input.has('data')
    ? (body.data as Record<string, unknown>)
    : sampleEventData(type!, () => newId(cryptoRandom, Date.now()));
  const e = rt.events.record(merchant, mode!, type!, data);
  rt.markDirty();
  return ok(eventView(e), 201);
}

export function listEvents({ rt, query }: ControlRequest): Reply {
  const merchant = query.get('merchant_id');
  const type = query.get('type');
  return ok(
    rt.state.events
      .filter((e) => (!merchant || e.merchant_id === merchant) && (!type || e.type === type))
      .map(eventView),
  );
}
