// Request bodies the tour writes into its scratch folder, so the commands it shows use
// `--data @FILE` the way a user would.
import { bvnIndividual } from '../contract/sample-customer.js';

/** A complete individual customer with a BVN (verified within seconds; test mode approves at once). */
export const CUSTOMER = bvnIndividual({ first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' });

/** The same customer with two typical mistakes: the API answers 422 `Validation failed.` naming both. */
export const CUSTOMER_INVALID = { ...CUSTOMER, email: 'ada(at)example.com', phone_number: '+234 801 234 5678' };
