import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockWebhookEndpoints extends MockControlCommand {
  static override summary = 'Show the registered webhook endpoints.';
  static override examples = ['<%= config.bin %> mock webhook-endpoints'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockWebhookEndpoints);
    return this.renderList(await this.controlPage(flags, 'GET', '/webhook-endpoints'));
  }
}
