import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockKeysRoll extends MockControlCommand {
  static override summary = "Roll a key's secret (the old one keeps verifying for 24 simulated hours).";
  static override examples = ['<%= config.bin %> mock keys roll 01J...'];
  static override args = {
    key: Args.string({ description: 'key id', required: true }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockKeysRoll);
    return this.render(await this.control(flags, 'POST', `/keys/${encodeURIComponent(args.key)}/roll`));
  }
}
