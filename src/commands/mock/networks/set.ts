import { MockControlCommand } from '../../../cli/mock/control-command.js';

export default class MockNetworksSet extends MockControlCommand {
  static override summary = 'Set the enabled deposit networks (none: turn them all off).';
  static override examples = ['<%= config.bin %> mock networks set bep20 trc20'];
  static override strict = false;

  async run(): Promise<void> {
    const { argv, flags } = await this.parse(MockNetworksSet);
    const enabled = argv.map(String);
    await this.render(await this.control(flags, 'PUT', '/networks', { enabled }));
  }
}
