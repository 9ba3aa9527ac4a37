import { Args } from '../../cli/oclif.js';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class CardsUnfreeze extends BaseCommand {
  static override summary = 'Unfreeze a frozen card.';
  static override examples = ['<%= config.bin %> cards unfreeze 01JD2Q7N8V3K4M5P6R7S8T9V0W'];
  static override args = { card: Args.string({ description: 'card id', required: true }) };
  static override flags = { ...apiFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CardsUnfreeze);
    const { showOperation } = await import('../../cli/resources.js');
    return showOperation(this.io, flags, 'cards.unfreeze', { params: { card: args.card } });
  }
}
