import { Args } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class ProfilesUse extends BaseCommand {
  static override summary = 'Make a profile the default.';
  static override description =
    'The default is used when there is no --profile, no CARDCTL_API_KEY/CARDCTL_API_SECRET and no CARDCTL_PROFILE.';
  static override examples = ['<%= config.bin %> profiles use ci'];
  static override args = { name: Args.string({ description: 'profile name', required: true }) };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(ProfilesUse);
    const { useProfile } = await import('../../profiles/actions.js');
    const summary = await useProfile(args.name);
    // people get the line on stderr and nothing on stdout
    if (flags.json) return result(summary);
    return result(summary, () => '', [`Default profile: ${summary.name} (${summary.mode}, ${summary.base_url}).`]);
  }
}
