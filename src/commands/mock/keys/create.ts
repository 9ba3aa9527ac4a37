import { Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockKeysCreate extends MockControlCommand {
  static override summary = 'Create an API key (optionally with scopes, an IP allowlist and an expiry).';
  static override examples = ['<%= config.bin %> mock keys create --mode live --scope cards.read --ip 127.0.0.1'];
  static override flags = {
    mode: Flags.string({ description: 'test or live', options: ['test', 'live'], required: true }),
    merchant: Flags.string({ description: 'merchant id (default: the banner merchant)' }),
    scope: Flags.string({ description: 'scope to grant (repeatable; none: every scope)', multiple: true }),
    ip: Flags.string({ description: 'allowed address or CIDR range (repeatable)', multiple: true }),
    'expires-in': Flags.integer({
      description: 'the key expires this many seconds from now on the simulated clock (401 invalid_api_key after)',
      min: 1,
    }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockKeysCreate);
    return this.render(
      await this.control(flags, 'POST', '/keys', {
        mode: flags.mode,
        merchant_id: flags.merchant,
        scopes: flags.scope,
        ip_allowlist: flags.ip,
        expires_in_seconds: flags['expires-in'],
      }),
    );
  }
}
