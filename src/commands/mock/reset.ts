import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockReset extends MockControlCommand {
  static override summary = 'Return the mock to its seeded start (same keys, clock back to real time).';
  static override examples = ['<%= config.bin %> mock reset'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockReset);
    return this.render(await this.control(flags, 'POST', '/reset'));
  }
}
