// How the resource commands show the spec's resources to people: a key-value block for one,
// a table for a list. Columns are a choice of fields; `--json` shows every field, unknown
// ones included.
import type { Column } from './text.js';

/** What the list commands list (one card is shown as a key-value block, and no endpoint lists cards). */
export type ResourceKind = 'transaction' | 'customer' | 'deposit-address' | 'deposit';

type Row = Record<string, unknown>;
const field =
  (name: string): ((r: Row) => unknown) =>
  (r) =>
    r[name];

export const COLUMNS: Record<ResourceKind, ReadonlyArray<Column<Row>>> = {
  transaction: [
    { header: 'ID', get: field('id') },
    { header: 'TYPE', get: field('type') },
    { header: 'STATUS', get: field('status') },
    { header: 'AMOUNT_MINOR', get: field('amount_minor') },
    { header: 'CURRENCY', get: field('currency') },
    { header: 'OCCURRED', get: field('occurred_at') },
  ],
  customer: [
    { header: 'ID', get: field('id') },
    {
      header: 'NAME',
      get: (r) => [r.first_name, r.last_name].filter((s) => typeof s === 'string' && s).join(' ') || null,
    },
    { header: 'EMAIL', get: field('email') },
    { header: 'TYPE', get: field('customer_type') },
    { header: 'KYC', get: field('kyc_status') },
    { header: 'STATUS', get: field('status') },
    { header: 'CREATED', get: field('created_at') },
  ],
  'deposit-address': [
    { header: 'ID', get: field('id') },
    { header: 'NETWORK', get: field('network') },
    { header: 'ASSET', get: field('asset') },
    { header: 'ADDRESS', get: field('address') },
    { header: 'MEMO', get: field('memo') },
    { header: 'CREATED', get: field('created_at') },
  ],
  deposit: [
    { header: 'ID', get: field('id') },
    { header: 'NETWORK', get: field('network') },
    { header: 'ASSET', get: field('asset') },
    { header: 'ASSET_AMOUNT', get: field('asset_amount') },
    { header: 'CREDITED_MINOR', get: field('credited_amount_minor') },
    { header: 'CURRENCY', get: field('currency') },
    { header: 'STATUS', get: field('status') },
    { header: 'TX', get: field('tx_id') },
    { header: 'CONFIRMED', get: field('confirmed_at') },
  ],
};

/** What a list is called in messages ("No cards."). */
export const PLURAL: Record<ResourceKind, string> = {
  transaction: 'transactions',
  customer: 'customers',
  'deposit-address': 'deposit addresses',
  deposit: 'deposits',
};
