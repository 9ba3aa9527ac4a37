import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockWebhookEndpointsRemove extends MockControlCommand {
  static override summary =
    'Remove a webhook endpoint: no new deliveries; its pending ones end as dead (the log keeps them).';
  static override examples = ['<%= config.bin %> mock webhook-endpoints remove 01J...'];
  static override args = {
    endpoint: Args.string({ description: 'endpoint id (see `cardctl mock webhook-endpoints`)', required: true }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockWebhookEndpointsRemove);
    return this.render(await this.control(flags, 'DELETE', `/webhook-endpoints/${encodeURIComponent(args.endpoint)}`));
  }
}
