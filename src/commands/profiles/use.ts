import { Args } from '../../cli/oclif.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class ProfilesUse extends BaseCommand {
  static override summary = 'Make a profile the default.';
  static override description =
    'The default is used when there is no --profile, no CARDCTL_API_KEY/CARDCTL_API_SECRET and no CARDCTL_PROFILE.';
  static override examples = ['<%= config.bin %> profiles use ci'];
  static override args = { name: Args.string({ description: 'profile name', required: true }) };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(ProfilesUse);
    const { useProfile } = await import('../../profiles/actions.js');
    const summary = await useProfile(args.name);
    if (flags.json) return this.printJson(summary);
    this.note(`Default profile: ${summary.name} (${summary.mode}, ${summary.base_url}).`);
  }
}
