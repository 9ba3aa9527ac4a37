import { Flags } from '@oclif/core';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockKeysCreate extends MockControlCommand {
  static override summary = 'Create an API key (optionally with scopes and an IP allowlist).';
  static override examples = ['<%= config.bin %> mock keys create --mode live --scope cards.read --ip 127.0.0.1'];
  static override flags = {
    mode: Flags.string({ description: 'test or live', options: ['test', 'live'], required: true }),
    merchant: Flags.string({ description: 'merchant id (default: the banner merchant)' }),
    scope: Flags.string({ description: 'scope to grant (repeatable; none: every scope)', multiple: true }),
    ip: Flags.string({ description: 'allowed address or CIDR range (repeatable)', multiple: true }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(MockKeysCreate);
    await this.render(await this.control(flags, 'POST', '/keys', { mode: flags.mode, merchant_id: flags.merchant, scopes: flags.scope, ip_allowlist: flags.ip }));
  }
}
