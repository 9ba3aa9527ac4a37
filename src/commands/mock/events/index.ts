import { Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockEvents extends MockControlCommand {
  static override summary = 'Show the recorded events, oldest first.';
  static override examples = ['<%= config.bin %> mock events --json'];
  static override flags = {
    merchant: Flags.string({ description: 'only this merchant' }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockEvents);
    return this.renderList(
      await this.controlPage(
        flags,
        'GET',
        flags.merchant ? `/events?merchant_id=${encodeURIComponent(flags.merchant)}` : '/events',
      ),
    );
  }
}
