import { MockControlCommand, readable } from '../../cli/mock/control-command.js';

interface WalletRow {
  merchant_id: string;
  mode: string;
  currency: string;
  balance_minor: number;
  cards_balance_minor: number;
  fees_collected_minor: number;
}

export default class MockWallets extends MockControlCommand {
  static override summary = 'Show the wallet of each merchant and mode (balance, cards, fees; --json adds reserved, the initial balance and deposits).';
  static override examples = ['<%= config.bin %> mock wallets', '<%= config.bin %> mock wallets --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(MockWallets);
    const data = await this.control(flags, 'GET', '/wallets');
    if (this.jsonOutput || !Array.isArray(data)) return this.render(data);
    // the columns that fit 80 columns; every field is in --json
    const rows = (data as WalletRow[]).map((w) => ({
      merchant_id: w.merchant_id,
      mode: w.mode,
      ccy: w.currency,
      balance_minor: w.balance_minor,
      cards_minor: w.cards_balance_minor,
      fees_minor: w.fees_collected_minor,
    }));
    process.stdout.write(await readable(rows));
  }
}
