import { Args } from '../../cli/oclif.js';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class CustomersKyc extends BaseCommand {
  static override summary =
    'Submit a customer for verification with its stored details (after a rejection and a fix, or a profile completed by update).';
  static override description =
    'Safe to call repeatedly: an approved customer answers 200 unchanged. Missing fields are refused with kyc_incomplete (exit 5), naming them.';
  static override examples = ['<%= config.bin %> customers kyc 01JD2Q7N8V3K4M5P6R7S8T9V0W'];
  static override args = { customer: Args.string({ description: 'customer id', required: true }) };
  static override flags = { ...apiFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CustomersKyc);
    const { showOperation } = await import('../../cli/resources.js');
    return showOperation(this.io, flags, 'customers.kyc', { params: { customer: args.customer } });
  }
}
