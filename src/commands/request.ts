import { Args, Flags } from '../cli/oclif.js';
import { moneyFlags, sessionOptions } from '../cli/api-flags.js';
import type { Result } from '../output/render.js';
import { BaseCommand } from '../cli/base-command.js';

export default class Request extends BaseCommand {
  static override summary = 'Send a signed request to any API path and print the answer, like `gh api`.';
  static override description =
    'PATH is relative to the base URL (/cards/ID) or full (/api/v1/cards/ID). The whole envelope is printed on stdout.\n' +
    'Money operations (POST /cards, .../recharge, .../terminate) always carry an Idempotency-Key (generated and printed on stderr unless given) ' +
    'and are recorded in the journal (`cardctl ops`). Inline --data on a money route is re-serialized deterministically (schema field order, no whitespace) ' +
    'so retyping the command replays it; --data @FILE and --data - are sent byte for byte.';
  static override examples = [
    '<%= config.bin %> request GET /cards/01J0000000000000000000000A',
    '<%= config.bin %> request POST /cards/01J0000000000000000000000A/recharge --data \'{"amount":500}\'',
    '<%= config.bin %> request GET /customers --query per_page=5 --include',
    '<%= config.bin %> request POST /customers --data @customer.json',
  ];
  static override args = {
    method: Args.string({ description: 'HTTP method: GET, POST, PATCH, ...', required: true }),
    path: Args.string({
      description: 'path relative to the base URL, or starting with /api/v1; may include ?query',
      required: true,
    }),
  };
  static override flags = {
    ...moneyFlags,
    data: Flags.string({ char: 'd', description: 'JSON body: inline, @FILE (bytes unchanged) or - (stdin)' }),
    query: Flags.string({
      description: 'query parameter k=v (no short form: -q is --quiet, as on every command)',
      multiple: true,
    }),
    'idempotency-key': Flags.string({
      description: 'Idempotency-Key header (money operations get a generated one otherwise)',
    }),
    include: Flags.boolean({
      char: 'i',
      description: 'print the status line and headers before the body (not with --json, which prints the body alone)',
      default: false,
      exclusive: ['json'],
    }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(Request);
    const [{ runRawRequest }, { ApiError }, { responseResult }] = await Promise.all([
      import('../client/raw.js'),
      import('../client/client.js'),
      import('../output/index.js'),
    ]);
    try {
      const res = await runRawRequest({
        ...sessionOptions(flags, this.io),
        method: args.method,
        path: args.path,
        data: flags.data,
        query: flags.query,
        idempotencyKey: flags['idempotency-key'],
      });
      return responseResult(res, flags.include);
    } catch (err) {
      // Without --json the answer's body goes to stdout as for a success (like `gh api`),
      // the error and what to do next to stderr (with --json the error is the one document).
      // an intermediary's answer is never printed as the API's: --include shows what came, escaped
      if (err instanceof ApiError && err.notApiResponse && flags.include)
        return responseResult({ ...err.notApiResponse, body: undefined }, true, err);
      if (!(err instanceof ApiError && err.response)) throw err;
      return responseResult(err.response, flags.include, err);
    }
  }
}
