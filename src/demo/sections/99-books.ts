import { type Section, type WalletRow } from '../context.js';
import { expect } from '../runner.js';

export const section: Section = {
  title: 'The books, and shell completion',
  async run(ctx) {
    const { r } = ctx;
    await r.step({
      name: 'mock: wallets',
      title: "The mock's wallets: every minor unit accounted for",
      argv: ['mock', 'wallets'],
      check: async () => {
        const rows = (await ctx.control('GET', '/wallets')) as WalletRow[];
        for (const w of rows) {
          const held = w.balance_minor + w.cards_balance_minor + w.fees_collected_minor + w.reserved_minor;
          expect(held === w.initial_balance_minor + w.deposits_credited_minor, `the ${w.mode} wallet does not balance`);
        }
        return 'money conserved in every wallet';
      },
    });
    await r.step({
      name: 'completion: bash',
      title: 'Shell completion (bash, zsh, fish)',
      argv: ['completion', 'bash'],
      display: 'cardctl completion bash | head -5',
      maxLines: 5,
      quietTrim: true,
      check: ({ stdout }) => expect(/\bcomplete\b/.test(stdout), 'expected a bash completion script'),
    });
  },
};
