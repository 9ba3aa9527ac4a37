import { Args, Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockWebhookEndpointsAdd extends MockControlCommand {
  static override summary = 'Register a webhook endpoint (https, or http on loopback).';
  static override examples = ['<%= config.bin %> mock webhook-endpoints add http://127.0.0.1:9000/hooks'];
  static override args = {
    url: Args.string({ description: 'endpoint URL', required: true }),
  };
  static override flags = {
    merchant: Flags.string({ description: 'merchant id (default: the banner merchant)' }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockWebhookEndpointsAdd);
    return this.render(
      await this.control(flags, 'POST', '/webhook-endpoints', { url: args.url, merchant_id: flags.merchant }),
    );
  }
}
