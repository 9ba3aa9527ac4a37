// The control plane under /_mock: JSON, behind the bearer token, answering in the API's
// envelopes. This file is the router; each area's calls are in their own file beside it.
import { safeEqual } from '../../signing/compare.js';
import { endpointNotFound, fail, validation, type Reply } from '../envelope.js';
import { parseJsonObject } from '../context.js';
import { jsonNestingDepth } from '../json-limits.js';
import { isReply } from '../pagination.js';
import type { Runtime } from '../runtime.js';
import type { ControlHandler } from './request.js';
import { readState, resetState } from './state.js';
import { createKey, createMerchant, revokeKey, rollKey, rotateKey } from './keys.js';
import { advanceClock, readClock } from './clock.js';
import { forceKyc, provision } from './lifecycle.js';
import { addDeposit, addTransaction, addWithdrawal, wallets } from './money.js';
import { listNetworks, listProducts, patchProduct, setNetworks } from './catalog.js';
import { addFault, clearFaults, listFaults } from './faults.js';
import { listCards, listCustomers, listDeposits, listMerchants, listTransactions } from './records.js';
import { consoleLogin } from './console.js';
import { addEndpoint, deleteEndpoint, enableEndpoint, listDeliveries, listEndpoints } from './endpoints.js';
import { emitEvent, listEvents } from './events.js';
import { listSnapshots, restoreSnapshot, saveSnapshot } from './snapshots.js';
import { listRequests, showRequest } from './requests.js';

/** Decided: a control body is at most 256 KiB and nests at most 32 levels (the largest call needs 3). */
export const CONTROL_BODY_LIMIT_BYTES = 256 * 1024;
export const CONTROL_DEPTH_LIMIT = 32;

/** The body of a control call: within the limits (else 422 naming the limit), then a JSON object. */
function controlBody(
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
): Record<string, unknown> | Reply {
  if (raw.length > CONTROL_BODY_LIMIT_BYTES) {
    return validation({
      body: [`The control body is ${raw.length} bytes: the limit is ${CONTROL_BODY_LIMIT_BYTES} bytes (256 KiB).`],
    });
  }
  if (jsonNestingDepth(raw, CONTROL_DEPTH_LIMIT) > CONTROL_DEPTH_LIMIT) {
    return validation({
      body: [
        `The control body nests arrays and objects more than ${CONTROL_DEPTH_LIMIT} levels deep: the limit is ${CONTROL_DEPTH_LIMIT}.`,
      ],
    });
  }
  return parseJsonObject(headers, raw);
}

/** The bearer token is compared in constant time; set by startMock. */
export const controlTokens = new WeakMap<Runtime, string>();

const ROUTES: Array<[string, RegExp, ControlHandler]> = [
  ['GET', /^\/state$/, readState],
  ['POST', /^\/reset$/, resetState],
  ['POST', /^\/merchants$/, createMerchant],
  ['POST', /^\/keys$/, createKey],
  ['POST', /^\/keys\/([^/]+)\/roll$/, rollKey],
  ['POST', /^\/keys\/([^/]+)\/rotate$/, rotateKey],
  ['POST', /^\/keys\/([^/]+)\/revoke$/, revokeKey],
  ['GET', /^\/clock$/, readClock],
  ['POST', /^\/clock\/advance$/, advanceClock],
  ['POST', /^\/customers\/([^/]+)\/kyc$/, forceKyc],
  ['POST', /^\/cards\/([^/]+)\/provision$/, provision],
  ['POST', /^\/cards\/([^/]+)\/transactions$/, addTransaction],
  ['POST', /^\/deposits$/, addDeposit],
  ['POST', /^\/withdrawals$/, addWithdrawal],
  ['GET', /^\/products$/, listProducts],
  ['PATCH', /^\/products\/([^/]+)$/, patchProduct],
  ['GET', /^\/networks$/, listNetworks],
  ['PUT', /^\/networks$/, setNetworks],
  ['GET', /^\/faults$/, listFaults],
  ['POST', /^\/faults$/, addFault],
  ['DELETE', /^\/faults$/, clearFaults],
  ['DELETE', /^\/faults\/([^/]+)$/, clearFaults],
  ['GET', /^\/merchants$/, listMerchants],
  ['GET', /^\/customers$/, listCustomers],
  ['GET', /^\/cards$/, listCards],
  ['GET', /^\/transactions$/, listTransactions],
  ['GET', /^\/deposits$/, listDeposits],
  ['POST', /^\/console$/, consoleLogin],
  ['GET', /^\/wallets$/, wallets],
  ['GET', /^\/webhook-endpoints$/, listEndpoints],
  ['POST', /^\/webhook-endpoints$/, addEndpoint],
  ['POST', /^\/webhook-endpoints\/([^/]+)\/enable$/, enableEndpoint],
  ['DELETE', /^\/webhook-endpoints\/([^/]+)$/, deleteEndpoint],
  ['GET', /^\/webhook-deliveries$/, listDeliveries],
  ['GET', /^\/events$/, listEvents],
  ['POST', /^\/events$/, emitEvent],
  ['GET', /^\/snapshots$/, listSnapshots],
  ['POST', /^\/snapshots$/, saveSnapshot],
  ['POST', /^\/snapshots\/([^/]+)\/restore$/, restoreSnapshot],
  ['GET', /^\/requests$/, listRequests],
  ['GET', /^\/requests\/([^/]+)$/, showRequest],
];

export async function handleControl(
  rt: Runtime,
  method: string,
  rawPath: string,
  rawQuery: string,
  headers: Record<string, string | string[] | undefined>,
  raw: Buffer,
): Promise<Reply> {
  const auth = headers.authorization;
  const given = typeof auth === 'string' && /^Bearer /i.test(auth) ? auth.slice(7).trim() : '';
  const token = controlTokens.get(rt) ?? '';
  if (!token || !given || !safeEqual(given, token)) {
    return fail(401, 'Unauthorized.', {
      authorization: ['A valid control token is required: Authorization: Bearer <control_token of the mock banner>.'],
    });
  }
  let sub = rawPath.slice('/_mock'.length);
  if (sub.length > 1 && sub.endsWith('/')) sub = sub.slice(0, -1);
  for (const [m, pattern, handler] of ROUTES) {
    if (m !== method) continue;
    const match = pattern.exec(sub);
    if (!match) continue;
    const body = method === 'GET' ? {} : controlBody(headers, raw);
    if (isReply(body)) return body;
    let params: string[];
    try {
      params = match.slice(1).map((p) => decodeURIComponent(p));
    } catch {
      return endpointNotFound();
    }
    let query: URLSearchParams;
    try {
      query = new URLSearchParams(rawQuery);
    } catch {
      query = new URLSearchParams();
    }
    return handler({ rt, body, query, params });
  }
  return endpointNotFound();
}
