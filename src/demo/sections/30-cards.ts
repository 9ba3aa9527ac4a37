import { CUSTOMER } from '../fixtures.js';
import { card, issueArgv, type Section } from '../context.js';
import { expect, keyValues, tableRows } from '../runner.js';

export const section: Section = {
  title: 'Cards: issue, replay, recharge, freeze, terminate',
  async run(ctx) {
    const { r, ids, write, wallet, counts, fee } = ctx;
    let before = await wallet('test');
    const issue = issueArgv(ids);
    await r.step({
      name: 'cards: issue',
      title: 'Issue a card with an idempotency key (charges 5000 + the product fee)',
      argv: [...issue, '--idempotency-key', 'demo-issue-1'],
      check: async (run) => {
        const c = card(run);
        ids.card = c.id;
        expect(/^[0-9A-Z]{26}$/.test(ids.card), 'the answer should carry the card id');
        expect(c.status === 'active', `card status ${c.status}, expected active`);
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 5000 + fee,
          `the wallet moved ${before.balance_minor - after.balance_minor}, expected ${5000 + fee}`,
        );
        before = after;
        return `card ${ids.card}, wallet charged ${5000 + fee}`;
      },
    });
    await r.step({
      name: 'cards: issue replay',
      title: 'The same command again (a retry after a timeout, say): the SAME card, no second charge',
      argv: [...issue, '--idempotency-key', 'demo-issue-1'],
      grep: '^(id|status|balance_minor) ',
      check: async (run) => {
        expect(card(run).id === ids.card, `the replay answered card ${card(run).id}, expected ${ids.card}`);
        const after = await wallet('test');
        expect(after.balance_minor === before.balance_minor, 'the replay charged the wallet again');
        expect((await counts()).cards === 1, 'the replay created another card');
        return 'same card, wallet unchanged';
      },
    });
    await r.step({
      name: 'cards: recharge --dry-run',
      title:
        'Look before money moves: --dry-run prints the request (a placeholder where the signature goes) and what the journal would decide; nothing is sent',
      argv: ['cards', 'recharge', ids.card, '--amount', '2500', '--idempotency-key', 'demo-topup-1', '--dry-run'],
      grep: '^(POST |  X-Signature|money operation)',
      check: async (run) => {
        expect(/^ {2}X-Signature: <signed at send time>$/m.test(run.stdout), 'the signature should be a placeholder');
        expect(/^money operation: would be sent: /m.test(run.stdout), 'the journal should let it be sent');
        const after = await wallet('test');
        expect(after.balance_minor === before.balance_minor, 'the dry run charged the wallet');
        return 'nothing sent, wallet unchanged';
      },
    });
    await r.step({
      name: 'cards: recharge',
      title: 'Recharge it (a key is generated and printed on stderr, to replay if needed)',
      argv: ['cards', 'recharge', ids.card, '--amount', '2500'],
      grep: '^balance_minor ',
      check: (run) => {
        expect(card(run).balance_minor === 7500, `card balance ${card(run).balance_minor}, expected 7500`);
        expect(/Idempotency-Key: \S+/.test(run.stderr), 'the generated idempotency key should be printed');
        return 'card balance 7500';
      },
    });
    for (const [action, status] of [
      ['freeze', 'frozen'],
      ['unfreeze', 'active'],
    ] as const) {
      await r.step({
        name: `cards: ${action}`,
        title: action === 'freeze' ? 'Freeze it (no money moves)' : 'Unfreeze it',
        argv: ['cards', action, ids.card],
        grep: '^(status|balance_minor) ',
        check: (run) => {
          expect(card(run).status === status, `card status ${card(run).status}, expected ${status}`);
          expect(card(run).balance_minor === 7500, 'the balance should be kept');
          return `status ${status}`;
        },
      });
    }
    await r.step({
      name: 'cards: terminate too early',
      title: 'Terminate it now: refused, a card under an hour old cannot be terminated (exit 5)',
      argv: ['cards', 'terminate', ids.card, '--reason', 'no_longer_needed'],
      expectExit: 5,
      check: (run) => {
        expect(/^\s+card: termination_blocked$/m.test(run.stderr), 'expected card: termination_blocked');
        return 'termination_blocked';
      },
    });
    await r.step({
      name: 'mock: clock advance',
      title: "Move the mock's simulated clock one hour forward",
      argv: ['mock', 'clock', 'advance', '3600'],
    });
    await r.step({
      name: 'mock: transaction capture',
      title: 'The issuer reports activity on the card (through the mock control plane)',
      argv: ['mock', 'transactions', 'add', ids.card, '--type', 'capture', '--amount', '1250'],
    });
    await r.step({
      name: 'mock: transaction authorization',
      title: 'And a pending authorization',
      argv: [
        'mock',
        'transactions',
        'add',
        ids.card,
        '--type',
        'authorization',
        '--amount',
        '300',
        '--status',
        'pending',
      ],
    });
    await r.step({
      name: 'cards: transactions',
      title: 'List the card transactions, newest first (--per-page, --cursor and --all page through them)',
      argv: ['cards', 'transactions', ids.card, '--per-page', '5'],
      check: (run) => {
        const rows = tableRows(run.stdout);
        expect(rows.length === 2, `${rows.length} transactions listed, expected 2`);
        expect(
          rows[0]?.TYPE === 'authorization' && rows[1]?.TYPE === 'capture',
          'expected the authorization, then the capture',
        );
        return '2 transactions';
      },
    });
    before = await wallet('test');
    await r.step({
      name: 'cards: terminate',
      title: 'Terminate it now: the remaining balance goes back to the wallet',
      argv: ['cards', 'terminate', ids.card, '--reason', 'no_longer_needed'],
      grep: '^(status|balance_minor) ',
      check: async (run) => {
        expect(card(run).status === 'terminated', `card status ${card(run).status}, expected terminated`);
        const after = await wallet('test');
        expect(
          after.balance_minor - before.balance_minor === 7500,
          `the wallet got back ${after.balance_minor - before.balance_minor}, expected 7500`,
        );
        return 'terminated, 7500 refunded';
      },
    });

    // Bulk: rows checked first, a key per row; a refused row says what to do for its customer's state
    write(
      'customer-rejected.json',
      JSON.stringify(
        { ...CUSTOMER, first_name: 'Mallory', last_name: 'Reject', email: 'mallory@example.com' },
        null,
        2,
      ) + '\n',
    );
    let rejectedId = '';
    await r.step({
      name: 'customers: rejected',
      title: 'Another customer, whose verification is rejected (the mock rejects a last_name of Reject)',
      argv: ['customers', 'create', '--from', 'customer-rejected.json'],
      grep: '^(id|last_name) ',
      check: (run) => {
        rejectedId = keyValues(run.stdout).id ?? '';
        expect(/^[0-9A-Z]{26}$/.test(rejectedId), 'the answer should carry the customer id');
        return `customer ${rejectedId}`;
      },
    });
    write('cards.csv', `customer_id,amount_minor\n${ids.customer},1000\n${rejectedId},1000\n`);
    before = await wallet('test');
    await r.step({
      name: 'cards: batch',
      title:
        "Issue cards in bulk from a CSV (every row checked first, one idempotency key per row); a refused row says what to do for its customer's state, as the single command does (exit 5)",
      argv: ['cards', 'issue', '--batch', 'cards.csv'],
      expectExit: 5,
      check: async (run) => {
        const rows = tableRows(run.stdout);
        expect(
          rows[0]?.STATUS === 'ok' && rows[1]?.STATUS === 'error',
          `rows answered ${rows.map((x) => x.STATUS).join(', ')}, expected ok, error`,
        );
        expect(
          rows[1]?.DETAIL?.includes(`Customer ${rejectedId}'s verification was rejected (identity_mismatch)`) &&
            rows[1].DETAIL.includes(`cardctl customers kyc ${rejectedId}`),
          'the refused row should say the verification was rejected, and how to resubmit',
        );
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 1000 + fee,
          `the wallet moved ${before.balance_minor - after.balance_minor}, expected ${1000 + fee} (row 1 only)`,
        );
        return 'row 1 issued; row 2 refused, rejected (identity_mismatch): fix and resubmit, waiting will not help';
      },
    });
    // The same file edited: a row added at the top, the others reordered. Keys come from what each
    // row asks, not from the file, so only the new row is sent.
    write('cards.csv', `customer_id,amount_minor\n${ids.customer},3300\n${rejectedId},1000\n${ids.customer},1000\n`);
    before = await wallet('test');
    await r.step({
      name: 'cards: batch, edited file',
      title:
        'Add a row at the top and reorder the others, then run the file again: the rows already done come from the journal, only the new row is charged',
      argv: ['cards', 'issue', '--batch', 'cards.csv'],
      expectExit: 5,
      check: async (run) => {
        const rows = tableRows(run.stdout);
        expect(
          rows.map((x) => x.STATUS).join(',') === 'ok,error,ok',
          `rows answered ${rows.map((x) => x.STATUS).join(', ')}, expected ok, error, ok`,
        );
        expect(
          (rows[2]?.DETAIL ?? '').includes('from the journal'),
          'the row issued by the first run should come from the journal',
        );
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 3300 + fee,
          `the wallet moved ${before.balance_minor - after.balance_minor}, expected ${3300 + fee} (the new row only)`,
        );
        return 'the new row issued; the two rows of the first run not sent again';
      },
    });
  },
};
