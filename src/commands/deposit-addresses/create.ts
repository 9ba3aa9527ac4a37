import { Flags } from '../../cli/oclif.js';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class DepositAddressesCreate extends BaseCommand {
  static override summary =
    'Get the permanent deposit address of a network (created on first call, the same one after). Live keys only.';
  static override description =
    "Send only the address's asset to it. A memo, when not null, is mandatory on the transfer.";
  static override examples = ['<%= config.bin %> deposit-addresses create --network trc20 -p live'];
  static override flags = {
    ...apiFlags,
    network: Flags.string({ description: 'an enabled network, e.g. trc20, erc20, bep20', required: true }),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(DepositAddressesCreate);
    const { showOperation } = await import('../../cli/resources.js');
    return showOperation(this.io, flags, 'depositAddresses.create', { json: { network: flags.network } });
  }
}
