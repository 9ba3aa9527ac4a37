// The customer `cardctl smoke` registers: a complete individual with a BVN, as the spec's
// CustomerInput wants it (test mode approves it at once). The email names the run, so the
// smoke's customers are easy to tell apart in a sandbox portal.
import { bvnIndividual } from '../../contract/sample-customer.js';

export function smokeCustomer(runId: string): Record<string, unknown> {
  return bvnIndividual({ first_name: 'Smoke', last_name: 'Test', email: `smoke-${runId.toLowerCase()}@example.com` });
}
