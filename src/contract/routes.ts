// The route table of spec v1: one row per operation. Client and mock both read it.

export const API_PREFIX = '/api/v1';

export type Scope =
  | 'customers.read'
  | 'customers.write'
  | 'cards.read'
  | 'cards.write'
  | 'deposits.read'
  | 'deposits.write';

export const SCOPES: readonly Scope[] = [
  'customers.read',
  'customers.write',
  'cards.read',
  'cards.write',
  'deposits.read',
  'deposits.write',
];

export type OperationName =
  | 'cards.issue'
  | 'cards.get'
  | 'cards.recharge'
  | 'cards.freeze'
  | 'cards.unfreeze'
  | 'cards.terminate'
  | 'cards.transactions'
  | 'customers.create'
  | 'customers.list'
  | 'customers.get'
  | 'customers.update'
  | 'customers.kyc'
  | 'depositAddresses.create'
  | 'depositAddresses.list'
  | 'deposits.list';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

export interface RouteDef {
  operation: OperationName;
  method: HttpMethod;
  /** relative to the base URL, `{name}` marks a ULID path parameter */
  path: string;
  scope: Scope;
  /** issue, recharge, terminate: Idempotency-Key required, outcome may be unknown */
  money: boolean;
  /** 403 for test keys */
  liveOnly: boolean;
  /** paginated with per_page/cursor */
  paginated: boolean;
}

const r = (
  operation: OperationName,
  method: HttpMethod,
  path: string,
  scope: Scope,
  extra: Partial<Pick<RouteDef, 'money' | 'liveOnly' | 'paginated'>> = {},
): RouteDef => ({ operation, method, path, scope, money: false, liveOnly: false, paginated: false, ...extra });

export const ROUTES: readonly RouteDef[] = [
  r('cards.issue', 'POST', '/cards', 'cards.write', { money: true }),
  r('cards.get', 'GET', '/cards/{card}', 'cards.read'),
  r('cards.recharge', 'POST', '/cards/{card}/recharge', 'cards.write', { money: true }),
  r('cards.freeze', 'POST', '/cards/{card}/freeze', 'cards.write'),
  r('cards.unfreeze', 'POST', '/cards/{card}/unfreeze', 'cards.write'),
  r('cards.terminate', 'POST', '/cards/{card}/terminate', 'cards.write', { money: true }),
  r('cards.transactions', 'GET', '/cards/{card}/transactions', 'cards.read', { paginated: true }),
  r('customers.create', 'POST', '/customers', 'customers.write'),
  r('customers.list', 'GET', '/customers', 'customers.read', { paginated: true }),
  r('customers.get', 'GET', '/customers/{customer}', 'customers.read'),
  r('customers.update', 'PATCH', '/customers/{customer}', 'customers.write'),
  r('customers.kyc', 'POST', '/customers/{customer}/kyc', 'customers.write'),
  r('depositAddresses.create', 'POST', '/deposit-addresses', 'deposits.write', { liveOnly: true }),
  r('depositAddresses.list', 'GET', '/deposit-addresses', 'deposits.read', { liveOnly: true }),
  r('deposits.list', 'GET', '/deposits', 'deposits.read', { liveOnly: true, paginated: true }),
];

export interface RouteMatch {
  route: RouteDef;
  params: Record<string, string>;
}

/** Each route's path split at its slashes, by its place in ROUTES (split once: a --batch matches a million). */
const ROUTE_SEGMENTS: readonly string[][] = ROUTES.map((route) => route.path.split('/'));

/**
 * Finds the route for a method and a path relative to the base URL (no `/api/v1`, no query).
 * One trailing slash is tolerated, as in the canonical path. Returns null for an unmatched
 * route and for a method the path does not support (the spec answers 404 for both).
 */
export function matchRoute(method: string, relativePath: string): RouteMatch | null {
  const path = relativePath.length > 1 && relativePath.endsWith('/') ? relativePath.slice(0, -1) : relativePath;
  const segments = path.split('/');
  const upper = method.toUpperCase();
  for (let r = 0; r < ROUTES.length; r++) {
    const route = ROUTES[r]!;
    if (route.method !== upper) continue;
    const pattern = ROUTE_SEGMENTS[r]!;
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < pattern.length && ok; i++) {
      const p = pattern[i]!;
      const s = segments[i]!;
      if (p.startsWith('{')) {
        if (s === '') ok = false;
        else params[p.slice(1, -1)] = s;
      } else if (p !== s) {
        ok = false;
      }
    }
    if (ok) return { route, params };
  }
  return null;
}

/** `/api/v1/cards/X` -> `/cards/X`; a path already relative is returned unchanged. */
export function stripApiPrefix(path: string): string {
  if (path === API_PREFIX) return '/';
  return path.startsWith(API_PREFIX + '/') ? path.slice(API_PREFIX.length) : path;
}

export const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
