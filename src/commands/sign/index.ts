import { Flags } from '../../cli/oclif.js';
import type { Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class Sign extends BaseCommand {
  static override summary =
    'Sign a request locally: canonical string, body hash, signature, headers and a ready curl command.';
  static override description =
    'Nothing is sent. The secret comes from --profile, CARDCTL_API_SECRET or the default profile, never from a flag, and is never printed.\n' +
    '--query takes the raw query string exactly as the client sends it (cursor=ab%2Bc&per_page=5); a "?" in --path works too. ' +
    '--path is relative to the base URL (/cards) or full (/api/v1/cards, or a whole URL). ' +
    "--data @FILE signs the file's bytes unchanged; - reads stdin. --timestamp and --nonce default to now and a random UUID.";
  static override examples = [
    '<%= config.bin %> sign --method GET --path /customers --query "per_page=5&cursor=ab%2Bc"',
    '<%= config.bin %> sign --method POST --path /api/v1/cards --data @body.json --timestamp 1763800000 --nonce 6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f --json',
    '<%= config.bin %> sign --method POST --path /cards/01JD2QA1B2C3D4E5F6G7H8J9KM/recharge --data \'{"amount":1000}\' --idempotency-key topup-77',
  ];
  static override flags = {
    method: Flags.string({
      char: 'X',
      description: 'HTTP method (uppercased in the canonical string)',
      required: true,
    }),
    path: Flags.string({
      description: 'request path: relative to the base URL, starting with /api/v1, or a full URL; may include ?query',
      required: true,
    }),
    query: Flags.string({ description: 'raw query string exactly as sent, without "?"' }),
    data: Flags.string({ char: 'd', description: 'body: inline JSON, @FILE (bytes unchanged) or - (stdin)' }),
    'key-id': Flags.string({ description: "X-Api-Key (default: the profile's key id or CARDCTL_API_KEY)" }),
    timestamp: Flags.string({ description: 'X-Timestamp, Unix seconds (default: now)' }),
    nonce: Flags.string({ description: 'X-Nonce (default: a random UUID)' }),
    'idempotency-key': Flags.string({
      description:
        'Idempotency-Key header for the curl command (not signed); generated and shown on a money route (issue, recharge, terminate) when absent',
    }),
    profile: Flags.string({ char: 'p', description: 'profile whose secret, key id and base URL to use' }),
  };

  async run(): Promise<Result> {
    const { flags } = await this.parse(Sign);
    const { sign } = await import('../../cli/local-commands.js');
    return sign(flags, (line) => this.note(line));
  }
}
