import { Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockDepositsAdd extends MockControlCommand {
  static override summary = 'An incoming deposit (credited ones credit the live wallet).';
  static override examples = ['<%= config.bin %> mock deposits add --network trc20 --asset-amount 250'];
  static override flags = {
    network: Flags.string({ description: 'network, e.g. trc20', required: true }),
    'asset-amount': Flags.string({ description: 'on-chain amount, a decimal string such as 100.50', required: true }),
    status: Flags.string({
      description: 'pending, credited or flagged',
      options: ['pending', 'credited', 'flagged'],
      default: 'credited',
    }),
    merchant: Flags.string({ description: 'merchant id (default: the banner merchant)' }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockDepositsAdd);
    return this.render(
      await this.control(flags, 'POST', '/deposits', {
        network: flags.network,
        asset_amount: flags['asset-amount'],
        status: flags.status,
        merchant_id: flags.merchant,
      }),
    );
  }
}
