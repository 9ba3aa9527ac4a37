import { Args } from '../../cli/oclif.js';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class CardsGet extends BaseCommand {
  static override summary = 'Show a card in its current state (the poll target of a pending card).';
  static override examples = [
    '<%= config.bin %> cards get 01JD2Q7N8V3K4M5P6R7S8T9V0W',
    '<%= config.bin %> cards get 01JD2Q7N8V3K4M5P6R7S8T9V0W --json | jq .balance_minor',
  ];
  static override args = { card: Args.string({ description: 'card id', required: true }) };
  static override flags = { ...apiFlags };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(CardsGet);
    const { showOperation } = await import('../../cli/resources.js');
    return showOperation(this.io, flags, 'cards.get', { params: { card: args.card } });
  }
}
