// Injected faults: list them, add one.
import { ok, type Reply } from '../envelope.js';
import { notFoundThing } from './request.js';
import { isReply } from '../pagination.js';
import { FAULT_KINDS, FAULT_OPERATIONS, MAX_SLOW_MS, faultProblem } from '../faults.js';
import { newId, cryptoRandom } from '../random.js';
import type { FaultKind, FaultOperation, FaultRec } from '../state.js';
import { Input, merchantOf, type ControlRequest } from './request.js';

const faultView = (f: FaultRec) => ({
  id: f.id,
  operation: f.operation,
  kind: f.kind,
  count: f.count,
  remaining: f.remaining,
  merchant_id: f.merchant_id,
  ...(f.ms !== undefined ? { ms: f.ms } : {}),
});

export const listFaults = ({ rt }: ControlRequest): Reply => ok(rt.state.faults.map(faultView));

export function addFault({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const operation = input.oneOf<FaultOperation>('operation', FAULT_OPERATIONS);
  const kind = input.oneOf<FaultKind>('kind', FAULT_KINDS);
  const count = input.integer('count', 1, 1_000_000, 1);
  const ms = input.has('ms') ? input.integer('ms', 1, MAX_SLOW_MS) : undefined;
  // a bad combination is named once its parts are each valid (an ms out of range is said above)
  if (operation && kind && (!input.has('ms') || ms !== undefined)) {
    const problem = faultProblem(operation, kind, ms);
    if (problem) input.add(problem.field, problem.message);
  }
  const bad = input.fail();
  if (bad) return bad;
  let merchant: string | null = null;
  if (body.merchant_id !== undefined && body.merchant_id !== null) {
    const m = merchantOf(rt, body);
    if (isReply(m)) return m;
    merchant = m;
  }
  const fault: FaultRec = {
    id: newId(cryptoRandom, rt.now()),
    operation: operation!,
    kind: kind!,
    count: count!,
    remaining: count!,
    ...(ms !== undefined ? { ms } : {}),
    merchant_id: merchant,
    created_at: rt.now(),
  };
  rt.state.faults.push(fault);
  rt.markDirty();
  return ok(faultView(fault), 201);
}

/** Removes one fault before it is used up (`DELETE /_mock/faults/{id}`), or every fault (`DELETE /_mock/faults`). */
export function clearFaults({ rt, params }: ControlRequest): Reply {
  const id = params[0];
  const before = rt.state.faults.length;
  if (id !== undefined && !rt.state.faults.some((f) => f.id === id)) return notFoundThing('Fault');
  const removed = rt.state.faults.filter((f) => id === undefined || f.id === id);
  rt.state.faults = rt.state.faults.filter((f) => id !== undefined && f.id !== id);
  if (rt.state.faults.length !== before) rt.markDirty();
  return ok(removed.map(faultView));
}
