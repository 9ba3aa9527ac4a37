import type { Result } from '../../output/render.js';
import { MockControlCommand } from '../../cli/mock/control-command.js';

export default class MockWallets extends MockControlCommand {
  static override summary =
    'Show the wallet of each merchant and mode (balance, cards, fees; --json adds reserved, the initial balance and deposits).';
  static override examples = ['<%= config.bin %> mock wallets', '<%= config.bin %> mock wallets --json'];

  async run(): Promise<Result> {
    const { flags } = await this.parse(MockWallets);
    // the columns that fit 80 columns; every field is in --json
    return this.renderList(await this.controlPage(flags, 'GET', '/wallets'), (w) => ({
      merchant_id: w.merchant_id,
      mode: w.mode,
      ccy: w.currency,
      balance_minor: w.balance_minor,
      cards_minor: w.cards_balance_minor,
      fees_minor: w.fees_collected_minor,
    }));
  }
}
