// The platform's catalog: card products and deposit networks (the same for every merchant).
import { fail, ok, validation, type ErrorMap, type Reply } from '../envelope.js';
import { Input, type ControlRequest } from './request.js';

export const listProducts = ({ rt }: ControlRequest): Reply => ok(rt.state.products.map((p) => ({ ...p })));

/**
 * Product switches (the platform's configuration, same for every merchant): `default`,
 * `enabled`, `available`. Making one the default clears it on the others; clearing the default
 * of every product is how `product: [no_default]` is reached.
 */
export function patchProduct({ rt, params, body }: ControlRequest): Reply {
  const product = rt.state.products.find((p) => p.id === params[0]);
  if (!product) return fail(404, 'Product not found.');
  const errors: ErrorMap = {};
  const flags: Partial<Record<'default' | 'enabled' | 'available', boolean>> = {};
  for (const field of ['default', 'enabled', 'available'] as const) {
    const v = body[field];
    if (v === undefined) continue;
    if (typeof v !== 'boolean') errors[field] = [`The ${field} must be true or false.`];
    else flags[field] = v;
  }
  if (Object.keys(errors).length) return validation(errors);
  if (flags.default) for (const p of rt.state.products) p.default = false;
  Object.assign(product, flags);
  rt.markDirty();
  return ok({ ...product });
}

export const listNetworks = ({ rt }: ControlRequest): Reply => ok({ enabled: rt.state.networks });

export function setNetworks({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const list = input.stringList(
    'enabled',
    (s) => /^[a-z0-9_-]{1,32}$/.test(s),
    'must be a list of network names such as trc20.',
  );
  if (list === undefined && !input.errors.enabled)
    input.add('enabled', 'The enabled list is required (it may be empty).');
  const bad = input.fail();
  if (bad) return bad;
  const enabled = [...new Set(list!)].sort();
  rt.state.networks = enabled;
  rt.state.known_networks = [...new Set([...rt.state.known_networks, ...enabled])].sort();
  rt.markDirty();
  return ok({ enabled });
}
