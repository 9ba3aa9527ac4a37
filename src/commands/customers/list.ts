import { apiFlags, listFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';
import type { Result } from '../../output/render.js';

export default class CustomersList extends BaseCommand {
  static override summary = 'List customers, newest first.';
  static override examples = [
    '<%= config.bin %> customers list --per-page 50',
    '<%= config.bin %> customers list --all --ndjson | jq -r \'select(.kyc_status == "rejected") | .id\'',
  ];
  static override flags = { ...apiFlags, ...listFlags };

  async run(): Promise<Result> {
    const { flags } = await this.parse(CustomersList);
    const { listOperation } = await import('../../cli/resources.js');
    return listOperation(this.io, flags, 'customers.list', undefined, 'customer');
  }
}
