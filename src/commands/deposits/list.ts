import { apiFlags, listFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';
import type { Result } from '../../output/render.js';

export default class DepositsList extends BaseCommand {
  static override summary = 'List received deposits, newest first. Live keys only.';
  static override examples = [
    '<%= config.bin %> deposits list -p live',
    '<%= config.bin %> deposits list -p live --all --ndjson | jq .credited_amount_minor',
  ];
  static override flags = { ...apiFlags, ...listFlags };

  async run(): Promise<Result> {
    const { flags } = await this.parse(DepositsList);
    const { listOperation } = await import('../../cli/resources.js');
    return listOperation(this.io, flags, 'deposits.list', undefined, 'deposit');
  }
}
