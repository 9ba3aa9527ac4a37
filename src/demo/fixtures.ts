// Request bodies the tour writes into its scratch folder, so the commands it shows use
// `--data @FILE` the way a user would.

/** A complete individual customer with a BVN (verified within seconds; test mode approves at once). */
export const CUSTOMER = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: 'ada@example.com',
  phone_number: '8012345678',
  dial_code: '+234',
  date_of_birth: '1990-12-10',
  id_type: 'bvn',
  id_number: '22212345678',
  line1: '1 Marina Road',
  city: 'Lagos',
  state: 'Lagos',
  postal_code: '100001',
  country: 'NGA',
  occupation: 'software_engineer',
  employment_status: 'employed',
  account_purpose: 'online_payments',
  annual_salary: '50000',
  expected_monthly_volume: '2000',
  terms_of_service_accepted: true,
};

/** The same customer with two typical mistakes: the API answers 422 `Validation failed.` naming both. */
export const CUSTOMER_INVALID = { ...CUSTOMER, email: 'ada(at)example.com', phone_number: '+234 801 234 5678' };
