import { Args } from '../../cli/oclif.js';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class CardsFreeze extends BaseCommand {
  static override summary = 'Freeze an active card: spending is blocked at once, the balance is kept.';
  static override examples = ['<%= config.bin %> cards freeze 01JD2Q7N8V3K4M5P6R7S8T9V0W'];
  static override args = { card: Args.string({ description: 'card id', required: true }) };
  static override flags = { ...apiFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CardsFreeze);
    const { showOperation } = await import('../../cli/resources.js');
    return showOperation(this.io, flags, 'cards.freeze', { params: { card: args.card } });
  }
}
