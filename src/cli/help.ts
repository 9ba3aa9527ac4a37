// `cardctl COMMAND --help`: oclif's help, with the usage lines of src/cli/usage.ts (what is
// required bare, what is optional in brackets, `--batch` as the other way) instead of oclif's
// list of every flag in brackets. Named in package.json (oclif.helpClass).
import { Help, type Command, type CommandHelp } from '@oclif/core';
import { usageLines, type ManifestCommand } from './usage.js';

export default class CardctlHelp extends Help {
  protected override getCommandHelpClass(command: Command.Loadable): CommandHelp {
    // a no-break space keeps the placeholder `[API FLAGS]` on one line when oclif wraps a long usage
    const usage = usageLines(command as unknown as ManifestCommand).map((l) =>
      l.replaceAll('[API FLAGS]', '[API\u00a0FLAGS]'),
    );
    return super.getCommandHelpClass({ ...command, usage } as Command.Loadable);
  }
}
