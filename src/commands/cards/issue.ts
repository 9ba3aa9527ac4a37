import { Flags } from '../../cli/oclif.js';
import { batchRunFlags, moneyFlags, refuseBatchFlagsAlone } from '../../cli/api-flags.js';
import type { Result } from '../../output/render.js';
import { BaseCommand } from '../../cli/base-command.js';
import { usageError } from '../../errors.js';

export default class CardsIssue extends BaseCommand {
  static override summary =
    'Issue a card to an approved customer, paid from the wallet (initial load plus the issue fee).';
  static override description =
    'Always sent with an Idempotency-Key (generated and printed on stderr unless given) and recorded in the journal, ' +
    'so the same command with the same key replays instead of charging twice. A 202 exits 7 with the key to replay; ' +
    '--wait replays it until the card is active or failed.\n\n' +
    '--batch FILE issues one card per row of a CSV file with a header (customer_id, amount_minor, optional product_id; ' +
    'or customer, amount, product) or of an NDJSON file (one JSON object per line with the same keys); - reads stdin. ' +
    "Every row is checked before anything is sent. Rows run concurrently under a rate limiter that follows the key's " +
    "X-RateLimit-Remaining and Retry-After. Each row's Idempotency-Key is derived from the rows' content and the row number, " +
    'so running the same file again replays the rows that went through instead of charging twice. One result line per row ' +
    'on stdout, in row order (NDJSON with --json), a summary on stderr; exit 7 if any outcome is unknown.';
  static override examples = [
    '<%= config.bin %> cards issue --customer 01JD2Q7N8V3K4M5P6R7S8T9V0W --amount 5000 --idempotency-key order-1001',
    '<%= config.bin %> cards issue --customer 01JD2Q7N8V3K4M5P6R7S8T9V0W --amount 5000 --wait --json | jq -r .id',
    '<%= config.bin %> cards issue --batch cards.csv --json > results.ndjson',
  ];
  static override flags = {
    ...moneyFlags,
    customer: Flags.string({ description: 'customer id (KYC approved)' }),
    amount: Flags.integer({ description: 'initial load in minor units (0 to 100000000)', min: 0, max: 100_000_000 }),
    product: Flags.string({ description: 'product id (default: the platform default product)' }),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key (generated otherwise); reuse it to replay' }),
    wait: Flags.boolean({
      description: 'on a 202, replay the same key until the card is active or failed',
      default: false,
    }),
    'wait-timeout': Flags.integer({ description: 'seconds --wait waits before exiting 7', default: 120, min: 1 }),
    batch: Flags.string({
      description:
        'issue one card per row of this CSV or NDJSON file (- for stdin): customer_id, amount_minor, optional product_id',
      exclusive: ['customer', 'amount', 'product', 'idempotency-key', 'wait', 'wait-timeout'],
      helpGroup: 'BATCH',
    }),
    ...batchRunFlags,
  };

  /** the resource (src/cli/resources.ts showOperation); --batch prints its rows as they finish (src/cli/batch.ts) */
  async run(): Promise<Result | undefined> {
    const { flags } = await this.parse(CardsIssue);
    if (flags.batch !== undefined) {
      const { runBatchCommand } = await import('../../cli/batch.js');
      process.exitCode = await runBatchCommand(this.io, 'cards.issue', { ...flags, batch: flags.batch });
      return;
    }
    refuseBatchFlagsAlone(flags, 'cards issue');
    if (flags.customer === undefined || flags.amount === undefined) {
      throw usageError(
        'give --customer ID and --amount MINOR to issue one card, or --batch FILE to issue one per row of a file.',
        'See `cardctl cards issue --help`.',
      );
    }
    const [{ showOperation }, { checkId }] = await Promise.all([
      import('../../cli/resources.js'),
      import('../../client/operations.js'),
    ]);
    const json = {
      customer_id: checkId('customer', flags.customer),
      amount_minor: flags.amount,
      ...(flags.product !== undefined ? { product_id: checkId('product', flags.product) } : {}),
    };
    return showOperation(
      this.io,
      flags,
      'cards.issue',
      { json, idempotencyKey: flags['idempotency-key'] },
      { waitS: flags.wait ? flags['wait-timeout'] : undefined },
    );
  }
}
