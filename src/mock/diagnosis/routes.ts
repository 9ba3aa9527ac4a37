// Diagnoses of a 404: an unknown route (and the nearest known one: another method, the path
// without /api/v1, a trailing slash, a typo), or an unknown resource (and whether it exists in
// the other mode or for another merchant).
import { API_PREFIX, ROUTES, matchRoute, stripApiPrefix, type RouteDef } from '../../contract/routes.js';
import type { Diagnosis } from '../request-log.js';
import type { Runtime } from '../runtime.js';
import { distance } from './gateway.js';

const shown = (route: RouteDef): string => `${route.method} ${API_PREFIX}${route.path}`;

/** The route a path looks like when its literal segments are compared with small typos allowed. */
function nearestByTypo(method: string, relative: string): { route: RouteDef; d: number } | undefined {
  const segs = relative.replace(/\/$/, '').split('/');
  let best: { route: RouteDef; d: number } | undefined;
  for (const route of ROUTES) {
    const pattern = route.path.split('/');
    if (pattern.length !== segs.length) continue;
    let d = route.method === method ? 0 : 1;
    for (let i = 0; i < pattern.length; i++)
      if (!pattern[i]!.startsWith('{')) d += distance(pattern[i]!, segs[i]!.toLowerCase());
    if (d <= 3 && (!best || d < best.d)) best = { route, d };
  }
  return best;
}

export function unknownRoute(method: string, rawPath: string): Diagnosis {
  const isApi = rawPath === API_PREFIX || rawPath.startsWith(API_PREFIX + '/');
  const relative = isApi ? stripApiPrefix(rawPath) : rawPath;
  if (!isApi) {
    const m = matchRoute(method, relative);
    if (m) {
      return {
        id: 'route_without_prefix',
        message: `${method} ${rawPath} lacks the /api/v1 prefix: send ${method} ${API_PREFIX}${rawPath} (and sign that path).`,
        details: { nearest: shown(m.route) },
      };
    }
  }
  const others = ROUTES.filter((r) => r.method !== method && matchRoute(r.method, relative)?.route === r);
  if (others.length) {
    return {
      id: 'route_wrong_method',
      message: `${relative.replace(/\/$/, '')} does not take ${method}: it takes ${others.map((r) => r.method).join(', ')} (${others.map(shown).join('; ')}).`,
      details: { nearest: shown(others[0]!), methods: others.map((r) => r.method) },
    };
  }
  const near = nearestByTypo(method, relative);
  if (near) {
    return {
      id: 'route_typo',
      message: `No route ${method} ${rawPath}: did you mean ${shown(near.route)}?`,
      details: { nearest: shown(near.route) },
    };
  }
  return {
    id: 'route_unknown',
    message: `No route ${method} ${rawPath} in the API: see the routes of the spec (\`cardctl request --help\`).`,
    details: { nearest: null },
  };
}

/** A 404 on a known route: the id it names, and where that id does exist. */
export function unknownResource(
  rt: Runtime,
  route: RouteDef,
  params: Record<string, string>,
  merchantId: string,
  mode: string,
): Diagnosis | undefined {
  const [name, id] = Object.entries(params)[0] ?? [];
  if (!name || id === undefined) return undefined;
  if (name === 'card') {
    const card = Object.hasOwn(rt.state.cards, id) ? rt.state.cards[id]! : undefined;
    if (card && card.merchant_id === merchantId && card.mode !== mode) {
      return {
        id: 'resource_in_other_mode',
        message: `Card ${id} exists in ${card.mode} mode: use a ${card.mode} key (ids of one mode answer 404 to the other).`,
        details: { card: id, mode: card.mode },
      };
    }
    if (card && card.merchant_id !== merchantId) {
      return {
        id: 'resource_of_other_merchant',
        message: `Card ${id} belongs to another merchant: use that merchant's key.`,
        details: { card: id },
      };
    }
  }
  if (name === 'customer') {
    const c = Object.hasOwn(rt.state.customers, id) ? rt.state.customers[id]! : undefined;
    if (c && c.merchant_id !== merchantId) {
      return {
        id: 'resource_of_other_merchant',
        message: `Customer ${id} belongs to another merchant: use that merchant's key.`,
        details: { customer: id },
      };
    }
  }
  return {
    id: 'resource_unknown',
    message: `No ${name} ${id} exists in this mock (in either mode): check the id (a reset or a restart without --state forgets what was made).`,
    details: { [name]: id, operation: route.operation },
  };
}
