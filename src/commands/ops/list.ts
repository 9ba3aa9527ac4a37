import { Flags } from '../../cli/oclif.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class OpsList extends BaseCommand {
  static override summary = 'List the money operations recorded in the local journal.';
  static override description =
    'Each issue, recharge and terminate is recorded before it is sent and its outcome after. ' +
    '`--unresolved` shows those whose outcome is unknown (202, 500, dropped connection): replay them with `cardctl ops replay ID`, or record what you learned with `cardctl ops resolve ID`.';
  static override examples = ['<%= config.bin %> ops list --unresolved'];
  static override flags = {
    unresolved: Flags.boolean({ description: 'only operations whose outcome is unknown', default: false }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(OpsList);
    const [{ listOps, opView }, { jsonText }] = await Promise.all([import('../../client/ops.js'), import('../../output/json.js')]);
    const entries = listOps({ unresolved: flags.unresolved });
    if (flags.json) {
      process.stdout.write(jsonText(entries.map(opView)));
      return;
    }
    if (entries.length === 0) {
      this.note(flags.unresolved ? 'No operation with an unknown outcome.' : 'No money operation recorded yet.');
      return;
    }
    const { formatOps } = await import('../../output/ops.js');
    process.stdout.write(await formatOps(entries));
  }
}
