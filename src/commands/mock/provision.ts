import { Args, Flags } from '../../cli/oclif.js';
import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockProvision extends MockControlCommand {
  static override summary = 'Finish provisioning a pending card (after an issue answered 202).';
  static override examples = ['<%= config.bin %> mock provision 01J... --outcome failed'];
  static override args = {
    card: Args.string({ description: 'card id', required: true }),
  };
  static override flags = {
    outcome: Flags.string({ description: 'active or failed', options: ['active', 'failed'], default: 'active' }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockProvision);
    return this.render(
      await this.control(flags, 'POST', `/cards/${encodeURIComponent(args.card)}/provision`, {
        outcome: flags.outcome,
      }),
    );
  }
}
