// Cards: issue, read, recharge, freeze, unfreeze, terminate, transactions. The lifecycle rules
// (provisioning, expiry, async replay) are in ../card-lifecycle.ts.
import { setTimeout as sleep } from 'node:timers/promises';
import { IssueCardSchema, RechargeSchema, TerminateSchema, validationErrors, isUlid } from '../../contract/requests.js';
import { inexactNumberFields } from '../../contract/numbers.js';
import {
  codeError,
  endpointNotFound,
  notFound,
  ok,
  page,
  processing,
  serverError,
  unavailable,
  validation,
  type ErrorMap,
  type Reply,
} from '../envelope.js';
import { jsonBody, type RequestContext } from '../context.js';
import { readIdempotencyKey, runIdempotent, type Outcome } from '../idempotency.js';
import { takeFault } from '../faults.js';
import { isReply, paginate, readPageRequest } from '../pagination.js';
import { cardView, transactionView } from '../views.js';
import { HOUR } from '../clock.js';
import { newId } from '../random.js';
import { CURRENCY, nextSeq, type CardRec, type Mode, type ProductRec } from '../state.js';
import type { Runtime } from '../runtime.js';
import { findCustomer, settleCustomer } from '../kyc.js';
import { finishProvisioning, replayAsyncIssue, settleCard } from '../card-lifecycle.js';

/** Decided: a card younger than this (simulated) cannot be terminated. */
export const MIN_TERMINATION_AGE_MS = HOUR;

export function findCard(rt: Runtime, merchantId: string, mode: Mode, id: string): CardRec | null {
  const card = Object.hasOwn(rt.state.cards, id) ? rt.state.cards[id] : undefined;
  if (!card || card.merchant_id !== merchantId || card.mode !== mode) return null;
  settleCard(rt, card);
  return card;
}

/** Body errors (or a body-level 422) merged with the Idempotency-Key errors. */
function money<T>(
  ctx: RequestContext,
  parse: (body: Record<string, unknown>) => { data?: T; errors?: ErrorMap },
): { key: string; data: T } | Reply {
  const idem = readIdempotencyKey(ctx);
  const body = jsonBody(ctx);
  let errors: ErrorMap = { ...(idem.errors ?? {}) };
  let data: T | undefined;
  if (isReply(body)) {
    errors = { ...errors, ...((body.body as { errors: ErrorMap }).errors ?? {}) };
  } else {
    const parsed = parse(body);
    if (parsed.errors) errors = { ...errors, ...parsed.errors };
    data = parsed.data;
    // JSON.parse rounds: 0.99999999999999999 would load 1. Refuse what is not read exactly.
    const inexact = inexactNumberErrors(ctx.body.toString('utf8'));
    if (inexact) {
      errors = { ...errors, ...inexact };
      data = undefined;
    }
  }
  if (Object.keys(errors).length || data === undefined || idem.key === undefined) return validation(errors);
  return { key: idem.key, data };
}

const MONEY_FIELDS = new Set(['amount_minor', 'amount']);

/** A 422 map for number literals that JSON parsing would change: per money field, else under `body`. */
export function inexactNumberErrors(text: string): ErrorMap | null {
  const errors: ErrorMap = {};
  for (const { field, literal, becomes } of inexactNumberFields(text)) {
    const shown = literal.length > 40 ? `${literal.slice(0, 37)}...` : literal;
    const read = becomes === 'null' ? 'it is out of range' : `it would be read as ${becomes}`;
    if (field !== null && MONEY_FIELDS.has(field)) {
      errors[field] ??= [
        `The ${field.replace(/_/g, ' ')} must be an integer number of minor units, written exactly: ${shown} is not (${read}).`,
      ];
    } else {
      errors.body ??= [`The request body holds a number that cannot be read exactly: ${shown} (${read}).`];
    }
  }
  return Object.keys(errors).length ? errors : null;
}

function zodParse<T>(schema: {
  safeParse(v: unknown): { success: true; data: T } | { success: false; error: unknown };
}) {
  return (body: Record<string, unknown>): { data?: T; errors?: ErrorMap } => {
    const r = schema.safeParse(body);
    return r.success ? { data: r.data } : { errors: validationErrors(r.error as never) };
  };
}

/** The product an issue uses: live keys see the merchant's rules, test keys issue whatever is named. */
function resolveProduct(
  rt: Runtime,
  mode: Mode,
  productId: string | undefined,
): { product: ProductRec; id: string } | Reply {
  const products = rt.state.products;
  const fallback = products.find((p) => p.default && p.enabled);
  if (productId === undefined) {
    if (!fallback) return codeError('no_default');
    if (mode === 'live' && !fallback.available) return codeError('unavailable');
    return { product: fallback, id: fallback.id };
  }
  // spec: when sent it must be a well-formed ULID (in both modes), else 404
  if (!isUlid(productId)) return endpointNotFound();
  const named = products.find((p) => p.id === productId);
  if (mode === 'test') {
    // test mode: any well-formed product id issues; fees come from the named product when known
    const basis = named ?? fallback ?? products[0];
    if (!basis) return codeError('no_default');
    return { product: basis, id: productId };
  }
  if (!named || !named.enabled) return endpointNotFound();
  if (!named.available) return codeError('unavailable');
  return { product: named, id: named.id };
}

/** Simulated provider latency of every money operation: concurrent calls with one key overlap (409 in_flight). */
async function providerLatency(rt: RequestContext['rt']): Promise<void> {
  if (rt.options.providerLatencyMs > 0) await sleep(rt.options.providerLatencyMs);
}

export async function issue(ctx: RequestContext): Promise<Reply> {
  const input = money(ctx, zodParse(IssueCardSchema));
  if (isReply(input)) return input;
  const { rt } = ctx;
  const body = input.data;
  return runIdempotent(
    ctx,
    input.key,
    async (): Promise<Outcome> => {
      await providerLatency(rt);
      const customer = findCustomer(rt, ctx.merchantId, body.customer_id);
      if (!customer) return { reply: notFound(), store: true };
      settleCustomer(rt, customer);
      const resolved = resolveProduct(rt, ctx.mode, body.product_id);
      if (isReply(resolved)) return { reply: resolved, store: true };
      if (customer.status === 'disabled') return { reply: codeError('invalid'), store: true };
      if (customer.kyc_status !== 'approved') return { reply: codeError('kyc_not_approved'), store: false };
      const { product } = resolved;
      if (ctx.mode === 'live' && body.amount_minor < product.min_initial_load_minor)
        return { reply: codeError('below_minimum'), store: true };
      const fee = product.issue_fee_minor;
      const wallet = rt.wallet(ctx.merchantId, ctx.mode);
      if (wallet.balance_minor < body.amount_minor + fee)
        return { reply: codeError('insufficient_funds'), store: true };
      const fault = takeFault(rt, 'issue', ctx.merchantId, ctx.trace);
      const refused = beforeCommit(fault);
      if (refused) return refused;
      if (fault?.kind === 'issue_failed') return { reply: codeError('issue_failed'), store: true };
      const now = rt.now();
      const card: CardRec = {
        id: newId(rt.rand, now),
        seq: nextSeq(rt.state),
        merchant_id: ctx.merchantId,
        mode: ctx.mode,
        product_id: resolved.id,
        customer_id: customer.id,
        status: 'pending',
        masked_pan: '',
        last4: '',
        expiry: '',
        expires_at: null,
        currency: product.currency || CURRENCY,
        balance_minor: 0,
        pending_load_minor: body.amount_minor,
        pending_fee_minor: fee,
        created_at: now,
      };
      rt.state.cards[card.id] = card;
      rt.state.transactions[card.id] = [];
      wallet.balance_minor -= body.amount_minor + fee;
      wallet.reserved_minor += body.amount_minor + fee;
      rt.markDirty();
      if (fault?.kind === 'async_202') return { reply: processing(), store: true, asyncCardId: card.id };
      finishProvisioning(rt, card, 'active');
      return afterCommit(ctx, fault, ok(cardView(card), 201));
    },
    (cardId) => replayAsyncIssue(rt, cardId),
  );
}

export function get(ctx: RequestContext): Reply {
  const card = findCard(ctx.rt, ctx.merchantId, ctx.mode, ctx.params.card!);
  return card ? ok(cardView(card)) : notFound();
}

/** A money fault that refuses before the commit: 503 and 500 (nothing done, not stored under the key). */
function beforeCommit(fault: ReturnType<typeof takeFault>): Outcome | null {
  if (fault?.kind === '503') return { reply: unavailable(), store: false };
  if (fault?.kind === '500') return { reply: serverError(), store: false };
  return null;
}

/** Applies a money fault once the operation is done (committed). */
function afterCommit(ctx: RequestContext, fault: ReturnType<typeof takeFault>, done: Reply): Outcome {
  if (fault?.kind === 'async_202') return { reply: processing(), store: true, replay: done };
  if (fault?.kind === '500_after_commit') return { reply: serverError(), store: true, replay: done };
  if (fault?.kind === 'drop') ctx.effect = { drop: true };
  if (fault?.kind === 'slow') ctx.effect = { delayMs: fault.ms ?? 0 };
  return { reply: done, store: true };
}

export async function recharge(ctx: RequestContext): Promise<Reply> {
  const input = money(ctx, zodParse(RechargeSchema));
  if (isReply(input)) return input;
  const { rt } = ctx;
  const amount = input.data.amount;
  return runIdempotent(
    ctx,
    input.key,
    async (): Promise<Outcome> => {
      await providerLatency(rt);
      const card = findCard(rt, ctx.merchantId, ctx.mode, ctx.params.card!);
      if (!card) return { reply: notFound(), store: true };
      // Decided: a frozen card can be loaded (freeze blocks spending, not loading).
      if (card.status !== 'active' && card.status !== 'frozen')
        return { reply: codeError('invalid_state'), store: true };
      const wallet = rt.wallet(ctx.merchantId, ctx.mode);
      if (wallet.balance_minor < amount) return { reply: codeError('insufficient_funds'), store: true };
      const fault = takeFault(rt, 'recharge', ctx.merchantId, ctx.trace);
      const refused = beforeCommit(fault);
      if (refused) return refused;
      wallet.balance_minor -= amount;
      card.balance_minor += amount;
      rt.markDirty();
      return afterCommit(ctx, fault, ok(cardView(card)));
    },
    (cardId) => replayAsyncIssue(rt, cardId),
  );
}

export function freeze(ctx: RequestContext): Reply {
  const card = findCard(ctx.rt, ctx.merchantId, ctx.mode, ctx.params.card!);
  if (!card) return notFound();
  if (card.status !== 'active') return codeError('invalid_state');
  card.status = 'frozen';
  ctx.rt.markDirty();
  return ok(cardView(card));
}

export function unfreeze(ctx: RequestContext): Reply {
  const card = findCard(ctx.rt, ctx.merchantId, ctx.mode, ctx.params.card!);
  if (!card) return notFound();
  if (card.status !== 'frozen') return codeError('invalid_state');
  card.status = 'active';
  settleCard(ctx.rt, card);
  ctx.rt.markDirty();
  return ok(cardView(card));
}

export async function terminate(ctx: RequestContext): Promise<Reply> {
  const input = money(ctx, zodParse(TerminateSchema));
  if (isReply(input)) return input;
  const { rt } = ctx;
  return runIdempotent(
    ctx,
    input.key,
    async (): Promise<Outcome> => {
      await providerLatency(rt);
      const card = findCard(rt, ctx.merchantId, ctx.mode, ctx.params.card!);
      if (!card) return { reply: notFound(), store: true };
      if (card.status !== 'active' && card.status !== 'frozen')
        return { reply: codeError('invalid_state'), store: true };
      // temporary: the same key succeeds once the card is old enough, so it is not remembered
      if (rt.now() - card.created_at < MIN_TERMINATION_AGE_MS)
        return { reply: codeError('termination_blocked'), store: false };
      const fault = takeFault(rt, 'terminate', ctx.merchantId, ctx.trace);
      const refused = beforeCommit(fault);
      if (refused) return refused;
      const refund = card.balance_minor;
      const wallet = rt.wallet(ctx.merchantId, ctx.mode);
      wallet.balance_minor += refund;
      card.balance_minor = 0;
      card.status = 'terminated';
      rt.events.record(card.merchant_id, card.mode, 'card.terminated', {
        card_id: card.id,
        refunded_amount_minor: refund,
      });
      rt.markDirty();
      return afterCommit(ctx, fault, ok(cardView(card)));
    },
    (cardId) => replayAsyncIssue(rt, cardId),
  );
}

export function transactions(ctx: RequestContext): Reply {
  const card = findCard(ctx.rt, ctx.merchantId, ctx.mode, ctx.params.card!);
  if (!card) return notFound();
  const req = readPageRequest('card_transactions:' + card.id, ctx.query);
  if (isReply(req)) return req;
  const rows = ctx.rt.state.transactions[card.id] ?? [];
  const { data, meta } = paginate('card_transactions:' + card.id, rows, (t) => [t.occurred_at, t.seq], req);
  return page(data.map(transactionView), meta);
}
