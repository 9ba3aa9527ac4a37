import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockWebhookDeliveries extends MockControlCommand {
  static override summary = 'Show the webhook delivery log.';
  static override examples = ['<%= config.bin %> mock webhook-deliveries'];

  async run(): Promise<void> {
    const { flags } = await this.parse(MockWebhookDeliveries);
    await this.render(await this.control(flags, 'GET', '/webhook-deliveries'));
  }
}
