import { apiFlags, journalFlag } from '../cli/api-flags.js';
import type { Result } from '../output/render.js';
import { BaseCommand } from '../cli/base-command.js';

export default class Config extends BaseCommand {
  static override summary =
    'Show the settings a command runs with here, where each value came from, and every environment variable cardctl reads.';
  static override description =
    'Like `aws configure list`: the profile, API key, API secret (never its value), base URL, mode, timeout, retries, CA file, proxy and journal ' +
    'a command would use with the same -p, --timeout, --retries and --ca-file, each with its source (flag, environment, profile, default), ' +
    'then every variable cardctl reads, whether it is set, and what it does. Sends nothing, runs no secret command, prints no secret.';
  static override examples = [
    '<%= config.bin %> config',
    '<%= config.bin %> config -p ci --timeout 5',
    "<%= config.bin %> config --jq '.settings.base_url'",
  ];
  static override flags = {
    profile: apiFlags.profile,
    'ca-file': apiFlags['ca-file'],
    timeout: apiFlags.timeout,
    retries: apiFlags.retries,
    ...journalFlag,
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(Config);
    const { configListing } = await import('../cli/config-listing.js');
    return configListing(flags, this.io);
  }
}
