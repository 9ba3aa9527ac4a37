import { Flags } from '../../cli/oclif.js';
import type { Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class WebhooksVerify extends BaseCommand {
  static override summary = 'Verify a webhook signature header against the raw payload bytes.';
  static override description =
    "The secret is the endpoint's signing secret from CARDCTL_WEBHOOK_SECRET or the profile, never a flag. " +
    'The payload is read as raw bytes and never parsed before the signature matches: pass the body exactly as received.\n' +
    'Exit 0 when valid, 3 when not. --json prints {"valid", "reason"} with reason ok, malformed_header, signature_mismatch or timestamp_out_of_tolerance.';
  static override examples = [
    "<%= config.bin %> webhooks verify --header 't=1763800000, v1=8214...' --payload body.json",
    '<%= config.bin %> webhooks verify --header "$SIG" --payload - --now 1763800000 --json < body.json',
  ];
  static override flags = {
    header: Flags.string({ char: 'H', description: 'the X-Service-Signature header value', required: true }),
    payload: Flags.string({ description: 'file with the raw body, or - for stdin', required: true }),
    tolerance: Flags.string({ description: 'allowed |now - t| in seconds (default 300)' }),
    now: Flags.string({ description: 'Unix seconds to compare t with (default: now)' }),
    profile: Flags.string({ char: 'p', description: 'profile whose webhook secret to use' }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(WebhooksVerify);
    const { webhooksVerify } = await import('../../cli/local-commands.js');
    return webhooksVerify(flags, (line) => this.note(line));
  }
}
