import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockFaults extends MockControlCommand {
  static override summary = 'Show the faults still armed.';
  static override examples = ['<%= config.bin %> mock faults'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockFaults);
    return this.renderList(await this.controlPage(flags, 'GET', '/faults'));
  }
}
