// The records of a mock state file, as zod schemas: `mock start --state` checks every record on
// load (docs/mock-state.md), so a file edited by hand or written by another tool is refused with
// the collection, the record and the field, never run on until a handler meets a wrong type.
// The enums come from the contract (src/contract/resources.ts). Loose objects: fields a later version adds are kept. Each schema is checked against the record's
// TypeScript type (state.ts) at compile time.
import { z } from 'zod';
import { CARD_STATUSES, KYC_STATUSES, TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../contract/resources.js';
import type {
  AddressRec,
  CardRec,
  CustomerRec,
  DeliveryRec,
  DepositRec,
  EndpointRec,
  KeyRec,
  MerchantRec,
  TransactionRec,
  WalletRec,
} from './state.js';

const str = z.string();
const int = z.number().int();
const ms = z.number();
const msOrNull = ms.nullable();
const mode = z.enum(['test', 'live']);

const merchant = z.looseObject({ id: str, webhook_secret: str, created_at: ms });
const key = z.looseObject({
  key_id: str,
  secret: str,
  previous_secret: str.nullable(),
  previous_secret_until: msOrNull,
  mode,
  merchant_id: str,
  scopes: z.array(str),
  ip_allowlist: z.array(str),
  revoked: z.boolean(),
  revoked_at: msOrNull.optional(),
  expires_at: msOrNull.optional(),
  created_at: ms,
});
const wallet = z.looseObject({
  merchant_id: str,
  mode,
  currency: str,
  balance_minor: int,
  fees_collected_minor: int,
  reserved_minor: int,
  initial_balance_minor: int,
  deposits_credited_minor: int,
});
const customer = z.looseObject({
  id: str,
  seq: int,
  merchant_id: str,
  fields: z.record(z.string(), z.unknown()),
  status: z.enum(['active', 'disabled']),
  kyc_status: z.enum(KYC_STATUSES),
  kyc_failure_reason: str.nullable(),
  kyc_submitted_at: msOrNull,
  kyc_resolved_at: msOrNull,
  kyc_submit_due: msOrNull,
  kyc_verdict_due: msOrNull,
  kyc_mode: mode,
  created_at: ms,
});
const card = z.looseObject({
  id: str,
  seq: int,
  merchant_id: str,
  mode,
  product_id: str,
  customer_id: str.nullable(),
  status: z.enum(CARD_STATUSES),
  masked_pan: str,
  last4: str,
  expiry: str,
  expires_at: msOrNull,
  currency: str,
  balance_minor: int.min(0),
  pending_load_minor: int,
  pending_fee_minor: int,
  created_at: ms,
});
const transaction = z.looseObject({
  id: str,
  seq: int,
  card_id: str,
  type: z.enum(TRANSACTION_TYPES),
  status: z.enum(TRANSACTION_STATUSES),
  amount_minor: int,
  currency: str,
  occurred_at: ms,
});
const address = z.looseObject({
  id: str,
  merchant_id: str,
  network: str,
  asset: str,
  address: str,
  memo: str.nullable(),
  created_at: ms,
});
const deposit = z.looseObject({
  id: str,
  seq: int,
  merchant_id: str,
  network: str,
  asset: str,
  asset_amount: str,
  credited_amount_minor: int,
  currency: str,
  rate: str,
  status: z.enum(['pending', 'credited', 'flagged']),
  tx_id: str.nullable(),
  confirmed_at: msOrNull,
  seen_at: ms,
});
const endpoint = z.looseObject({
  id: str,
  merchant_id: str,
  url: str,
  created_at: ms,
  disabled_at: msOrNull.optional(),
});
const delivery = z.looseObject({
  id: str,
  seq: int,
  event_id: str,
  endpoint_id: str,
  merchant_id: str,
  type: str,
  body: str,
  attempts: z.array(
    z.looseObject({ at: ms, sent_at: ms, status: int.nullable(), error: str.nullable(), duration_ms: ms }),
  ),
  state: z.enum(['pending', 'succeeded', 'dead']),
  next_attempt_at: msOrNull,
  created_at: ms,
});

// compile-time: each schema's output is assignable to its record type
type Fits<S extends z.ZodType, T> = z.output<S> extends T ? true : never;
const fits: [
  Fits<typeof merchant, MerchantRec>,
  Fits<typeof key, KeyRec>,
  Fits<typeof wallet, WalletRec>,
  Fits<typeof customer, CustomerRec>,
  Fits<typeof card, CardRec>,
  Fits<typeof transaction, TransactionRec>,
  Fits<typeof address, AddressRec>,
  Fits<typeof deposit, DepositRec>,
  Fits<typeof endpoint, EndpointRec>,
  Fits<typeof delivery, DeliveryRec>,
] = [true, true, true, true, true, true, true, true, true, true];
void fits;

/** The schema of one record, per keyed collection (transactions: of each item of a card's list). */
export const RECORD_SCHEMAS: Partial<Record<string, z.ZodType>> = {
  merchants: merchant,
  keys: key,
  wallets: wallet,
  customers: customer,
  cards: card,
  transactions: transaction,
  addresses: address,
  deposits: deposit,
  endpoints: endpoint,
  deliveries: delivery,
};

/** What is wrong with a record (`field: message`), or null. */
export function recordProblem(collection: string, rec: unknown): string | null {
  const schema = RECORD_SCHEMAS[collection];
  if (!schema) return null;
  const r = schema.safeParse(rec);
  if (r.success) return null;
  const issue = r.error.issues[0]!;
  return `${issue.path.join('.') || '(record)'}: ${issue.message}`;
}
