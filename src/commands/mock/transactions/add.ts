import { Args, Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockTransactionsAdd extends MockControlCommand {
  static override summary = 'Record issuer-reported activity on a card.';
  static override examples = ['<%= config.bin %> mock transactions add 01J... --type capture --amount 1250'];
  static override args = {
    card: Args.string({ description: 'card id', required: true }),
  };
  static override flags = {
    type: Flags.string({
      description: 'transaction type',
      options: ['authorization', 'capture', 'refund', 'reversal', 'decline'],
      required: true,
    }),
    status: Flags.string({
      description: 'transaction status',
      options: ['pending', 'completed', 'declined', 'reversed'],
      default: 'completed',
    }),
    amount: Flags.integer({ description: 'amount in minor units (positive)', required: true, min: 1 }),
    'occurred-at': Flags.string({ description: 'ISO 8601 time (default: the simulated now)' }),
    currency: Flags.string({ description: 'ISO 4217 code (default: the card currency)' }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockTransactionsAdd);
    return this.render(
      await this.control(flags, 'POST', `/cards/${encodeURIComponent(args.card)}/transactions`, {
        type: flags.type,
        status: flags.status,
        amount_minor: flags.amount,
        occurred_at: flags['occurred-at'],
        currency: flags.currency,
      }),
    );
  }
}
