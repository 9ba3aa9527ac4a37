// Customers: the registry shared by both modes of a merchant.
import {
  changedIdentityFields,
  missingVerificationFields,
  parseCustomerCreate,
  parseCustomerUpdate,
} from '../../contract/customer.js';
import { fail, notFound, ok, page, validation, type Reply } from '../envelope.js';
import { jsonBody, type RequestContext } from '../context.js';
import { isReply, paginateSorted, readPageRequest } from '../pagination.js';
import { customerPosition, customersInOrder, placeCustomer } from '../customer-order.js';
import { customerView } from '../views.js';
import { newId } from '../random.js';
import { nextSeq, type CustomerRec } from '../state.js';
import { awaitVerification, findCustomer, settleCustomer, submit } from '../kyc.js';

/** The document image is only needed until verification settles: keep a marker, not 4 MB. */
const IMAGE_HELD = 'held';

function storable(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (k !== 'status') out[k] = k === 'id_front_image' ? IMAGE_HELD : v;
  return out;
}

export function create(ctx: RequestContext): Reply {
  const body = jsonBody(ctx);
  if (isReply(body)) return body;
  const { rt } = ctx;
  const parsed = parseCustomerCreate(body, new Date(rt.now()));
  if (!parsed.ok) return validation(parsed.errors);
  const now = rt.now();
  const c: CustomerRec = {
    id: newId(rt.rand, now),
    seq: nextSeq(rt.state),
    merchant_id: ctx.merchantId,
    fields: storable(parsed.value as Record<string, unknown>),
    status: 'active',
    kyc_status: 'unsubmitted',
    kyc_failure_reason: null,
    kyc_submitted_at: null,
    kyc_resolved_at: null,
    kyc_submit_due: now,
    kyc_verdict_due: null,
    kyc_mode: ctx.mode,
    created_at: now,
  };
  rt.state.customers[c.id] = c;
  placeCustomer(rt.plainState, c);
  awaitVerification(rt, c);
  rt.markDirty();
  return ok(customerView(c), 202);
}

export function list(ctx: RequestContext): Reply {
  const req = readPageRequest('customers', ctx.query);
  if (isReply(req)) return req;
  // the page is found in the merchant's order (plain records, no change tracking); its rows are settled through the tracked state
  const { data, meta } = paginateSorted(
    'customers',
    customersInOrder(ctx.rt.plainState, ctx.merchantId),
    customerPosition,
    req,
  );
  const tracked = data.map((c) => ctx.rt.state.customers[c.id]!);
  for (const c of tracked) settleCustomer(ctx.rt, c);
  return page(tracked.map(customerView), meta);
}

export function get(ctx: RequestContext): Reply {
  const c = findCustomer(ctx.rt, ctx.merchantId, ctx.params.customer!);
  if (!c) return notFound();
  settleCustomer(ctx.rt, c);
  return ok(customerView(c));
}

export function update(ctx: RequestContext): Reply {
  const { rt } = ctx;
  const c = findCustomer(rt, ctx.merchantId, ctx.params.customer!);
  if (!c) return notFound();
  const body = jsonBody(ctx);
  if (isReply(body)) return body;
  settleCustomer(rt, c);
  const parsed = parseCustomerUpdate(body, new Date(rt.now()), c.fields);
  if (!parsed.ok) return validation(parsed.errors);
  const value = parsed.value as Record<string, unknown>;
  const identityChanged = changedIdentityFields(c.fields, value).length > 0;
  Object.assign(c.fields, storable(value));
  if (value.status === 'active' || value.status === 'disabled') c.status = value.status;
  if (identityChanged) {
    // approved -> pending (the table row has no condition); a pending verdict restarts on the
    // corrected details; unsubmitted and rejected wait for POST /kyc
    if (c.kyc_status === 'approved' || c.kyc_status === 'pending') submit(rt, c, ctx.mode);
  }
  rt.markDirty();
  return ok(customerView(c));
}

export function kyc(ctx: RequestContext): Reply {
  const { rt } = ctx;
  const c = findCustomer(rt, ctx.merchantId, ctx.params.customer!);
  if (!c) return notFound();
  settleCustomer(rt, c);
  if (c.kyc_status === 'approved') return ok(customerView(c), 200);
  if (c.kyc_status === 'pending') return ok(customerView(c), 202);
  const missing = missingVerificationFields(c.fields);
  if (missing.length > 0) {
    return fail(
      422,
      `The customer is missing fields required for verification: ${missing.join(', ')}. Send them with PATCH, then submit again.`,
      { customer: ['kyc_incomplete'] },
    );
  }
  submit(rt, c, ctx.mode);
  return ok(customerView(c), 202);
}
