import { Args } from '../../cli/oclif.js';
import { apiFlags, listFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';
import type { Result } from '../../output/render.js';

export default class CardsTransactions extends BaseCommand {
  static override summary = 'List the issuer-reported activity of a card, newest first.';
  static override examples = [
    '<%= config.bin %> cards transactions 01JD2Q7N8V3K4M5P6R7S8T9V0W',
    '<%= config.bin %> cards transactions 01JD2Q7N8V3K4M5P6R7S8T9V0W --all --ndjson | jq .amount_minor',
  ];
  static override args = { card: Args.string({ description: 'card id', required: true }) };
  static override flags = { ...apiFlags, ...listFlags };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(CardsTransactions);
    const { listOperation } = await import('../../cli/resources.js');
    return listOperation(this.io, flags, 'cards.transactions', { card: args.card }, 'transaction');
  }
}
