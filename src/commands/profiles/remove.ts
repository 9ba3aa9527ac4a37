import { Args } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class ProfilesRemove extends BaseCommand {
  static override summary = 'Delete a profile from the store.';
  static override description =
    'When the default is removed and one profile remains, that one becomes the default; with several left there is none until `cardctl profiles use NAME`.';
  static override examples = ['<%= config.bin %> profiles remove old-ci'];
  static override args = { name: Args.string({ description: 'profile name', required: true }) };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(ProfilesRemove);
    const { removeFromCommand } = await import('../../profiles/actions.js');
    const removed = await removeFromCommand(args.name);
    const json = { removed: removed.removed, default: removed.defaultProfile };
    if (flags.json) return result(json);
    // people get the line on stderr and nothing on stdout
    return result(json, () => '', [
      `Removed profile ${removed.removed}.` +
        (removed.defaultProfile === null
          ? ' There is no default profile now: choose one with `cardctl profiles use NAME`.'
          : ` Default profile: ${removed.defaultProfile}.`),
    ]);
  }
}
