import { Args } from '../cli/oclif.js';
import { readFile } from 'node:fs/promises';
import { result, type Result } from '../output/render.js';
import { BaseCommand } from '../cli/base-command.js';
import { usageError } from '../errors.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export default class Completion extends BaseCommand {
  static override summary = 'Print the shell completion script for bash, zsh or fish.';
  static override description =
    'The scripts are generated from the command manifest and shipped in completions/.\n' +
    'bash: eval "$(cardctl completion bash)"   zsh: cardctl completion zsh > "${fpath[1]}/_cardctl"   fish: cardctl completion fish > ~/.config/fish/completions/cardctl.fish';
  static override examples = ['<%= config.bin %> completion bash >> ~/.bashrc'];
  static override args = { shell: Args.string({ description: 'bash, zsh or fish', required: true }) };

  async run(): Promise<Result> {
    const { args } = await this.parse(Completion);
    if (!(SHELLS as readonly string[]).includes(args.shell)) {
      throw usageError(`unknown shell "${args.shell}".`, `Use one of: ${SHELLS.join(', ')}.`);
    }
    const file = new URL(`../../completions/cardctl.${args.shell}`, import.meta.url);
    const script = await readFile(file, 'utf8');
    // --json (and --jq): one JSON value like every command, the script as a string
    return result({ shell: args.shell, script }, () => script);
  }
}
