import type { Section } from '../context.js';
import { expect } from '../runner.js';

export const section: Section = {
  title: 'Mistakes: what cardctl answers',
  async run(ctx) {
    const { r, ids, counts } = ctx;
    const before = await counts();
    await r.step({
      name: 'mistake: cards list',
      title: 'A word that is not a command gets what to use instead (the API has no card listing), exit 2',
      argv: ['cards', 'list'],
      expectExit: 2,
      check: ({ stderr }) => {
        expect(
          stderr.includes('The API has no card listing') && stderr.includes('cardctl cards get CARD'),
          'the answer should say how to read a card',
        );
        return 'cards get CARD, ops list';
      },
    });
    await r.step({
      name: 'mistake: mistyped flag',
      title:
        'A mistyped flag: the closest one, and the usage lines (required bare, optional in brackets, --batch the other way); nothing sent',
      argv: ['cards', 'issue', '--customer', ids.customer, '--ammount', '5000'],
      expectExit: 2,
      check: async ({ stderr }) => {
        expect(stderr.includes('Did you mean `--amount MINOR`?'), 'the answer should suggest --amount');
        expect(
          stderr.includes('cardctl cards issue --customer ID --amount MINOR [--product ID]') &&
            stderr.includes('cardctl cards issue --batch FILE'),
          'the usage lines should follow',
        );
        expect((await counts()).cards === before.cards, 'a card was issued');
        return 'did you mean --amount';
      },
    });
    await r.step({
      name: 'mistake: card state',
      title: 'A refusal for the state of a card says the state (here the first card, terminated), exit 5',
      argv: ['cards', 'freeze', ids.card],
      expectExit: 5,
      check: ({ stderr }) => {
        expect(
          stderr.includes(`card ${ids.card} is terminated: nothing was changed.`),
          'the refusal should say the card is terminated',
        );
        return 'terminated: issue a new one';
      },
    });
  },
};
