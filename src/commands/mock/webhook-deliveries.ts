import { Flags } from '../../cli/oclif.js';
import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockWebhookDeliveries extends MockControlCommand {
  static override summary = 'Show the webhook delivery log, oldest first.';
  static override examples = [
    '<%= config.bin %> mock webhook-deliveries',
    '<%= config.bin %> mock webhook-deliveries --state dead',
    '<%= config.bin %> mock webhook-deliveries --event EVENT_ID --json',
  ];
  static override flags = {
    event: Flags.string({ description: 'only the deliveries of this event' }),
    endpoint: Flags.string({ description: 'only the deliveries to this endpoint' }),
    merchant: Flags.string({ description: 'only this merchant' }),
    state: Flags.string({ description: 'only deliveries in this state', options: ['pending', 'succeeded', 'dead'] }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockWebhookDeliveries);
    const query = new URLSearchParams();
    for (const [flag, param] of [
      ['event', 'event_id'],
      ['endpoint', 'endpoint_id'],
      ['merchant', 'merchant_id'],
      ['state', 'state'],
    ] as const) {
      if (flags[flag]) query.set(param, flags[flag]);
    }
    return this.renderList(
      await this.controlPage(flags, 'GET', query.size ? `/webhook-deliveries?${query}` : '/webhook-deliveries'),
    );
  }
}
