import { BaseCommand } from '../../cli/base-command.js';

export default class ProfilesList extends BaseCommand {
  static override summary = 'List the saved profiles (never their secrets).';
  static override examples = [
    '<%= config.bin %> profiles list',
    "<%= config.bin %> profiles list --jq '.data[] | select(.default) | .name'",
  ];

  async run(): Promise<void> {
    const { flags } = await this.parse(ProfilesList);
    const { listSummaries } = await import('../../profiles/actions.js');
    const { path, profiles } = await listSummaries();
    if (flags.json) return this.printJson((await import('../../output/json.js')).listDocument(profiles));
    if (profiles.length === 0) {
      const { shownStorePath } = await import('../../profiles/store.js');
      this.note(
        `No profiles in ${shownStorePath(path)}. Add one: cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin`,
      );
      return;
    }
    const { formatTable } = await import('../../output/text.js');
    this.print(
      await formatTable(profiles, [
        { header: 'DEFAULT', get: (p) => (p.default ? '*' : ' ') },
        { header: 'NAME', get: (p) => p.name },
        { header: 'MODE', get: (p) => p.mode },
        { header: 'KEY ID', get: (p) => p.key_id },
        { header: 'BASE URL', get: (p) => p.base_url },
        { header: 'SECRET', get: (p) => (p.secret_command !== null ? `command: ${p.secret_command}` : 'stored') },
      ]),
    );
  }
}
