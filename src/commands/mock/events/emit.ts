import { Args, Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';
import { usageError } from '../../../errors.js';

export default class MockEventsEmit extends MockControlCommand {
  static override summary = 'Record an event of any of the 12 types (sample data unless --data).';
  static override examples = ['<%= config.bin %> mock events emit card.issued'];
  static override args = {
    type: Args.string({ description: 'event type, e.g. card.issued', required: true }),
  };
  static override flags = {
    data: Flags.string({ description: 'data object as JSON' }),
    mode: Flags.string({ description: 'test or live', options: ['test', 'live'], default: 'test' }),
    merchant: Flags.string({ description: 'merchant id (default: the banner merchant)' }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockEventsEmit);
    let data: unknown;
    if (flags.data !== undefined) {
      try {
        data = JSON.parse(flags.data);
      } catch {
        throw usageError(
          '--data must be a JSON object, e.g. \'{"card_id":"01J..."}\'.',
          'See `cardctl mock events emit --help`.',
        );
      }
    }
    return this.render(
      await this.control(flags, 'POST', '/events', {
        type: args.type,
        data,
        mode: flags.mode,
        merchant_id: flags.merchant,
      }),
    );
  }
}
