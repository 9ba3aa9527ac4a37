import { Args } from '../cli/oclif.js';
import { readFile } from 'node:fs/promises';
import { result, type Result } from '../output/render.js';
import { BaseCommand } from '../cli/base-command.js';
import { usageError } from '../errors.js';
import { INSTALL_LINES } from '../cli/completion-install.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;

export default class Completion extends BaseCommand {
  static override summary = 'Print the shell completion script for bash, zsh or fish.';
  static override description =
    'The scripts are generated from the command manifest and shipped in completions/. To install, run the line of your shell once ' +
    '(the examples; running it again changes nothing). The shell then asks cardctl for the script when it starts (bash, zsh) or first completes ' +
    'cardctl (fish), so it stays current after an upgrade. Open a new shell afterwards.';
  // plain strings: oclif wraps an example given as {description, command}, which would break a
  // line inside its quotes when copied; these print on one line each, whatever the width
  static override examples = Object.entries(INSTALL_LINES).map(([shell, line]) => `# ${shell}\n${line}`);
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
