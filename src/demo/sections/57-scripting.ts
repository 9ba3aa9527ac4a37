import { type Section } from '../context.js';
import { expect } from '../runner.js';

export const section: Section = {
  title: 'Scripting: --jq and CSV, no jq or spreadsheet glue',
  async run(ctx) {
    const { r, ids } = ctx;
    await r.step({
      name: 'scripting: --jq on one resource',
      title: "Pick a field with jq's own language, bundled (a string prints raw)",
      argv: ['cards', 'get', ids.card, '--jq', '.status'],
      check: ({ stdout }) => {
        expect(stdout === 'terminated\n', `expected the raw string terminated, got ${JSON.stringify(stdout)}`);
        return 'terminated, raw';
      },
    });
    let count = 0;
    await r.step({
      name: 'scripting: --jq over every page',
      title:
        'The filter runs over what --json prints, {data, meta}; with --all every row: .data | length counts every customer',
      argv: ['customers', 'list', '--all', '--per-page', '2', '--jq', '.data | length'],
      check: ({ stdout }) => {
        count = Number(stdout.trim());
        expect(Number.isInteger(count) && count >= 1, `expected a count, got ${JSON.stringify(stdout)}`);
        return `${count} customers`;
      },
    });
    await r.step({
      name: 'scripting: config',
      title: 'What a command runs with, and where each value came from (never a secret)',
      argv: ['config'],
      maxLines: 12,
      check: ({ stdout }) => {
        expect(/^journal +local SQLite \S*journal\.db/m.test(stdout), 'config should name the journal');
        expect(/^api_secret +(stored|set)/m.test(stdout), 'config should say the secret is set, not show it');
        return 'settings with their sources';
      },
    });
    await r.step({
      name: 'scripting: csv',
      title: 'A spreadsheet: CSV (RFC 4180) with the columns you pick, streamed page by page',
      argv: ['customers', 'list', '--all', '--output', 'csv', '--columns', 'id,first_name,last_name,kyc_status'],
      maxLines: 6,
      check: ({ stdout }) => {
        const lines = stdout.split('\r\n').filter(Boolean);
        expect(
          lines[0] === 'id,first_name,last_name,kyc_status',
          `expected the header of the columns asked for, got ${JSON.stringify(lines[0])}`,
        );
        expect(lines.length === count + 1, `expected ${count} rows and the header, got ${lines.length} lines`);
        expect(
          lines.some((l) => l.startsWith(`${ids.customer},`)),
          'the approved customer should be a row',
        );
        return `${count} rows, CRLF line ends`;
      },
    });
  },
};
