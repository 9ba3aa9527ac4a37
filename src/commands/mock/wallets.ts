import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockWallets extends MockControlCommand {
  static override summary = 'Show the wallet of each merchant and mode (balance, cards, fees, reserved, deposits).';
  static override examples = ['<%= config.bin %> mock wallets --json'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockWallets);
    return this.renderList(await this.controlPage(flags, 'GET', '/wallets'));
  }
}
