import { Args, Flags } from '@oclif/core';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class CardsRecharge extends BaseCommand {
  static override summary = 'Load money onto a card from the wallet.';
  static override description =
    'Always sent with an Idempotency-Key (generated and printed on stderr unless given) and recorded in the journal. ' +
    'An unknown outcome (202, 500, dropped connection) exits 7: run the same command with the same key, or `cardctl ops replay`.';
  static override examples = ['<%= config.bin %> cards recharge 01JD2Q7N8V3K4M5P6R7S8T9V0W --amount 2500 --idempotency-key topup-77'];
  static override args = { card: Args.string({ description: 'card id', required: true }) };
  static override flags = {
    ...apiFlags,
    amount: Flags.integer({ description: 'amount in minor units (at least 1)', required: true, min: 1 }),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key (generated otherwise); reuse it to replay' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(CardsRecharge);
    this.jsonOutput = flags.json;
    const { showOperation } = await import('../../cli/resources.js');
    await showOperation(flags, 'cards.recharge', { params: { card: args.card }, json: { amount: flags.amount }, idempotencyKey: flags['idempotency-key'] });
  }
}
