import { Args } from '../../cli/oclif.js';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';
import { customerFieldFlags } from '../../cli/customer-input.js';
import { usageError } from '../../errors.js';

export default class CustomersUpdate extends BaseCommand {
  static override summary = 'Change some fields of a customer, or enable or disable it (--status).';
  static override description =
    'Changing an identity field (name, date of birth, id, address, verification profile) sends an approved customer back to pending; ' +
    'existing cards are unaffected. --status disabled blocks new card issues and keeps the verification.';
  static override examples = [
    '<%= config.bin %> customers update 01JD2Q7N8V3K4M5P6R7S8T9V0W --status disabled',
    '<%= config.bin %> customers update 01JD2Q7N8V3K4M5P6R7S8T9V0W --line1 "2 Marina" --postal-code 101002',
  ];
  static override args = { customer: Args.string({ description: 'customer id', required: true }) };
  static override flags = { ...apiFlags, ...customerFieldFlags(true) };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CustomersUpdate);
    const [{ showOperation }, { customerBody }] = await Promise.all([
      import('../../cli/resources.js'),
      import('../../cli/customer-input.js'),
    ]);
    const json = await customerBody(flags);
    if (Object.keys(json).length === 0)
      throw usageError(
        'nothing to update: no field was given.',
        'Pass at least one field flag (see --help), --status, or --from FILE.',
      );
    return showOperation(this.io, flags, 'customers.update', { params: { customer: args.customer }, json });
  }
}
