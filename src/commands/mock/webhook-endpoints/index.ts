import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockWebhookEndpoints extends MockControlCommand {
  static override summary = 'Show the registered webhook endpoints.';
  static override examples = ['<%= config.bin %> mock webhook-endpoints'];

  async run(): Promise<void> {
    const { flags } = await this.parse(MockWebhookEndpoints);
    await this.renderList(await this.controlPage(flags, 'GET', '/webhook-endpoints'));
  }
}
