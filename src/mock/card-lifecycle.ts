// Card lifecycle rules that the API handlers, the control plane and the clock all drive:
// expiry on the simulated clock, the end of provisioning (pending -> active | failed), and what
// a replayed asynchronous issue answers now.
import { MESSAGES } from '../contract/errors.js';
import { codeError, notFound, ok, type Reply } from './envelope.js';
import { cardView } from './views.js';
import { DAY } from './clock.js';
import { randomDigits } from './random.js';
import type { CardRec, Mode } from './state.js';
import type { Runtime } from './runtime.js';

/** Decided: cards expire three years (simulated) after provisioning. */
export const CARD_LIFETIME_MS = 3 * 365 * DAY;

const PAN_PREFIX: Record<Mode, string> = { test: '400000', live: '537100' };

/** An active card past its expiry reads as expired (the only move not caused by a call). */
export function settleCard(rt: Runtime, card: CardRec): boolean {
  if (card.status === 'active' && card.expires_at !== null && rt.now() >= card.expires_at) {
    card.status = 'expired';
    rt.markDirty();
    return true;
  }
  return false;
}

/** Per state: the earliest expiry of an active or frozen card (Infinity: none), so that a tick with nothing due scans nothing. */
const nextExpiry = new WeakMap<object, number>();

/** Expires the active cards past their expiry; true when one changed. */
export function expireCards(rt: Runtime): boolean {
  const plain = rt.plainState;
  const now = rt.now();
  const due = nextExpiry.get(plain);
  if (due !== undefined && now < due) return false;
  let changed = false;
  let earliest = Infinity;
  for (const card of Object.values(plain.cards)) {
    if (card.expires_at === null || (card.status !== 'active' && card.status !== 'frozen')) continue;
    if (card.status === 'active' && now >= card.expires_at)
      changed = settleCard(rt, rt.state.cards[card.id]!) || changed;
    else earliest = Math.min(earliest, card.expires_at);
  }
  nextExpiry.set(plain, earliest);
  return changed;
}

function provisionDetails(rt: Runtime, card: CardRec): void {
  const now = rt.now();
  card.last4 = randomDigits(rt.rand, 4);
  card.masked_pan = `${PAN_PREFIX[card.mode]}******${card.last4}`;
  card.expires_at = now + CARD_LIFETIME_MS;
  const d = new Date(card.expires_at);
  card.expiry = `${String(d.getUTCMonth() + 1).padStart(2, '0')}/${String(d.getUTCFullYear() % 100).padStart(2, '0')}`;
}

/** pending -> active (charged from the reservation, event card.issued) or -> failed (reservation returned). */
export function finishProvisioning(rt: Runtime, card: CardRec, outcome: 'active' | 'failed'): void {
  const wallet = rt.wallet(card.merchant_id, card.mode);
  const total = card.pending_load_minor + card.pending_fee_minor;
  wallet.reserved_minor -= total;
  if (outcome === 'active') {
    provisionDetails(rt, card);
    card.status = 'active';
    const due = nextExpiry.get(rt.plainState);
    if (due !== undefined && card.expires_at! < due) nextExpiry.set(rt.plainState, card.expires_at!);
    card.balance_minor = card.pending_load_minor;
    wallet.fees_collected_minor += card.pending_fee_minor;
    rt.events.record(card.merchant_id, card.mode, 'card.issued', { card_id: card.id });
  } else {
    card.status = 'failed';
    wallet.balance_minor += total;
  }
  card.pending_load_minor = 0;
  card.pending_fee_minor = 0;
  rt.markDirty();
}

/** What a replay of an issue that answered 202 says now: 201 once active. */
export function replayAsyncIssue(rt: Runtime, cardId: string): Reply {
  const card = rt.state.cards[cardId];
  if (!card) return notFound();
  settleCard(rt, card);
  // the pending card itself (not the bare Processing envelope): it carries the id to poll
  if (card.status === 'pending')
    return { status: 202, body: { success: true, message: MESSAGES.processing, data: cardView(card) } };
  if (card.status === 'failed') return codeError('issue_failed');
  return ok(cardView(card), 201);
}
