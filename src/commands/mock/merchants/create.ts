import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockMerchantsCreate extends MockControlCommand {
  static override summary = 'Create another merchant with its own test and live keys and webhook secret.';
  static override examples = ['<%= config.bin %> mock merchants create --json'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockMerchantsCreate);
    return this.render(await this.control(flags, 'POST', '/merchants', {}));
  }
}
