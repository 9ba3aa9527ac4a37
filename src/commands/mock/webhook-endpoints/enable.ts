import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockWebhookEndpointsEnable extends MockControlCommand {
  static override summary =
    'Re-enable a webhook endpoint disabled after a dead delivery; its held deliveries go out at once.';
  static override examples = ['<%= config.bin %> mock webhook-endpoints enable 01J...'];
  static override args = {
    endpoint: Args.string({ description: 'endpoint id (see `cardctl mock webhook-endpoints`)', required: true }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockWebhookEndpointsEnable);
    return this.render(
      await this.control(flags, 'POST', `/webhook-endpoints/${encodeURIComponent(args.endpoint)}/enable`),
    );
  }
}
