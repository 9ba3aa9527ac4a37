import { BaseCommand } from '../../cli/base-command.js';
import type { Result } from '../../output/render.js';

export default class ProfilesList extends BaseCommand {
  static override summary = 'List the saved profiles (never their secrets).';
  static override examples = [
    '<%= config.bin %> profiles list',
    "<%= config.bin %> profiles list --jq '.data[] | select(.default) | .name'",
  ];

  async run(): Promise<Result> {
    const { flags } = await this.parse(ProfilesList);
    const [{ listSummaries }, { shownStorePath }, { listResult }] = await Promise.all([
      import('../../profiles/actions.js'),
      import('../../profiles/store.js'),
      import('../../output/render.js'),
    ]);
    const { path, profiles } = await listSummaries();
    return listResult({
      kind: 'list',
      pages: [{ data: profiles }],
      format: flags.json ? 'json' : 'table',
      table: [
        { header: 'DEFAULT', get: (p) => (p.default ? '*' : ' ') },
        { header: 'NAME', get: (p) => p.name },
        { header: 'MODE', get: (p) => p.mode },
        { header: 'KEY ID', get: (p) => p.key_id },
        { header: 'BASE URL', get: (p) => p.base_url },
        { header: 'SECRET', get: (p) => (p.secret_command !== null ? `command: ${p.secret_command}` : 'stored') },
      ],
      empty: `No profiles in ${shownStorePath(path)}. Add one: cardctl profiles add NAME --key-id KEY_ID --mode test --secret-stdin`,
    });
  }
}
