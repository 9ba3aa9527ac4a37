import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockProducts extends MockControlCommand {
  static override summary = 'List the products with their minimum load, issue fee and switches.';
  static override examples = ['<%= config.bin %> mock products --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(MockProducts);
    await this.renderList(await this.controlPage(flags, 'GET', '/products'));
  }
}
