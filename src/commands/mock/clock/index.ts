import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockClock extends MockControlCommand {
  static override summary = 'Show the simulated clock.';
  static override examples = ['<%= config.bin %> mock clock'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockClock);
    return this.render(await this.control(flags, 'GET', '/clock'));
  }
}
