// Webhook endpoints (register, re-enable, delete) and the delivery log.
import { ok, validation, type Reply } from '../envelope.js';
import { isReply } from '../pagination.js';
import { newId, cryptoRandom } from '../random.js';
import { endpointView, removeEndpoint } from '../webhooks.js';
import { DELIVERY_STATES, type DeliveryFilter } from '../delivery-port.js';
import { endpointUrlVerdict } from '../endpoint-url.js';
import { merchantOf, notFoundThing, type ControlRequest } from './request.js';

export const listEndpoints = ({ rt }: ControlRequest): Reply => ok(Object.values(rt.state.endpoints).map(endpointView));

/** Registration: the rules of endpoint-url.ts, the host resolved; the normalized URL is the one stored. */
export async function addEndpoint({ rt, body }: ControlRequest): Promise<Reply> {
  const verdict = await endpointUrlVerdict(body.url, rt.options.lookup);
  if (!verdict.ok) return validation({ url: [verdict.problem] });
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const now = rt.now();
  const ep = { id: newId(cryptoRandom, now), merchant_id: merchant, url: verdict.url, created_at: now };
  rt.state.endpoints[ep.id] = ep;
  rt.markDirty();
  return ok(endpointView(ep), 201);
}

/** Spec: a disabled endpoint is "re-enabled in the portal"; here, by this call. Held deliveries go out at once. */
export function enableEndpoint({ rt, params }: ControlRequest): Reply {
  if (!Object.hasOwn(rt.state.endpoints, params[0]!)) return notFoundThing('Webhook endpoint');
  const ep = rt.deliveries.enable(params[0]!) ?? rt.state.endpoints[params[0]!]!;
  return ok(endpointView(ep));
}

export function deleteEndpoint({ rt, params }: ControlRequest): Reply {
  const ep = Object.hasOwn(rt.state.endpoints, params[0]!) ? removeEndpoint(rt, params[0]!) : null;
  return ep ? ok(endpointView(ep)) : notFoundThing('Webhook endpoint');
}

/** The delivery log, oldest first, narrowed by `event_id`, `endpoint_id`, `merchant_id`, `state`. */
export function listDeliveries({ rt, query }: ControlRequest): Reply {
  const state = query.get('state');
  if (state && !(DELIVERY_STATES as readonly string[]).includes(state))
    return validation({ state: [`The state must be one of ${DELIVERY_STATES.join(', ')}.`] });
  const filter: DeliveryFilter = { state: (state || undefined) as DeliveryFilter['state'] };
  for (const field of ['event_id', 'endpoint_id', 'merchant_id'] as const)
    filter[field] = query.get(field) || undefined;
  return ok(rt.deliveries.log(filter));
}
