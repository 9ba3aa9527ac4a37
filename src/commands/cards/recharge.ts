import { Args, Flags } from '../../cli/oclif.js';
import { batchRunFlags, moneyFlags, refuseBatchFlagsAlone } from '../../cli/api-flags.js';
import type { Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';
import { usageError } from '../../errors.js';

export default class CardsRecharge extends BaseCommand {
  static override summary = 'Load money onto a card from the wallet.';
  static override description =
    'Always sent with an Idempotency-Key (generated and printed on stderr unless given) and recorded in the journal. ' +
    'An unknown outcome (202, 500, dropped connection) exits 7: run the same command with the same key, or `cardctl ops replay`.\n\n' +
    '--batch FILE recharges one card per row of a CSV file with a header (card_id, amount; or card, amount) or of an NDJSON ' +
    'file (one JSON object per line with the same keys); - reads stdin. Every row is checked before anything is sent. ' +
    "Rows run concurrently under a rate limiter that follows the key's X-RateLimit-Remaining and Retry-After. Each row's " +
    "Idempotency-Key is derived from the rows' content and the row number, so running the same file again replays the rows " +
    'that went through instead of charging twice. One result line per row on stdout, in row order (NDJSON with --json), ' +
    'a summary on stderr; exit 7 if any outcome is unknown.';
  static override examples = [
    '<%= config.bin %> cards recharge 01JD2Q7N8V3K4M5P6R7S8T9V0W --amount 2500 --idempotency-key topup-77',
    '<%= config.bin %> cards recharge --batch topups.ndjson --concurrency 8',
  ];
  static override args = { card: Args.string({ description: 'card id (not with --batch)', ignoreStdin: true }) };
  static override flags = {
    ...moneyFlags,
    amount: Flags.integer({ description: 'amount in minor units (at least 1)', min: 1 }),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key (generated otherwise); reuse it to replay' }),
    batch: Flags.string({
      description: 'recharge one card per row of this CSV or NDJSON file (- for stdin): card_id, amount',
      exclusive: ['amount', 'idempotency-key'],
      helpGroup: 'BATCH',
    }),
    ...batchRunFlags,
  };

  /** the resource (src/cli/resources.ts showOperation); --batch prints its rows as they finish (src/cli/batch.ts) */
  async run(): Promise<Result | undefined> {
    const { args, flags } = await this.parse(CardsRecharge);
    if (flags.batch !== undefined) {
      if (args.card !== undefined)
        throw usageError(
          'give either a CARD argument or --batch FILE, not both.',
          'The batch file names the card of each row (card_id).',
        );
      const { runBatchCommand } = await import('../../cli/batch.js');
      process.exitCode = await runBatchCommand(this.io, 'cards.recharge', { ...flags, batch: flags.batch });
      return;
    }
    refuseBatchFlagsAlone(flags, 'cards recharge');
    if (args.card === undefined || flags.amount === undefined) {
      throw usageError(
        'give CARD and --amount MINOR to recharge one card, or --batch FILE to recharge one per row of a file.',
        'See `cardctl cards recharge --help`.',
      );
    }
    const { showOperation } = await import('../../cli/resources.js');
    return showOperation(this.io, flags, 'cards.recharge', {
      params: { card: args.card },
      json: { amount: flags.amount },
      idempotencyKey: flags['idempotency-key'],
    });
  }
}
