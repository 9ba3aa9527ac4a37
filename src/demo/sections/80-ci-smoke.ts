import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Section } from '../context.js';
import { expect } from '../runner.js';

export const section: Section = {
  title: 'CI: a smoke test of the whole integration, with a JUnit report',
  async run(ctx) {
    const { r } = ctx;
    await r.step({
      name: 'smoke',
      title:
        'Smoke-test the integration with the test key: setup, signing, customers, cards, funding; one case each, at most 30 requests (exit 0: all passed)',
      argv: ['smoke', '--junit', 'smoke.xml'],
      maxLines: 30,
      check: ({ stdout }) => {
        expect(/^✓ 22 cases: 22 passed, 0 failed/m.test(stdout), 'expected 22 cases passed');
        const created = /^created: customer ([0-9A-Z]{26}), card ([0-9A-Z]{26}) \(frozen\)/m.exec(stdout);
        expect(created !== null, 'the smoke test should name the customer and the frozen card it created');
        const xml = readFileSync(join(ctx.files, 'smoke.xml'), 'utf8');
        expect(
          /<testsuite name="cardctl smoke" tests="22" failures="0"/.test(xml),
          'smoke.xml should hold the 22 cases, none failed',
        );
        return `22 passed; card ${created![2]} left frozen; smoke.xml written`;
      },
    });
  },
};
