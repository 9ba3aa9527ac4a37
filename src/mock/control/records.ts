// The records themselves, for reading (the console's state view): merchants with their keys
// (never a secret), customers, cards with their balance, card activity, deposits. Each in the
// API's own view (views.ts) plus the merchant and mode it belongs to.
import { ok, page, type Reply } from '../envelope.js';
import { isoOrNull, isoTime } from '../clock.js';
import { cardView, customerView, depositView, transactionView } from '../views.js';
import type { ControlRequest } from './request.js';

/** Decided: a read answers at most the newest 1,000 records of a kind (`total` says how many there are). */
export const MAX_RECORDS = 1000;

function newest<T extends { seq?: number; created_at?: number }>(list: T[]): T[] {
  return list.sort((a, b) => (b.seq ?? b.created_at ?? 0) - (a.seq ?? a.created_at ?? 0)).slice(0, MAX_RECORDS);
}

const listed = (data: unknown[], total: number): Reply => page(data, { total, shown: data.length });

export function listMerchants({ rt }: ControlRequest): Reply {
  const keys = Object.values(rt.state.keys);
  return ok(
    Object.values(rt.state.merchants).map((m) => ({
      id: m.id,
      default: m.id === rt.state.default_merchant_id,
      created_at: isoTime(m.created_at),
      keys: keys
        .filter((k) => k.merchant_id === m.id)
        .map((k) => ({
          key_id: k.key_id,
          mode: k.mode,
          scopes: k.scopes,
          ip_allowlist: k.ip_allowlist,
          revoked: k.revoked,
          expires_at: isoOrNull(k.expires_at),
          rolled: k.previous_secret !== null,
        })),
    })),
  );
}

export function listCustomers({ rt }: ControlRequest): Reply {
  const all = Object.values(rt.state.customers);
  return listed(
    newest(all).map((c) => ({ ...customerView(c), merchant_id: c.merchant_id, mode: c.kyc_mode })),
    all.length,
  );
}

export function listCards({ rt }: ControlRequest): Reply {
  const all = Object.values(rt.state.cards);
  return listed(
    newest(all).map((c) => ({
      ...cardView(c),
      merchant_id: c.merchant_id,
      transactions: rt.state.transactions[c.id]?.length ?? 0,
    })),
    all.length,
  );
}

export function listTransactions({ rt, query }: ControlRequest): Reply {
  const card = query.get('card_id');
  const all = card ? (rt.state.transactions[card] ?? []) : Object.values(rt.state.transactions).flat();
  return listed(
    newest([...all]).map((t) => ({ ...transactionView(t), card_id: t.card_id })),
    all.length,
  );
}

export function listDeposits({ rt }: ControlRequest): Reply {
  const all = Object.values(rt.state.deposits);
  return listed(
    newest(all).map((d) => ({ ...depositView(d), merchant_id: d.merchant_id })),
    all.length,
  );
}
