import { Args } from '../../../cli/oclif.js';
import type { Result } from '../../../output/render.js';
import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockNetworksSet extends MockControlCommand {
  static override summary = 'Set the enabled deposit networks (none: turn them all off).';
  static override description =
    'The networks given are the whole enabled set afterwards: the others are turned off. A network never enabled before is refused with the list of known ones.';
  static override examples = [
    '<%= config.bin %> mock networks set bep20 trc20',
    '<%= config.bin %> mock networks set   # turn every network off',
  ];
  static override strict = false;
  static override args = {
    networks: Args.string({ description: 'the networks to enable, e.g. bep20 erc20 trc20 (none: all off)' }),
  };

  async run(): Promise<Result> {
    const { argv, flags } = await this.parse(MockNetworksSet);
    const enabled = argv.map(String);
    return this.render(await this.control(flags, 'PUT', '/networks', { enabled }));
  }
}
