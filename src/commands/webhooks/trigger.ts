import { Args, Flags } from '../../cli/oclif.js';
import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';
import { dryRunFlag } from '../../cli/api-flags.js';

export default class WebhooksTrigger extends MockControlCommand {
  static override summary = 'Ask the running mock to emit an event, delivered to its webhook endpoints.';
  static override description =
    'Records an event of TYPE on the mock (POST /_mock/events, as `mock events emit`), which delivers it to every enabled endpoint of the merchant, ' +
    'for example a `cardctl webhooks listen --mock` running in another terminal. Without --data the mock makes sample data.\n' +
    "The mock: --control-url, else the one -p's profile points at, else CARDCTL_MOCK_URL, else the one CARDCTL_PROFILE's profile points at, else the newest. " +
    'The mode: --mode, else the mode of the profile that found the mock (`-p mock-live` emits a live event), else test.\n' +
    'Prints the recorded event: {id, merchant_id, mode, type, occurred_at, data} (as JSON with --json).';
  static override examples = [
    '<%= config.bin %> webhooks trigger card.issued',
    '<%= config.bin %> webhooks trigger card.issued -p mock-test',
    "<%= config.bin %> webhooks trigger card.issued -p mock-live   # a live event: the mode of the profile's key",
    '<%= config.bin %> webhooks trigger deposit.credited --mode live --json',
    '<%= config.bin %> webhooks trigger card.terminated --data \'{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM","refunded_amount_minor":500}\'',
  ];
  static override args = {
    type: Args.string({ description: 'event type, e.g. card.issued', required: true }),
  };
  static override flags = {
    data: Flags.string({ description: "the event's data object as JSON (default: sample data)" }),
    mode: Flags.string({
      description:
        'test or live (default: the mode of the -p or CARDCTL_PROFILE profile that found the mock, else test)',
      options: ['test', 'live'],
    }),
    merchant: Flags.string({ description: 'merchant id (default: the banner merchant)' }),
    ...dryRunFlag,
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(WebhooksTrigger);
    const { runTrigger, triggerNote } = await import('../../cli/webhook-trigger.js');
    const result = await runTrigger({
      type: args.type,
      data: flags.data,
      mode: flags.mode as 'test' | 'live' | undefined,
      merchant: flags.merchant,
      controlUrl: flags['control-url'],
      profile: flags.profile,
      dryRun: flags['dry-run'],
    });
    const note = triggerNote(result);
    return this.render(result.event, note ? [note] : []);
  }
}
