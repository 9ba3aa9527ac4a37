// The customer `cardctl smoke` registers: a complete individual with a BVN, as the spec's
// CustomerInput wants it (test mode approves it at once). The email names the run, so the
// smoke's customers are easy to tell apart in a sandbox portal.
export function smokeCustomer(runId: string): Record<string, unknown> {
  return {
    first_name: 'Smoke',
    last_name: 'Test',
    email: `smoke-${runId.toLowerCase()}@example.com`,
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
}
