// `kyc_not_approved` is temporary only while the verification is pending: for a rejected or
// never-submitted customer, waiting never helps. So the refusal is explained from the
// customer's current state, read once with the same session (issue 11). The single command
// (src/cli/resources.ts) and each row of `cards issue --batch` (src/client/batch.ts) use it.
import { CardctlError, withHint } from '../errors.js';
import type { ApiClient } from './client.js';
import { callOperation } from './operations.js';

interface CustomerState {
  kyc_status?: unknown;
  kyc_failure_reason?: unknown;
  status?: unknown;
}

/** The hint for a customer in this state, or undefined when the state is not one we know. */
export function kycHint(id: string, c: CustomerState): string | undefined {
  switch (c.kyc_status) {
    case 'pending':
      return `Customer ${id} is pending verification: wait for the verdict (watch \`cardctl customers get ${id}\`, or the customer.kyc.approved webhook), then send the same command again (same idempotency key: nothing was charged).`;
    case 'rejected': {
      const reason =
        typeof c.kyc_failure_reason === 'string' && /^[\w.-]{1,64}$/.test(c.kyc_failure_reason)
          ? c.kyc_failure_reason
          : 'no reason given';
      return `Customer ${id}'s verification was rejected (${reason}): waiting will not help. Correct the identity details with \`cardctl customers update ${id} ...\`, resubmit with \`cardctl customers kyc ${id}\`, and issue once it is approved.`;
    }
    case 'unsubmitted':
      return `Customer ${id}'s verification was never submitted: complete the details (\`cardctl customers update ${id} ...\`) and submit with \`cardctl customers kyc ${id}\`, then issue once it is approved.`;
    case 'approved':
      return `Customer ${id} reads approved now: send the same command again (same idempotency key: nothing was charged).`;
    default:
      return undefined;
  }
}

/**
 * The customer an issue names when its refusal is `kyc_not_approved` (the refusals worth a
 * state-specific hint); undefined for any other error or call.
 */
export function kycRefusedCustomer(call: { json?: unknown }, err: unknown): string | undefined {
  const customer = (call.json as { customer_id?: unknown } | undefined)?.customer_id;
  return err instanceof CardctlError && err.code === 'kyc_not_approved' && typeof customer === 'string'
    ? customer
    : undefined;
}

/** Reads the customer once with this client and returns the hint for its state; undefined when the read fails or the state is unknown. */
export async function readKycHint(client: ApiClient, customerId: string): Promise<string | undefined> {
  try {
    const res = await callOperation(client, 'customers.get', { params: { customer: customerId } });
    const customer = (res.body as { data?: CustomerState } | undefined)?.data;
    return customer ? kycHint(customerId, customer) : undefined;
  } catch {
    return undefined;
  }
}

/** The same refusal with `hint` in place of the generic one; the original when there is none. */
export const withKycHint = (err: CardctlError, hint: string | undefined): CardctlError =>
  hint ? withHint(err, hint) : err;

/** The same refusal with a hint for the customer's state; the original when the read fails. */
export async function explainKycRefusal(
  client: ApiClient,
  customerId: string,
  err: CardctlError,
): Promise<CardctlError> {
  return withKycHint(err, await readKycHint(client, customerId));
}
