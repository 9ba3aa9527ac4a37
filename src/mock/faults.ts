// Injected faults: the next `count` calls of an operation answer differently (control plane).
import type { FaultKind, FaultOperation, FaultRec } from './state.js';
import type { Runtime } from './runtime.js';

export const FAULT_OPERATIONS: readonly FaultOperation[] = ['issue', 'recharge', 'terminate', 'any'];
export const FAULT_KINDS: readonly FaultKind[] = ['503', '500_after_commit', 'async_202', 'issue_failed'];

/** issue_failed is an issuer refusal: it only means something for an issue. */
const appliesTo = (kind: FaultKind, op: Exclude<FaultOperation, 'any'>): boolean => kind !== 'issue_failed' || op === 'issue';

/** Takes one use of the first matching fault, oldest first; null when none applies. */
export function takeFault(rt: Runtime, op: Exclude<FaultOperation, 'any'>, merchantId: string): FaultKind | null {
  const faults = rt.state.faults;
  const i = faults.findIndex(
    (f: FaultRec) => f.remaining > 0 && (f.operation === op || f.operation === 'any') && (f.merchant_id === null || f.merchant_id === merchantId) && appliesTo(f.kind, op),
  );
  if (i < 0) return null;
  const f = faults[i]!;
  f.remaining -= 1;
  if (f.remaining <= 0) faults.splice(i, 1);
  rt.markDirty();
  return f.kind;
}
