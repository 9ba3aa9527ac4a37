import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';
import { customerFieldFlags } from '../../cli/customer-input.js';

export default class CustomersCreate extends BaseCommand {
  static override summary = 'Register a cardholder; verification (KYC) starts at once.';
  static override description =
    'Every CustomerInput field is required except customer_type and place_of_birth (and the conditional ones: ' +
    'id_front_image for document id types, business_name and registration_number for a business). ' +
    'The body is checked before sending with the API\'s own rules and messages. Answers 202 with kyc_status "unsubmitted".';
  static override examples = [
    '<%= config.bin %> customers create --from ada.json',
    '<%= config.bin %> customers create --from ada.json --email ada@example.com --json | jq -r .id',
    '<%= config.bin %> customers create --first-name Ada --last-name Obi --email ada@example.com --phone-number 8031234567 --dial-code +234 ' +
      '--date-of-birth 1990-04-12 --id-type bvn --id-number 22345678901 --line1 "1 Marina" --city Lagos --state Lagos --postal-code 101001 ' +
      '--country NGA --occupation software_engineer --employment-status employed --account-purpose personal --annual-salary 50000 ' +
      '--expected-monthly-volume 2000 --terms-of-service-accepted',
  ];
  static override flags = { ...apiFlags, ...customerFieldFlags(false) };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(CustomersCreate);
    const [{ showOperation }, { customerBody }] = await Promise.all([
      import('../../cli/resources.js'),
      import('../../cli/customer-input.js'),
    ]);
    return showOperation(this.io, flags, 'customers.create', { json: await customerBody(flags) });
  }
}
