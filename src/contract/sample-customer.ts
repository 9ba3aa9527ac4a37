// A complete individual customer with a BVN, as the spec's CustomerInput wants it: verified
// within seconds, and test mode approves it at once. `cardctl smoke` registers one, and the demo
// writes one to the file it creates customers from; each gives its own name and email.

export interface PersonName {
  first_name: string;
  last_name: string;
  email: string;
}

/** The customer body: the person's name and email first, then the fields every sample shares. */
export function bvnIndividual(person: PersonName) {
  return {
    ...person,
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
