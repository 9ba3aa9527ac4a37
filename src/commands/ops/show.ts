import { Args } from '../../cli/oclif.js';
import { result, type Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';
import { journalFlag } from '../../cli/api-flags.js';

export default class OpsShow extends BaseCommand {
  static override summary = 'Show one journaled money operation: request, key, body and outcomes.';
  static override examples = ['<%= config.bin %> ops show op_lx2k3abc12345678'];
  static override args = {
    id: Args.string({ description: 'operation id (a unique prefix is enough) or its idempotency key', required: true }),
  };

  static override flags = { ...journalFlag };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(OpsShow);
    const [{ showOp, opView }, { formatKeyValue }] = await Promise.all([
      import('../../client/ops.js'),
      import('../../output/index.js'),
    ]);
    const entry = await showOp(args.id, { journal: flags.journal, tell: (line) => this.note(line) });
    const { body_b64: _b, ...view } = opView(entry);
    return result({ ...opView(entry), outcomes: entry.outcomes }, (out) => formatKeyValue(view, out));
  }
}
