// Injected faults: the next `count` calls of an operation answer differently (control plane).
// Money operations (issue, recharge, terminate) take theirs at the commit point, after every
// business check passed (handlers/cards.ts); every other operation takes its fault around the
// handler (pipeline.ts): 503 and 500 before it (nothing done), slow delays it, 500_after_commit
// and drop run it and then answer 500 or close the connection.
import { ROUTES, type OperationName } from '../contract/routes.js';
import type { FaultKind, FaultOperation, FaultRec } from './state.js';
import type { Runtime } from './runtime.js';
import type { Trace } from './refusal.js';

export const MONEY_FAULT_OPERATIONS = ['issue', 'recharge', 'terminate'] as const;
export type MoneyFaultOperation = (typeof MONEY_FAULT_OPERATIONS)[number];
/** issue, recharge, terminate, any, and every operation name of the route table (`customers.get`...). */
export const FAULT_OPERATIONS: readonly FaultOperation[] = [
  ...MONEY_FAULT_OPERATIONS,
  'any',
  ...ROUTES.map((r) => r.operation),
];
export const FAULT_KINDS: readonly FaultKind[] = [
  '503',
  '500',
  '500_after_commit',
  'drop',
  'slow',
  'async_202',
  'issue_failed',
];
/** The longest `slow` delay, in ms (a minute: longer than any client timeout worth testing). */
export const MAX_SLOW_MS = 60_000;

/** `cards.issue` is `issue`, and so on: one name per money operation. */
const MONEY_ALIAS: Partial<Record<string, MoneyFaultOperation>> = {
  'cards.issue': 'issue',
  'cards.recharge': 'recharge',
  'cards.terminate': 'terminate',
};
export const normalizeFaultOperation = (op: FaultOperation): FaultOperation => MONEY_ALIAS[op] ?? op;
const isMoney = (op: string): op is MoneyFaultOperation => (MONEY_FAULT_OPERATIONS as readonly string[]).includes(op);

/** Why this combination cannot happen, or undefined when it can. */
export function faultProblem(
  operation: FaultOperation,
  kind: FaultKind,
  ms: number | undefined,
): { field: string; message: string } | undefined {
  const op = normalizeFaultOperation(operation);
  if (kind === 'issue_failed' && op !== 'issue' && op !== 'any')
    return {
      field: 'kind',
      message: `The kind issue_failed is an issuer refusal: it applies to issue only, not ${operation}.`,
    };
  if (kind === 'async_202' && !isMoney(op) && op !== 'any')
    return {
      field: 'kind',
      message: `The kind async_202 applies to the money operations (issue, recharge, terminate) only, not ${operation}.`,
    };
  if (kind === 'slow' && ms === undefined)
    return {
      field: 'ms',
      message: `The ms is required with the kind slow: the delay before answering, 1 to ${MAX_SLOW_MS}.`,
    };
  if (kind !== 'slow' && ms !== undefined) return { field: 'ms', message: 'The ms applies to the kind slow only.' };
  return undefined;
}

/** Whether a fault of this kind means something for this operation (for faults on `any`). */
function appliesTo(kind: FaultKind, op: string): boolean {
  if (kind === 'issue_failed') return op === 'issue';
  if (kind === 'async_202') return isMoney(op);
  return true;
}

/** Takes one use of the first matching fault, oldest first; null when none applies. */
export function takeFault(
  rt: Runtime,
  operation: MoneyFaultOperation | OperationName,
  merchantId: string,
  trace?: Trace,
): { kind: FaultKind; ms?: number } | null {
  const op = MONEY_ALIAS[operation] ?? operation;
  const faults = rt.state.faults;
  const i = faults.findIndex(
    (f: FaultRec) =>
      f.remaining > 0 &&
      (normalizeFaultOperation(f.operation) === op || f.operation === 'any') &&
      (f.merchant_id === null || f.merchant_id === merchantId) &&
      appliesTo(f.kind, op),
  );
  if (i < 0) return null;
  const f = faults[i]!;
  f.remaining -= 1;
  if (f.remaining <= 0) faults.splice(i, 1);
  rt.markDirty();
  if (trace) trace.fault = f.kind; // the request log says the answer came from an injected fault
  return { kind: f.kind, ...(f.ms !== undefined ? { ms: f.ms } : {}) };
}

/** The operation names whose faults the pipeline applies (every operation but the money ones). */
export const isMoneyOperation = (op: OperationName): boolean => MONEY_ALIAS[op] !== undefined;
