import { Args, Flags } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';
import { switchArgv } from '../../../cli/mock/switches.js';
import { usageError } from '../../../errors.js';

const SWITCHES = ['default', 'enabled', 'available'] as const;

export default class MockProductsSet extends MockControlCommand {
  static override summary = 'Switch a product: default, enabled for merchants, available (has a route to an issuer).';
  static override description =
    'Each switch is on with --NAME and off with --no-NAME (the older --NAME true|false still works). ' +
    'Making a product the default clears the others; with no default at all, an issue that names no product answers 422 product: [no_default].';
  static override examples = [
    '<%= config.bin %> mock products set 01J... --default',
    '<%= config.bin %> mock products set 01J... --no-default',
    '<%= config.bin %> mock products set 01J... --no-available',
  ];
  static override args = {
    product: Args.string({ description: 'product id (see `cardctl mock products`)', required: true }),
  };
  static override flags = {
    default: Flags.boolean({ allowNo: true, description: 'the product used when an issue names none' }),
    enabled: Flags.boolean({ allowNo: true, description: 'enabled for merchants (live issue: 404 when not)' }),
    available: Flags.boolean({
      allowNo: true,
      description: 'has a route to an issuer (live issue: 422 product: [unavailable] when not)',
    }),
  };

  async run(): Promise<Result> {
    const { args, flags } = await this.parse(MockProductsSet, switchArgv(this.argv, SWITCHES));
    const body: Record<string, boolean> = {};
    for (const k of SWITCHES) if (flags[k] !== undefined) body[k] = flags[k];
    if (Object.keys(body).length === 0)
      throw usageError(
        'nothing to change.',
        'Pass --default, --enabled or --available (or --no-default, --no-enabled, --no-available).',
      );
    return this.render(await this.control(flags, 'PATCH', `/products/${encodeURIComponent(args.product)}`, body));
  }
}
