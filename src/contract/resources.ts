// Response resources and envelopes. Parsed tolerantly (spec, Versioning): unknown fields are
// kept, never an error.
import { z } from 'zod';

const ulid = z.string();
const dateTime = z.string().nullable();

export const CursorMetaSchema = z.looseObject({
  per_page: z.number().int(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
  previous_cursor: z.string().nullable(),
});
export type CursorMeta = z.infer<typeof CursorMetaSchema>;

export const CARD_STATUSES = ['pending', 'active', 'frozen', 'terminated', 'expired', 'failed'] as const;
export const CardSchema = z.looseObject({
  id: ulid,
  product_id: ulid,
  customer_id: ulid.nullable(),
  status: z.enum(CARD_STATUSES),
  mode: z.enum(['test', 'live']),
  masked_pan: z.string(),
  last4: z.string(),
  expiry: z.string().nullable(),
  currency: z.string(),
  balance_minor: z.number().int().min(0),
  created_at: dateTime,
});
export type Card = z.infer<typeof CardSchema>;

export const KYC_STATUSES = ['unsubmitted', 'pending', 'approved', 'rejected'] as const;
export const CustomerSchema = z.looseObject({
  id: ulid,
  customer_type: z.enum(['individual', 'business']),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  status: z.enum(['active', 'disabled']),
  kyc_status: z.enum(KYC_STATUSES).optional(),
  created_at: dateTime,
});
export type Customer = z.infer<typeof CustomerSchema> & Record<string, unknown>;

export const TRANSACTION_TYPES = ['authorization', 'capture', 'refund', 'reversal', 'decline'] as const;
export const TRANSACTION_STATUSES = ['pending', 'completed', 'declined', 'reversed'] as const;
export const CardTransactionSchema = z.looseObject({
  id: ulid,
  type: z.enum(TRANSACTION_TYPES),
  status: z.enum(TRANSACTION_STATUSES),
  amount_minor: z.number().int(),
  currency: z.string(),
  occurred_at: dateTime,
});
export type CardTransaction = z.infer<typeof CardTransactionSchema>;

export const DepositAddressSchema = z.looseObject({
  id: ulid,
  network: z.string(),
  asset: z.string(),
  address: z.string(),
  memo: z.string().nullable(),
  created_at: dateTime,
});
export type DepositAddress = z.infer<typeof DepositAddressSchema>;

export const DEPOSIT_STATUSES = ['pending', 'credited', 'flagged'] as const;
export const DepositSchema = z.looseObject({
  id: ulid,
  network: z.string(),
  asset: z.string(),
  asset_amount: z.string(),
  credited_amount_minor: z.number().int().min(0),
  currency: z.string(),
  rate: z.string(),
  status: z.enum(DEPOSIT_STATUSES),
  tx_id: z.string().nullable(),
  confirmed_at: dateTime,
});
export type Deposit = z.infer<typeof DepositSchema>;

/** Any JSON answer of the API: success or error, one resource, a page, or a Processing envelope. */
export const EnvelopeSchema = z.looseObject({
  success: z.boolean(),
  message: z.string().optional(),
  data: z.unknown().optional(),
  meta: CursorMetaSchema.optional(),
  errors: z.record(z.string(), z.unknown()).optional(),
});
export type Envelope = z.infer<typeof EnvelopeSchema>;

export const EVENT_TYPES = [
  'customer.kyc.pending',
  'customer.kyc.approved',
  'customer.kyc.rejected',
  'card.issued',
  'card.terminated',
  'deposit.credited',
  'withdrawal.requested',
  'withdrawal.approved',
  'withdrawal.completed',
  'withdrawal.rejected',
  'withdrawal.failed',
  'withdrawal.cancelled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** Webhook body: exactly these three keys. */
export interface WebhookEvent {
  type: EventType;
  occurred_at: string;
  data: Record<string, unknown>;
}
