import { Flags } from '../../cli/oclif.js';
import type { Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class WebhooksSign extends BaseCommand {
  static override summary = 'Sign a webhook payload: print the X-Service-Signature header value.';
  static override description =
    "The payload's raw bytes are signed as they are. The secret comes from CARDCTL_WEBHOOK_SECRET or the profile, never a flag.\n" +
    '--json adds the headers of a whole delivery: Content-Type, X-Service-Event (the payload\'s "type"), X-Service-Delivery (a fresh ULID) and X-Service-Signature.';
  static override examples = [
    '<%= config.bin %> webhooks sign --payload event.json',
    '<%= config.bin %> webhooks sign --payload - --timestamp 1763800000 --json < event.json',
  ];
  static override flags = {
    payload: Flags.string({ description: 'file with the raw body, or - for stdin', required: true }),
    timestamp: Flags.string({ description: 't, Unix seconds (default: now)' }),
    profile: Flags.string({ char: 'p', description: 'profile whose webhook secret to use' }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(WebhooksSign);
    const { webhooksSign } = await import('../../cli/local-commands.js');
    return webhooksSign(flags, (line) => this.note(line));
  }
}
