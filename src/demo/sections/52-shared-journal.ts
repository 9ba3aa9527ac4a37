// A journal shared by a fleet (docs/journal.md, "A journal shared by a fleet"): two "machines",
// each with a state folder of its own, recording in one PostgreSQL (src/demo/postgres.ts finds or
// starts it; without one the section says in one line that it is skipped and how to see it).
import { join } from 'node:path';
import { shellQuote } from '../../shell-quote.js';
import { card, issueArgv, type Card, type Section } from '../context.js';
import { bodyJson, expect, keyValues, type StepSpec, tableRows } from '../runner.js';

const DAY_AND_AN_HOUR = 25 * 3600;

export const section: Section = {
  title: 'A journal shared by a fleet: two machines, one PostgreSQL',
  async run(ctx) {
    const { r, ids, wallet, fee, mock, control } = ctx;
    const offer = await ctx.sharedJournal();
    if ('skipped' in offer) return r.skip(offer.skipped, offer.howToSee);
    const { journal } = offer;
    r.addSecret(journal.password);
    r.say(`The journal's PostgreSQL: ${journal.origin}.`);
    r.say(
      'Two machines (CI runners, pods, hosts), each with a state folder of its own (a new disk for every job) and the same test profile, record in one journal:',
    );
    r.say(`  export CARDCTL_JOURNAL_URL=${journal.url}`);
    r.say('  export PGPASSWORD=…   (the password stays out of the URL, of every command line and of every output)');

    const shared = { ...journal.env, CARDCTL_JOURNAL_URL: journal.url };
    /** A step on machine A or B: its state folder, the shared journal. */
    const on = (m: 'a' | 'b', argv: string[], grep?: string): Pick<StepSpec, 'argv' | 'env' | 'display' | 'grep'> => ({
      argv,
      env: { ...shared, CARDCTL_STATE_DIR: join(ctx.files, `machine-${m}`) },
      display:
        `CARDCTL_STATE_DIR="$PWD/machine-${m}" ${['cardctl', ...argv.map(shellQuote)].join(' ')}` +
        (grep ? ` | grep -E ${shellQuote(grep)}` : ''),
      ...(grep ? { grep } : {}),
    });
    const cardOnMock = async (id: string): Promise<Card> => {
      const cards = (await control('GET', '/cards')) as Card[];
      const found = cards.find((c) => c.id === id);
      expect(found, `the mock has no card ${id}`);
      return found;
    };
    /** How many recharges of the card reached the mock (its request log). */
    const rechargesSent = async (id: string): Promise<number> => {
      const path = `${new URL(mock.baseUrl).pathname}/cards/${id}/recharge`;
      const logged = (await control('GET', `/requests?path=${encodeURIComponent(path)}&limit=1000`)) as unknown[];
      return logged.length;
    };

    let before = await wallet('test');
    let fleetCard = '';
    await r.step({
      name: 'fleet: issue on A',
      title:
        'Machine A issues a card: recorded in the shared journal before it is sent (the first money command says the journal is new, once for the fleet)',
      ...on('a', [...issueArgv(ids), '--idempotency-key', 'demo-fleet-card'], '^(id|status|balance_minor) '),
      check: async (run) => {
        const c = card(run);
        fleetCard = c.id;
        expect(c.status === 'active', `card status ${c.status}, expected active`);
        expect(
          run.stderr.includes(`Note: this is a new shared operations journal (postgres://`),
          'the first money command should say the shared journal is new',
        );
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 5000 + fee,
          `the wallet moved ${before.balance_minor - after.balance_minor}, expected ${5000 + fee}`,
        );
        before = after;
        return `card ${c.id}, charged once`;
      },
    });
    ctx.write('fleet-topups.csv', `card_id,amount\n${fleetCard},100\n${fleetCard},200\n${fleetCard},300\n`);
    await r.step({
      name: 'fleet: batch on A',
      title: 'Machine A runs a recharge batch: three rows, each recorded in the shared journal, then sent',
      ...on('a', ['cards', 'recharge', '--batch', 'fleet-topups.csv']),
      check: async (run) => {
        const rows = tableRows(run.stdout);
        expect(
          rows.length === 3 && rows.every((x) => x.STATUS === 'ok'),
          `rows answered ${rows.map((x) => x.STATUS).join(', ')}, expected ok, ok, ok`,
        );
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 600,
          `the wallet moved ${before.balance_minor - after.balance_minor}, expected 600`,
        );
        const c = await cardOnMock(fleetCard);
        expect(c.balance_minor === 5600, `card balance ${c.balance_minor}, expected 5600`);
        before = after;
        return '3 rows recharged, card balance 5600';
      },
    });
    await r.step({
      name: 'fleet: the next day',
      title: "The next day: the mock's clock moves 25 hours, and the API forgets every idempotency key",
      argv: ['mock', 'clock', 'advance', String(DAY_AND_AN_HOUR)],
      grep: '^(now|offset_seconds) ',
      check: ({ stdout }) => {
        const offset = Number(keyValues(stdout).offset_seconds);
        expect(
          offset >= DAY_AND_AN_HOUR,
          `the mock's clock is ${offset} s ahead, expected at least ${DAY_AND_AN_HOUR}`,
        );
        return 'a row sent again now would be a new charge';
      },
    });
    r.say(
      "cardctl's own clock is the system's, and the demo does not move it: the journal's records stay minutes old (the tests make them a day older in the database). It does not matter here: a batch row already done is answered from the journal, whatever its age.",
    );
    const sentBefore = await rechargesSent(fleetCard);
    await r.step({
      name: 'fleet: batch rerun on B',
      title:
        "Machine B, a fresh runner with an empty disk, runs the same file: every row comes from A's sends in the shared journal, none is sent",
      ...on('b', ['cards', 'recharge', '--batch', 'fleet-topups.csv']),
      check: async (run) => {
        const rows = tableRows(run.stdout);
        expect(
          rows.length === 3 && rows.every((x) => x.STATUS === 'ok' && x.DETAIL?.includes('from the journal')),
          'every row should be answered from the journal',
        );
        expect(
          /^3 rows already done: answered from the journal, not sent again\./m.test(run.stderr),
          'the summary should say 3 rows already done',
        );
        const sent = (await rechargesSent(fleetCard)) - sentBefore;
        expect(sent === 0, `${sent} recharges reached the mock, expected none`);
        const after = await wallet('test');
        expect(after.balance_minor === before.balance_minor, 'the wallet moved: a row was charged again');
        const c = await cardOnMock(fleetCard);
        expect(c.balance_minor === 5600, `card balance ${c.balance_minor}, expected 5600 (each row once)`);
        return '0 rows sent, the card charged once for each row';
      },
    });
    await r.step({
      name: 'fleet: ops list on B',
      title: "Machine B's ops list shows what A sent, with A's ids",
      ...on('b', ['ops', 'list']),
      check: ({ stdout }) => {
        // the last column, IDEMPOTENCY KEY (a key has no space)
        const keys = stdout
          .split('\n')
          .filter((l) => l.startsWith('op_'))
          .map((l) => l.trim().split(/ +/).at(-1) ?? '');
        const batchKeys = keys.filter((k) => k.startsWith('batch-'));
        expect(keys.includes('demo-fleet-card'), "the card's issue should be listed");
        expect(batchKeys.length === 3, `${batchKeys.length} batch rows listed, expected 3`);
        return 'the issue and the 3 rows, sent from A';
      },
    });
    await r.step({
      name: 'fleet: doctor on B',
      title: 'doctor on B names the shared journal (never its password) and checks it answers',
      ...on('b', ['doctor'], 'journal'),
      check: ({ stdout }) => {
        expect(
          stdout.includes('shared PostgreSQL journal') && stdout.includes(`/${journal.database}`),
          `doctor should name the shared journal ${journal.database}`,
        );
        return `postgres://…/${journal.database}, no password shown`;
      },
    });

    // one key is sent by one process at a time, across machines
    await r.step({
      name: 'fleet: fault slow',
      title: 'Make the next recharge answer 3 s late (done at once, answered late)',
      argv: ['mock', 'faults', 'add', '--operation', 'recharge', '--kind', 'slow', '--ms', '3000', '--count', '1'],
    });
    const slow = await r.start({
      name: 'fleet: recharge on A, answered late',
      title: 'Machine A sends a recharge and waits for its answer (--verbose shows the attempt going out)',
      ...on('a', [
        'cards',
        'recharge',
        fleetCard,
        '--amount',
        '50',
        '--idempotency-key',
        'demo-fleet-topup-1',
        '--verbose',
      ]),
      maxLines: 3,
      ready: ({ stderr }) => stderr.includes('> attempt 1 of'),
      check: async (run) => {
        expect(card(run).balance_minor === 5650, `card balance ${card(run).balance_minor}, expected 5650`);
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 50,
          `the wallet moved ${before.balance_minor - after.balance_minor}, expected 50 (once)`,
        );
        before = after;
        return 'recharged once';
      },
    });
    await r.step({
      name: 'fleet: same key on B',
      title:
        'Machine B sends the same key meanwhile: refused at once, nothing sent (exit 9, key_in_use), the holder named as the server knows it',
      ...on('b', ['cards', 'recharge', fleetCard, '--amount', '50', '--idempotency-key', 'demo-fleet-topup-1']),
      expectExit: 9,
      check: ({ stderr }) => {
        const holder = /cardctl on \S+ \(pid \d+\)/.exec(stderr);
        expect(holder, 'the refusal should name the process holding the key (cardctl on HOST (pid N))');
        return holder[0];
      },
    });
    await r.wait(slow, {
      name: 'fleet: recharge on A, done',
      title: 'Machine A gets its answer: the card recharged once',
    });

    r.say("Moving in: the tour's own machine copies its local journal (every section before) into the shared one.");
    await r.step({
      name: 'fleet: ops copy --to',
      title: "Copy this machine's local journal into the shared one (run again, it copies nothing twice)",
      argv: ['ops', 'copy', '--journal', 'local', '--to', journal.url, '--json'],
      env: shared,
      display: 'cardctl ops copy --journal local --to "$CARDCTL_JOURNAL_URL" --json',
      check: ({ stdout }) => {
        const copied = bodyJson<{ operations: number; added: number }>(stdout);
        expect(copied.operations > 0 && copied.added === copied.operations, `unexpected copy: ${stdout.slice(0, 200)}`);
        return `${copied.operations} operations copied`;
      },
    });
    await r.step({
      name: 'fleet: ops list on B, moved in',
      title: "Machine B now finds this machine's sends too: the recharge whose answer was lost, earlier in the tour",
      ...on('b', ['ops', 'list', '--key', 'demo-recharge-1']),
      check: ({ stdout }) => {
        const sends = stdout.split('\n').filter((l) => l.startsWith('op_'));
        expect(
          sends.length > 0 && sends.every((l) => l.trimEnd().endsWith(' demo-recharge-1')),
          `unexpected list: ${stdout.slice(0, 300)}`,
        );
        return `${sends.length} sends of demo-recharge-1, read on B`;
      },
    });
  },
};
