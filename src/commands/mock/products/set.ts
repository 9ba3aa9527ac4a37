import { Args, Flags } from '../../../cli/oclif.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';
import { usageError } from '../../../errors.js';

const SWITCH = { options: ['true', 'false'] as string[] };

export default class MockProductsSet extends MockControlCommand {
  static override summary = 'Switch a product: default, enabled for merchants, available (has a route to an issuer).';
  static override description = 'Making a product the default clears the others; with no default at all, an issue that names no product answers 422 product: [no_default].';
  static override examples = ['<%= config.bin %> mock products set 01J... --default false', '<%= config.bin %> mock products set 01J... --available false'];
  static override args = { product: Args.string({ description: 'product id (see `cardctl mock products`)', required: true }) };
  static override flags = {
    default: Flags.string({ ...SWITCH, description: 'the product used when an issue names none' }),
    enabled: Flags.string({ ...SWITCH, description: 'enabled for merchants (live issue: 404 when not)' }),
    available: Flags.string({ ...SWITCH, description: 'has a route to an issuer (live issue: 422 product: [unavailable] when not)' }),
  };

  async run(): Promise<void> {
    const { args, flags } = await this.parse(MockProductsSet);
    const body: Record<string, boolean> = {};
    for (const k of ['default', 'enabled', 'available'] as const) if (flags[k] !== undefined) body[k] = flags[k] === 'true';
    if (Object.keys(body).length === 0) throw usageError('nothing to change.', 'Pass --default, --enabled or --available (true or false).');
    await this.render(await this.control(flags, 'PATCH', `/products/${encodeURIComponent(args.product)}`, body));
  }
}
