// The API's view of each stored record: exactly the spec's fields, nothing internal.
import { isoOrNull, isoTime } from './clock.js';
import type { AddressRec, CardRec, CustomerRec, DepositRec, TransactionRec } from './state.js';

export function cardView(c: CardRec): Record<string, unknown> {
  return {
    id: c.id,
    product_id: c.product_id,
    customer_id: c.customer_id,
    status: c.status,
    mode: c.mode,
    masked_pan: c.masked_pan,
    last4: c.last4,
    expiry: c.expiry,
    currency: c.currency,
    balance_minor: c.balance_minor,
    created_at: isoTime(c.created_at),
  };
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export function customerView(c: CustomerRec): Record<string, unknown> {
  const f = c.fields;
  const idNumber = str(f.id_number);
  return {
    id: c.id,
    customer_type: str(f.customer_type) ?? 'individual',
    business_name: str(f.business_name),
    registration_number: str(f.registration_number),
    first_name: str(f.first_name) ?? '',
    last_name: str(f.last_name) ?? '',
    email: str(f.email) ?? '',
    phone_number: str(f.phone_number),
    dial_code: str(f.dial_code),
    date_of_birth: str(f.date_of_birth),
    id_type: str(f.id_type),
    id_number_last4: idNumber === null ? null : idNumber.slice(-4),
    line1: str(f.line1),
    city: str(f.city),
    state: str(f.state),
    postal_code: str(f.postal_code),
    country: str(f.country),
    status: c.status,
    kyc_status: c.kyc_status,
    kyc_failure_reason: c.kyc_failure_reason,
    kyc_submitted_at: isoOrNull(c.kyc_submitted_at),
    kyc_resolved_at: isoOrNull(c.kyc_resolved_at),
    occupation: str(f.occupation),
    employment_status: str(f.employment_status),
    account_purpose: str(f.account_purpose),
    annual_salary: str(f.annual_salary),
    expected_monthly_volume: str(f.expected_monthly_volume),
    place_of_birth: str(f.place_of_birth),
    created_at: isoTime(c.created_at),
  };
}

export function transactionView(t: TransactionRec): Record<string, unknown> {
  return {
    id: t.id,
    type: t.type,
    status: t.status,
    amount_minor: t.amount_minor,
    currency: t.currency,
    occurred_at: isoTime(t.occurred_at),
  };
}

export function addressView(a: AddressRec): Record<string, unknown> {
  return {
    id: a.id,
    network: a.network,
    asset: a.asset,
    address: a.address,
    memo: a.memo,
    created_at: isoTime(a.created_at),
  };
}

export function depositView(d: DepositRec): Record<string, unknown> {
  return {
    id: d.id,
    network: d.network,
    asset: d.asset,
    asset_amount: d.asset_amount,
    credited_amount_minor: d.credited_amount_minor,
    currency: d.currency,
    rate: d.rate,
    status: d.status,
    tx_id: d.tx_id,
    confirmed_at: isoOrNull(d.confirmed_at),
  };
}
