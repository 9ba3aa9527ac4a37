// Each merchant's customers in list order (oldest first by creation time, then sequence), kept per
// plain state object: `GET /customers` finds its page by binary search instead of looking at every
// customer. Built by one scan the first time a state object is listed (after a reset, a snapshot
// restore or a load); customers are never removed from a state, only added (`customers.create`).
import { newer, type Position } from './pagination.js';
import type { CustomerRec, MockState } from './state.js';

export const customerPosition = (c: CustomerRec): Position => [c.created_at, c.seq];

const orders = new WeakMap<MockState, Map<string, CustomerRec[]>>();

function build(plain: MockState): Map<string, CustomerRec[]> {
  const byMerchant = new Map<string, CustomerRec[]>();
  for (const c of Object.values(plain.customers)) {
    let list = byMerchant.get(c.merchant_id);
    if (!list) byMerchant.set(c.merchant_id, (list = []));
    list.push(c);
  }
  for (const list of byMerchant.values())
    list.sort((a, b) => (newer(customerPosition(b), customerPosition(a)) ? -1 : 1));
  return byMerchant;
}

/** The merchant's customers, oldest first (plain records: read them, never write them). */
export function customersInOrder(plain: MockState, merchantId: string): readonly CustomerRec[] {
  let byMerchant = orders.get(plain);
  if (!byMerchant) orders.set(plain, (byMerchant = build(plain)));
  return byMerchant.get(merchantId) ?? [];
}

/** A customer just added to `plain`: placed in its merchant's order (at the end, unless the clock went back). */
export function placeCustomer(plain: MockState, c: CustomerRec): void {
  const byMerchant = orders.get(plain);
  if (!byMerchant) return; // built with it included on first use
  let list = byMerchant.get(c.merchant_id);
  if (!list) byMerchant.set(c.merchant_id, (list = []));
  const pos = customerPosition(c);
  let i = list.length;
  while (i > 0 && newer(customerPosition(list[i - 1]!), pos)) i--;
  list.splice(i, 0, c);
}
