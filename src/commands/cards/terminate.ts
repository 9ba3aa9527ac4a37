import { Args, Flags } from '../../cli/oclif.js';
import { moneyFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';
import { TERMINATION_REASONS } from '../../contract/requests.js';

export default class CardsTerminate extends BaseCommand {
  static override summary = 'Terminate a card for good; its balance returns to the wallet.';
  static override description =
    'Final: a terminated card cannot be used again. A card too newly issued is refused (exit 5, termination_blocked): freeze it and retry later. ' +
    'Always sent with an Idempotency-Key and recorded in the journal.';
  static override examples = ['<%= config.bin %> cards terminate 01JD2Q7N8V3K4M5P6R7S8T9V0W --reason lost'];
  static override args = { card: Args.string({ description: 'card id', required: true }) };
  static override flags = {
    ...moneyFlags,
    reason: Flags.string({
      description: 'why (the API default is no_longer_needed)',
      options: [...TERMINATION_REASONS],
    }),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key (generated otherwise); reuse it to replay' }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CardsTerminate);
    const { showOperation } = await import('../../cli/resources.js');
    const json = flags.reason !== undefined ? { reason: flags.reason } : undefined;
    return showOperation(this.io, flags, 'cards.terminate', {
      params: { card: args.card },
      json,
      idempotencyKey: flags['idempotency-key'],
    });
  }
}
