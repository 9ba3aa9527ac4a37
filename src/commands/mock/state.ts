import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockState extends MockControlCommand {
  static override summary = 'Show counts of everything the mock holds, and its clock.';
  static override examples = ['<%= config.bin %> mock state'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockState);
    return this.render(await this.control(flags, 'GET', '/state'));
  }
}
