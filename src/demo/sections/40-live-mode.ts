import { card, issueArgv, type Section } from '../context.js';
import { expect, keyValues, tableRows } from '../runner.js';

export const section: Section = {
  title: 'Live mode: deposits fund the live wallet',
  async run(ctx) {
    const { r, ids, wallet, fee } = ctx;
    const issue = issueArgv(ids);
    await r.step({
      name: 'live: deposit address',
      title: 'A deposit address, with the live profile (live keys only)',
      argv: ['deposit-addresses', 'create', '--network', 'trc20', '--profile', 'live'],
      check: (run) => {
        const a = keyValues(run.stdout);
        expect(a.network === 'trc20' && (a.address ?? '').length > 0, 'the answer should carry a trc20 address');
        return `address ${a.address}`;
      },
    });
    await r.step({
      name: 'live: test key refused',
      title: 'The same with the test key: 403, exit 3',
      argv: ['deposit-addresses', 'create', '--network', 'trc20'],
      expectExit: 3,
    });
    let live = await wallet('live');
    await r.step({
      name: 'mock: deposit',
      title: 'A deposit of 250 USDT arrives (through the mock control plane)',
      argv: ['mock', 'deposits', 'add', '--network', 'trc20', '--asset-amount', '250'],
      check: async () => {
        const after = await wallet('live');
        expect(
          after.balance_minor - live.balance_minor === 25000,
          `the live wallet moved ${after.balance_minor - live.balance_minor}, expected 25000`,
        );
        live = after;
        return 'live wallet credited 25000';
      },
    });
    await r.step({
      name: 'live: deposits list',
      title: 'List the deposits',
      argv: ['deposits', 'list', '--profile', 'live'],
      check: (run) => {
        const rows = tableRows(run.stdout);
        expect(rows.length === 1 && rows[0]?.STATUS === 'credited', 'expected one credited deposit');
        return '1 credited deposit';
      },
    });
    const liveIssue = [...issue, '--profile', 'live'];
    await r.step({
      name: 'live: money needs --yes',
      title: 'A live money operation without a terminal to confirm on: refused before sending (exit 2)',
      argv: liveIssue,
      expectExit: 2,
      check: async () => {
        expect((await wallet('live')).balance_minor === live.balance_minor, 'the live wallet moved');
        return 'nothing sent';
      },
    });
    await r.step({
      name: 'profiles: a live key saved as test',
      title: 'A profile that says test but holds the live key (a copy-paste mistake)',
      argv: [
        'profiles',
        'add',
        'staging',
        '--key-id',
        ctx.mock.keys.live.keyId,
        '--mode',
        'test',
        '--base-url',
        ctx.mock.baseUrl,
        '--secret-stdin',
      ],
      input: `${ctx.mock.keys.live.secret}\n`,
    });
    await r.step({
      name: 'live: the mode is what the API says',
      title:
        'A money command through it, even with --yes: refused before sending, the API says the key is live (exit 2)',
      argv: [...issue, '--profile', 'staging', '--yes'],
      expectExit: 2,
      check: async ({ stderr }) => {
        expect(
          /profile "staging" says test, but key \w+ is a live key/.test(stderr),
          'the refusal should name both modes',
        );
        expect(stderr.includes('--mode live'), 'the refusal should give the fix');
        expect((await wallet('live')).balance_minor === live.balance_minor, 'the live wallet moved');
        return 'mode_mismatch, nothing sent';
      },
    });
    await r.step({
      name: 'live: issue with --yes',
      title: 'Confirmed with --yes: a live card, paid from the deposit',
      argv: [...liveIssue, '--yes'],
      grep: '^(id|status|mode) ',
      check: async (run) => {
        expect(card(run).mode === 'live', `card mode ${card(run).mode}, expected live`);
        const after = await wallet('live');
        expect(
          live.balance_minor - after.balance_minor === 5000 + fee,
          'the live wallet should pay the load and the fee',
        );
        return `live card ${card(run).id}`;
      },
    });
  },
};
