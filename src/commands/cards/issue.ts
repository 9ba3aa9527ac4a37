import { Flags } from '@oclif/core';
import { apiFlags } from '../../cli/api-flags.js';
import { BaseCommand } from '../../cli/base-command.js';

export default class CardsIssue extends BaseCommand {
  static override summary = 'Issue a card to an approved customer, paid from the wallet (initial load plus the issue fee).';
  static override description =
    'Always sent with an Idempotency-Key (generated and printed on stderr unless given) and recorded in the journal, ' +
    'so the same command with the same key replays instead of charging twice. A 202 exits 7 with the key to replay; ' +
    '--wait replays it until the card is active or failed.';
  static override examples = [
    '<%= config.bin %> cards issue --customer 01JD2Q7N8V3K4M5P6R7S8T9V0W --amount 5000 --idempotency-key order-1001',
    '<%= config.bin %> cards issue --customer 01JD2Q7N8V3K4M5P6R7S8T9V0W --amount 5000 --wait --json | jq -r .id',
  ];
  static override flags = {
    ...apiFlags,
    customer: Flags.string({ description: 'customer id (KYC approved)', required: true }),
    amount: Flags.integer({ description: 'initial load in minor units (0 to 100000000)', required: true, min: 0, max: 100_000_000 }),
    product: Flags.string({ description: 'product id (default: the platform default product)' }),
    'idempotency-key': Flags.string({ description: 'Idempotency-Key (generated otherwise); reuse it to replay' }),
    wait: Flags.boolean({ description: 'on a 202, replay the same key until the card is active or failed', default: false }),
    'wait-timeout': Flags.integer({ description: 'seconds --wait waits before exiting 7', default: 120, min: 1 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(CardsIssue);
    this.jsonOutput = flags.json;
    const [{ showOperation }, { checkId }] = await Promise.all([import('../../cli/resources.js'), import('../../client/operations.js')]);
    const json = {
      customer_id: checkId('customer', flags.customer),
      amount_minor: flags.amount,
      ...(flags.product !== undefined ? { product_id: checkId('product', flags.product) } : {}),
    };
    await showOperation(flags, 'cards.issue', { json, idempotencyKey: flags['idempotency-key'] }, { waitS: flags.wait ? flags['wait-timeout'] : undefined });
  }
}
