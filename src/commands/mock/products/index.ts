import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockProducts extends MockControlCommand {
  static override summary = 'List the products with their minimum load, issue fee and switches.';
  static override examples = ['<%= config.bin %> mock products --json'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockProducts);
    return this.renderList(await this.controlPage(flags, 'GET', '/products'));
  }
}
