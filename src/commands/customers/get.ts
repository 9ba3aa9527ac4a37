import { Args } from '../../cli/oclif.js';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class CustomersGet extends BaseCommand {
  static override summary = 'Show a customer, with its KYC status.';
  static override examples = [
    '<%= config.bin %> customers get 01JD2Q7N8V3K4M5P6R7S8T9V0W',
    '<%= config.bin %> customers get 01JD2Q7N8V3K4M5P6R7S8T9V0W --json | jq -r .kyc_status',
  ];
  static override args = { customer: Args.string({ description: 'customer id', required: true }) };
  static override flags = { ...apiFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CustomersGet);
    const { showOperation } = await import('../../cli/resources.js');
    return showOperation(this.io, flags, 'customers.get', { params: { customer: args.customer } });
  }
}
