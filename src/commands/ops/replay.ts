import { Args, Flags } from '../../cli/oclif.js';
import { moneyFlags, sessionOptions } from '../../cli/api-flags.js';
import type { Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class OpsReplay extends BaseCommand {
  static override summary = 'Resend a journaled money operation: the same bytes with the same Idempotency-Key.';
  static override description =
    'The API answers a replay with the original outcome (no second charge), so this is how an unknown outcome ' +
    '(202, 500, dropped connection) becomes known. The new outcome is recorded under the same id.';
  static override examples = ['<%= config.bin %> ops replay op_lx2k3abc12345678'];
  static override args = {
    id: Args.string({ description: 'operation id (a unique prefix is enough) or its idempotency key', required: true }),
  };
  static override flags = {
    ...moneyFlags,
    include: Flags.boolean({
      char: 'i',
      description: 'print the status line and headers before the body (not with --json, which prints the body alone)',
      default: false,
      exclusive: ['json'],
    }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(OpsReplay);
    const [{ replayOp }, { ApiError }, { responseResult }] = await Promise.all([
      import('../../client/ops.js'),
      import('../../client/client.js'),
      import('../../output/index.js'),
    ]);
    try {
      const { response } = await replayOp(args.id, sessionOptions(flags, this.io));
      return responseResult(response, flags.include);
    } catch (err) {
      // as `request`: without --json the answer's body on stdout, then the error
      // an intermediary's answer is never printed as the API's: --include shows what came, escaped
      if (err instanceof ApiError && err.notApiResponse && flags.include)
        return responseResult({ ...err.notApiResponse, body: undefined }, true, err);
      if (!(err instanceof ApiError && err.response)) throw err;
      return responseResult(err.response, flags.include, err);
    }
  }
}
