import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';
import type { Result } from '../../output/render.js';

export default class DepositAddressesList extends BaseCommand {
  static override summary = 'List the deposit addresses, one per network. Live keys only.';
  static override examples = ['<%= config.bin %> deposit-addresses list -p live'];
  static override flags = { ...apiFlags };

  async run(): Promise<Result> {
    const { flags } = await this.parse(DepositAddressesList);
    const { listOperation } = await import('../../cli/resources.js');
    return listOperation(
      this.io,
      { ...flags, all: false, ndjson: false },
      'depositAddresses.list',
      undefined,
      'deposit-address',
    );
  }
}
