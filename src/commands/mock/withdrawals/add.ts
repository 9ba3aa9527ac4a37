import { Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockWithdrawalsAdd extends MockControlCommand {
  static override summary = 'Emit the events of a withdrawal with the given outcome.';
  static override examples = ['<%= config.bin %> mock withdrawals add --amount 50000 --fee 500 --outcome rejected'];
  static override flags = {
    amount: Flags.integer({ description: 'amount in minor units', required: true, min: 1 }),
    fee: Flags.integer({ description: 'fee in minor units', default: 0, min: 0 }),
    outcome: Flags.string({
      description: 'outcome',
      options: ['completed', 'rejected', 'failed', 'cancelled'],
      default: 'completed',
    }),
    merchant: Flags.string({ description: 'merchant id (default: the banner merchant)' }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockWithdrawalsAdd);
    return this.render(
      await this.control(flags, 'POST', '/withdrawals', {
        amount_minor: flags.amount,
        fee_minor: flags.fee,
        outcome: flags.outcome,
        merchant_id: flags.merchant,
      }),
    );
  }
}
