import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockKeysRevoke extends MockControlCommand {
  static override summary = 'Revoke a key at once.';
  static override examples = ['<%= config.bin %> mock keys revoke 01J...'];
  static override args = {
    key: Args.string({ description: 'key id', required: true }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockKeysRevoke);
    return this.render(await this.control(flags, 'POST', `/keys/${encodeURIComponent(args.key)}/revoke`));
  }
}
