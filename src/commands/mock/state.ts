import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockState extends MockControlCommand {
  static override summary = 'Show counts of everything the mock holds, and its clock.';
  static override examples = ['<%= config.bin %> mock state'];

  async run(): Promise<void> {
    const { flags } = await this.parse(MockState);
    await this.render(await this.control(flags, 'GET', '/state'));
  }
}
