// Money movements the issuer or the chain reports: card transactions, deposits, withdrawals;
// and the wallets they move.
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../contract/resources.js';
import { ok, type Reply } from '../envelope.js';
import { isReply } from '../pagination.js';
import { newId, randomHex, cryptoRandom } from '../random.js';
import { nextSeq, CURRENCY, DEPOSIT_RATE, NETWORK_ASSET, type DepositRec, type TransactionRec } from '../state.js';
import { depositView, transactionView } from '../views.js';
import { settleCard } from '../card-lifecycle.js';
import { Input, merchantOf, notFoundThing, type ControlRequest } from './request.js';

export function wallets({ rt }: ControlRequest): Reply {
  const cardsBalance = new Map<string, number>();
  for (const c of Object.values(rt.state.cards)) {
    const k = `${c.merchant_id}:${c.mode}`;
    cardsBalance.set(k, (cardsBalance.get(k) ?? 0) + c.balance_minor);
  }
  return ok(
    Object.entries(rt.state.wallets).map(([k, w]) => ({
      merchant_id: w.merchant_id,
      mode: w.mode,
      currency: w.currency,
      balance_minor: w.balance_minor,
      cards_balance_minor: cardsBalance.get(k) ?? 0,
      fees_collected_minor: w.fees_collected_minor,
      reserved_minor: w.reserved_minor,
      initial_balance_minor: w.initial_balance_minor,
      deposits_credited_minor: w.deposits_credited_minor,
    })),
  );
}

export function addTransaction({ rt, body, params }: ControlRequest): Reply {
  const input = new Input(body);
  const type = input.oneOf('type', TRANSACTION_TYPES);
  const status = input.oneOf('status', TRANSACTION_STATUSES);
  const amount = input.integer('amount_minor', 1, Number.MAX_SAFE_INTEGER);
  const currency = input.string('currency', /^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD.', true);
  let occurred: number | undefined;
  if (input.has('occurred_at')) {
    const t = typeof body.occurred_at === 'string' ? Date.parse(body.occurred_at) : NaN;
    if (Number.isNaN(t)) input.add('occurred_at', 'The occurred_at must be an ISO 8601 date-time.');
    else occurred = t;
  }
  const bad = input.fail();
  if (bad) return bad;
  const card = Object.hasOwn(rt.state.cards, params[0]!) ? rt.state.cards[params[0]!] : undefined;
  if (!card) return notFoundThing('Card');
  settleCard(rt, card);
  const now = rt.now();
  // issuer-reported activity: recorded for the list, balances are the wallet's business
  const tx: TransactionRec = {
    id: newId(cryptoRandom, now),
    seq: nextSeq(rt.state),
    card_id: card.id,
    type: type!,
    status: status!,
    amount_minor: amount!,
    currency: currency ?? card.currency,
    occurred_at: occurred ?? now,
  };
  (rt.state.transactions[card.id] ??= []).push(tx);
  rt.markDirty();
  return ok(transactionView(tx), 201);
}

/** "12.345" -> 1234 minor units at the 1:1 rate (truncated, never rounded up). */
function toMinor(assetAmount: string): number {
  const [int, frac = ''] = assetAmount.split('.');
  return Number(int) * 100 + Number((frac + '00').slice(0, 2));
}

export function addDeposit({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const network = input.string('network', /^[a-z0-9_-]{1,32}$/, 'must be a network name such as trc20.');
  const amount = input.string(
    'asset_amount',
    /^\d{1,12}(\.\d{1,18})?$/,
    'must be a positive decimal string such as "100.50".',
  );
  const status = input.oneOf('status', ['pending', 'credited', 'flagged'] as const, 'credited');
  if (amount !== undefined && toMinor(amount) <= 0 && !/[1-9]/.test(amount))
    input.add('asset_amount', 'The asset_amount must be greater than zero.');
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const now = rt.now();
  const credited = status === 'pending' ? 0 : toMinor(amount!);
  const deposit: DepositRec = {
    id: newId(cryptoRandom, now),
    seq: nextSeq(rt.state),
    merchant_id: merchant,
    network: network!,
    asset: NETWORK_ASSET,
    asset_amount: amount!,
    credited_amount_minor: credited,
    currency: CURRENCY,
    rate: DEPOSIT_RATE,
    status: status!,
    tx_id: (network === 'trc20' ? '' : '0x') + randomHex(cryptoRandom, 32),
    confirmed_at: status === 'pending' ? null : now,
    seen_at: now,
  };
  rt.state.deposits[deposit.id] = deposit;
  if (status !== 'pending') {
    // credited and flagged deposits are both in the wallet (flagged: marked for review)
    const wallet = rt.wallet(merchant, 'live');
    wallet.balance_minor += credited;
    wallet.deposits_credited_minor += credited;
    rt.events.record(merchant, 'live', 'deposit.credited', { deposit_id: deposit.id, credited_amount_minor: credited });
  }
  rt.markDirty();
  return ok(depositView(deposit), 201);
}

const WITHDRAWAL_PATHS: Record<string, string[]> = {
  completed: ['withdrawal.requested', 'withdrawal.approved', 'withdrawal.completed'],
  rejected: ['withdrawal.requested', 'withdrawal.rejected'],
  failed: ['withdrawal.requested', 'withdrawal.approved', 'withdrawal.failed'],
  cancelled: ['withdrawal.requested', 'withdrawal.cancelled'],
};

export function addWithdrawal({ rt, body }: ControlRequest): Reply {
  const input = new Input(body);
  const amount = input.integer('amount_minor', 1, Number.MAX_SAFE_INTEGER);
  const fee = input.integer('fee_minor', 0, Number.MAX_SAFE_INTEGER, 0);
  const outcome = input.oneOf('outcome', Object.keys(WITHDRAWAL_PATHS));
  if (amount !== undefined && fee !== undefined && fee > amount)
    input.add('fee_minor', 'The fee_minor must not exceed amount_minor.');
  const bad = input.fail();
  if (bad) return bad;
  const merchant = merchantOf(rt, body);
  if (isReply(merchant)) return merchant;
  const id = newId(cryptoRandom, rt.now());
  const types = WITHDRAWAL_PATHS[outcome!]!;
  for (const type of types) {
    const data: Record<string, unknown> = { withdrawal_id: id, amount_minor: amount };
    if (type === 'withdrawal.requested') data.fee_minor = fee;
    if (type === 'withdrawal.completed') Object.assign(data, { fee_minor: fee, net_amount_minor: amount! - fee! });
    rt.events.record(merchant, 'live', type, data);
  }
  rt.state.withdrawals += 1;
  rt.markDirty();
  return ok({ withdrawal_id: id, events: types }, 201);
}
