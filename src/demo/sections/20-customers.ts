import { CUSTOMER, CUSTOMER_INVALID } from '../fixtures.js';
import { type Section } from '../context.js';
import { bodyJson, expect, keyValues } from '../runner.js';

export const section: Section = {
  title: 'Customers: any API call with `request`, and the dedicated commands',
  async run(ctx) {
    const { r, ids, write, counts } = ctx;
    write('customer.json', JSON.stringify(CUSTOMER, null, 2) + '\n');
    write('customer-invalid.json', JSON.stringify(CUSTOMER_INVALID, null, 2) + '\n');
    await r.step({
      name: 'customers: create',
      title:
        'Any API call, signed, with `request`: create a customer from a file; --include shows the status line and headers',
      argv: ['request', 'POST', '/customers', '--data', '@customer.json', '--include'],
      maxLines: 16,
      check: (run) => {
        expect(/^HTTP\/1\.1 202\b/.test(run.stdout), 'the API should answer 202 Accepted');
        ids.customer = bodyJson<{ data: { id: string } }>(run.stdout).data.id;
        expect(/^[0-9A-Z]{26}$/.test(ids.customer ?? ''), 'the answer should carry the customer id');
        return `customer ${ids.customer}`;
      },
    });
    await r.step({
      name: 'customers: get',
      title: 'Read it back with `customers get`: in test mode the KYC verdict is approved at once',
      argv: ['customers', 'get', ids.customer],
      grep: '^(id|kyc_status|kyc_resolved_at) ',
      check: (run) => {
        const c = keyValues(run.stdout);
        expect(c.id === ids.customer, `customer ${c.id}, expected ${ids.customer}`);
        expect(c.kyc_status === 'approved', `kyc_status is ${c.kyc_status}, expected approved`);
        return 'kyc_status approved';
      },
    });
    const before422 = await counts();
    await r.step({
      name: 'customers: validation error',
      title:
        "A body with mistakes: refused before sending (nothing was sent), each field named with the API's message, exit 2",
      argv: ['customers', 'create', '--from', 'customer-invalid.json'],
      expectExit: 2,
      check: async (run) => {
        expect(
          /^\s+email: /m.test(run.stderr) && /^\s+phone_number: /m.test(run.stderr),
          'the refusal should name email and phone_number',
        );
        expect((await counts()).customers === before422.customers, 'a customer was created on the mock');
        return 'email and phone_number refused, nothing sent';
      },
    });
  },
};
