// The customer verification state machine (spec "Customer kyc_status"), on the simulated clock.
// Decided timings: the submission happens at the first read or tick after create; a verdict
// comes 5 s (bvn, nin) or 10 min (documents) after submission in live mode, at once in test
// mode; a last_name of "Reject" (any case) is rejected with reason `identity_mismatch`. The
// document image is dropped once a verdict is reached.
import { MINUTE, SECOND } from './clock.js';
import type { CustomerRec, MockState, Mode } from './state.js';
import type { Runtime } from './runtime.js';

export const DATABASE_VERDICT_MS = 5 * SECOND;
export const DOCUMENT_VERDICT_MS = 10 * MINUTE;
export const REJECT_TRIGGER_LAST_NAME = 'reject';
export const TRIGGER_REJECTION_REASON = 'identity_mismatch';
export const DEFAULT_REJECTION_REASON = 'verification_failed';

/** Per plain state: the customers with a submission or a verdict still to come, so that a tick looks at them only. */
const awaiting = new WeakMap<MockState, Set<string>>();

function awaitingOf(rt: Runtime): Set<string> {
  const plain = rt.plainState;
  let ids = awaiting.get(plain);
  if (!ids) {
    ids = new Set();
    for (const c of Object.values(plain.customers))
      if (c.kyc_submit_due !== null || c.kyc_verdict_due !== null) ids.add(c.id);
    awaiting.set(plain, ids);
  }
  return ids;
}

/** A customer whose submission or verdict is scheduled: settled by the tick when it falls due. */
export function awaitVerification(rt: Runtime, c: CustomerRec): void {
  awaitingOf(rt).add(c.id);
}

export function findCustomer(rt: Runtime, merchantId: string, id: string): CustomerRec | null {
  const c = Object.hasOwn(rt.state.customers, id) ? rt.state.customers[id] : undefined;
  // the registry is shared by both modes: only the merchant matters
  return c && c.merchant_id === merchantId ? c : null;
}

function event(rt: Runtime, c: CustomerRec, type: string, extra: Record<string, unknown> = {}): void {
  rt.events.record(c.merchant_id, c.kyc_mode, type, { customer_id: c.id, kyc_status: c.kyc_status, ...extra });
}

function verdictDelay(c: CustomerRec): number {
  if (c.kyc_mode === 'test') return 0;
  const idType = c.fields.id_type;
  return idType === 'bvn' || idType === 'nin' ? DATABASE_VERDICT_MS : DOCUMENT_VERDICT_MS;
}

/** -> pending, with the verdict scheduled; the pending event only on a real change. */
export function submit(rt: Runtime, c: CustomerRec, mode: Mode): void {
  const now = rt.now();
  const changed = c.kyc_status !== 'pending';
  c.kyc_mode = mode;
  c.kyc_status = 'pending';
  c.kyc_submit_due = null;
  c.kyc_submitted_at = now;
  c.kyc_resolved_at = null;
  c.kyc_failure_reason = null;
  c.kyc_verdict_due = now + verdictDelay(c);
  awaitVerification(rt, c);
  rt.markDirty();
  if (changed) event(rt, c, 'customer.kyc.pending');
}

/** A final verdict; nothing (and no event) when it is the verdict already held. */
export function decide(rt: Runtime, c: CustomerRec, verdict: 'approved' | 'rejected', reason?: string): void {
  if (c.kyc_status === verdict) return;
  if (c.kyc_status === 'unsubmitted') submit(rt, c, c.kyc_mode);
  c.kyc_status = verdict;
  c.kyc_verdict_due = null;
  c.kyc_resolved_at = rt.now();
  c.kyc_failure_reason = verdict === 'rejected' ? (reason ?? DEFAULT_REJECTION_REASON) : null;
  // spec: the document image is held only until verification settles, then deleted; a later
  // submission of a document customer needs a new one (else 422 kyc_incomplete)
  delete c.fields.id_front_image;
  rt.markDirty();
  if (verdict === 'approved') event(rt, c, 'customer.kyc.approved');
  else event(rt, c, 'customer.kyc.rejected', { reason: c.kyc_failure_reason });
}

/** Applies whatever fell due for this customer; true when it changed. */
export function settleCustomer(rt: Runtime, c: CustomerRec): boolean {
  const now = rt.now();
  let changed = false;
  if (c.kyc_status === 'unsubmitted' && c.kyc_submit_due !== null && now >= c.kyc_submit_due) {
    submit(rt, c, c.kyc_mode);
    changed = true;
  }
  // the clock is read again: submit() above dated the verdict from its own reading, which may be a
  // millisecond later than `now` (a test-mode customer then read pending, and an issue was refused
  // kyc_not_approved, although its verdict was due at once)
  if (c.kyc_status === 'pending' && c.kyc_verdict_due !== null && rt.now() >= c.kyc_verdict_due) {
    const lastName = typeof c.fields.last_name === 'string' ? c.fields.last_name.trim().toLowerCase() : '';
    if (lastName === REJECT_TRIGGER_LAST_NAME) decide(rt, c, 'rejected', TRIGGER_REJECTION_REASON);
    else decide(rt, c, 'approved');
    changed = true;
  }
  return changed;
}

/** Settles what fell due; costs the customers still awaiting a step, not all of them. */
export function settleCustomers(rt: Runtime): boolean {
  let changed = false;
  const ids = awaitingOf(rt);
  for (const id of ids) {
    const c = Object.hasOwn(rt.state.customers, id) ? rt.state.customers[id] : undefined;
    if (c) changed = settleCustomer(rt, c) || changed;
    if (!c || (c.kyc_submit_due === null && c.kyc_verdict_due === null)) ids.delete(id);
  }
  return changed;
}
