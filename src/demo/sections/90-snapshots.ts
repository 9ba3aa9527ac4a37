import { type Section } from '../context.js';
import { expect } from '../runner.js';

export const section: Section = {
  title: 'Snapshots: a test suite resets the mock between tests in milliseconds',
  async run(ctx) {
    const { r, counts } = ctx;
    const saved = await counts();
    await r.step({
      name: 'mock: snapshot save',
      title: 'Save the whole mock state under a name (a suite does this once, after preparing its data)',
      argv: ['mock', 'snapshot', 'save', 'tour'],
    });
    await r.step({
      name: 'mock: reset',
      title: 'A test changes everything (here: back to the seeded start, no customer, no card)',
      argv: ['mock', 'reset'],
      grep: '^(customers|cards) ',
      check: async () => {
        const now = await counts();
        expect(
          now.customers === 0 && now.cards === 0,
          `${now.customers} customers and ${now.cards} cards after the reset, expected none`,
        );
        return 'no customer, no card';
      },
    });
    await r.step({
      name: 'mock: snapshot restore',
      title: 'Restore the snapshot before the next test: every customer, card and balance is back',
      argv: ['mock', 'snapshot', 'restore', 'tour'],
      check: async () => {
        const now = await counts();
        expect(
          now.customers === saved.customers && now.cards === saved.cards,
          `${now.customers} customers and ${now.cards} cards, expected ${saved.customers} and ${saved.cards}`,
        );
        return `${now.customers} customers and ${now.cards} cards back`;
      },
    });
  },
};
