import { Args } from '../../../cli/oclif.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockKeysRevoke extends MockControlCommand {
  static override summary = 'Revoke a key at once.';
  static override examples = ['<%= config.bin %> mock keys revoke 01J...'];
  static override args = {
    key: Args.string({ description: 'key id', required: true }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(MockKeysRevoke);
    await this.render(await this.control(flags, 'POST', `/keys/${encodeURIComponent(args.key)}/revoke`));
  }
}
