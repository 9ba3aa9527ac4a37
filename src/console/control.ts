// The console's calls to the control plane: the control plane's own router (handleControl), with
// its rules and its answers, the control token added here on the server side (it never reaches
// the page). Only the calls the page offers: none that answers a secret (keys, merchants,
// reset); every answer passes through the mock's redactor once more.
import { handleControl } from '../mock/control/index.js';
import type { Reply } from '../mock/envelope.js';
import type { Runtime } from '../mock/runtime.js';

const READS: RegExp[] = [
  /^\/state$/,
  /^\/clock$/,
  /^\/wallets$/,
  /^\/faults$/,
  /^\/webhook-endpoints$/,
  /^\/webhook-deliveries$/,
  /^\/events$/,
  /^\/snapshots$/,
  /^\/requests$/,
  /^\/requests\/[^/]+$/,
  /^\/merchants$/,
  /^\/customers$/,
  /^\/cards$/,
  /^\/transactions$/,
  /^\/deposits$/,
  /^\/products$/,
  /^\/networks$/,
];

const WRITES: Array<[string, RegExp]> = [
  ['POST', /^\/customers\/[^/]+\/kyc$/],
  ['POST', /^\/cards\/[^/]+\/provision$/],
  ['POST', /^\/cards\/[^/]+\/transactions$/],
  ['POST', /^\/deposits$/],
  ['POST', /^\/clock\/advance$/],
  ['POST', /^\/faults$/],
  ['DELETE', /^\/faults(?:\/[^/]+)?$/],
  ['POST', /^\/events$/],
  ['POST', /^\/snapshots$/],
  ['POST', /^\/snapshots\/[^/]+\/restore$/],
  ['POST', /^\/webhook-endpoints\/[^/]+\/enable$/],
];

/** Whether the page may make this call (`sub` is the path after /_mock). */
export function offered(method: string, sub: string): boolean {
  if (method === 'GET') return READS.some((p) => p.test(sub));
  return WRITES.some(([m, p]) => m === method && p.test(sub));
}

export const changes = (method: string): boolean => method !== 'GET' && method !== 'HEAD';

/**
 * One control call as the control plane answers it: what fell due first (as the pipeline does),
 * the change saved before the answer (with --state), the answer redacted.
 */
export async function callControl(
  rt: Runtime,
  token: string,
  call: { method: string; sub: string; query: string; body: Buffer },
): Promise<Reply> {
  rt.runDue();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  let reply = await handleControl(rt, call.method, `/_mock${call.sub}`, call.query, headers, call.body);
  try {
    await rt.commit(changes(call.method));
  } catch (err) {
    reply = {
      status: 500,
      body: {
        success: false,
        message: `The change could not be saved: ${err instanceof Error ? err.message : String(err)}`,
        errors: {},
      },
    };
  }
  return { ...reply, body: rt.redactor.redactValue(reply.body) };
}
