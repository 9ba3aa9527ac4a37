import { Args } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class ProfilesShow extends BaseCommand {
  static override summary =
    'Show one profile; secrets appear only as a fingerprint, or as the command that prints them.';
  static override description =
    'The fingerprint is "sha256:" and the first 8 hex digits of SHA-256 over the secret text, so you can compare two machines without revealing it: ' +
    'printf %s "$SECRET" | sha256sum | cut -c1-8';
  static override examples = ['<%= config.bin %> profiles show ci', '<%= config.bin %> profiles show ci --json'];
  static override args = { name: Args.string({ description: 'profile name', required: true }) };

  async run(): Promise<Result> {
    const { args } = await this.parse(ProfilesShow);
    const { showSummary } = await import('../../profiles/actions.js');
    const { path, profile: p } = await showSummary(args.name);
    return result(p, async (out) =>
      (await import('../../output/text.js')).formatKeyValue(
        {
          name: p.name,
          mode: p.mode,
          'key id': p.key_id,
          'base URL': p.base_url,
          secret:
            p.secret_command !== null ? `from the command: ${p.secret_command}` : `**** (${p.secret_fingerprint})`,
          'webhook secret':
            p.webhook_secret_command !== null
              ? `from the command: ${p.webhook_secret_command}`
              : p.webhook_secret_fingerprint
                ? `**** (${p.webhook_secret_fingerprint})`
                : 'not set',
          ...(p.secret_command_timeout !== undefined ? { 'command timeout': `${p.secret_command_timeout} s` } : {}),
          ...(p.ca_file !== undefined ? { 'CA file': p.ca_file } : {}),
          ...(p.timeout !== undefined ? { timeout: `${p.timeout} s per attempt` } : {}),
          default: p.default ? 'yes' : 'no',
          store: path,
        },
        out,
      ),
    );
  }
}
