import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockNetworks extends MockControlCommand {
  static override summary = 'Show the enabled deposit networks.';
  static override examples = ['<%= config.bin %> mock networks'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockNetworks);
    return this.renderList(await this.controlPage(flags, 'GET', '/networks'));
  }
}
