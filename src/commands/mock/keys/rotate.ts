import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockKeysRotate extends MockControlCommand {
  static override summary = 'Rotate a key: a new key id and secret with the same scopes and allowlist.';
  static override examples = ['<%= config.bin %> mock keys rotate 01J...'];
  static override args = {
    key: Args.string({ description: 'key id', required: true }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockKeysRotate);
    return this.render(await this.control(flags, 'POST', `/keys/${encodeURIComponent(args.key)}/rotate`));
  }
}
