import { journalFlag } from '../../cli/api-flags.js';
import { Args, Flags } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class OpsResolve extends BaseCommand {
  static override summary = 'Record what you learned about a money operation whose outcome is unknown.';
  static override description =
    "For an operation that cannot be replayed (its mock or base URL is gone, or its key is older than the API's 24 hours): " +
    'after checking with `cardctl cards get ID` or the portal, record whether it succeeded or failed. The record is appended ' +
    'to the journal (nothing is deleted; `ops show` keeps every earlier record): `ops list --unresolved` and `doctor` stop ' +
    'counting it, and a later send of the same key past 23 hours reports this outcome.';
  static override examples = [
    '<%= config.bin %> ops resolve op_lx2k3abc12345678 --outcome succeeded --note "card 01JD2Q7N8V3K4M5P6R7S8T9V0W is active"',
    '<%= config.bin %> ops resolve topup-77 --outcome failed --note "not in the portal"',
  ];
  static override args = {
    id: Args.string({ description: 'operation id (a unique prefix is enough) or its idempotency key', required: true }),
  };
  static override flags = {
    ...journalFlag,
    outcome: Flags.string({ description: 'what became of it', options: ['succeeded', 'failed'], required: true }),
    note: Flags.string({ description: 'how you know (kept in the journal, shown by `ops show`)' }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(OpsResolve);
    const [{ resolveOp, opView }, { formatKeyValue }] = await Promise.all([
      import('../../client/ops.js'),
      import('../../output/index.js'),
    ]);
    const entry = await resolveOp(args.id, {
      journal: flags.journal,
      outcome: flags.outcome as 'succeeded' | 'failed',
      note: flags.note,
      tell: (line) => this.note(line),
    });
    if (!flags.json)
      this.note(
        `Recorded: ${entry.id} ${flags.outcome} (appended to the journal; \`ops list --unresolved\` no longer lists it).`,
      );
    const { body_b64: _b, ...view } = opView(entry);
    return result({ ...opView(entry), outcomes: entry.outcomes }, (out) => formatKeyValue(view, out));
  }
}
