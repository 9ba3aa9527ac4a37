import { card, issueArgv, type Section, type Card } from '../context.js';
import { join } from 'node:path';
import { bodyJson, expect } from '../runner.js';

export const section: Section = {
  title: 'When the outcome is unknown: --wait, the journal and ops replay',
  async run(ctx) {
    const { r, ids, wallet, fee } = ctx;
    const issue = issueArgv(ids);
    await r.step({
      name: 'mock: fault async_202',
      title: 'Make the next issue answer 202: the card is still being provisioned',
      argv: ['mock', 'faults', 'add', '--operation', 'issue', '--kind', 'async_202', '--count', '1'],
    });
    let before = await wallet('test');
    let card2 = '';
    const pending = /pending \(card ([0-9A-Z]{26})\)/;
    const waiting = await r.start({
      name: 'cards: issue --wait',
      title: 'Issue another card with --wait: on a 202 it replays the same key until the card is active or failed',
      argv: [...issue, '--idempotency-key', 'demo-issue-2', '--wait', '--wait-timeout', '20'],
      ready: ({ stderr }) => pending.test(stderr),
      readyNote: ({ stderr }) => `card ${(card2 = pending.exec(stderr)?.[1] ?? '')} pending`,
      check: async (run) => {
        const c = card(run);
        expect(c.id === card2, `the wait answered card ${c.id}, expected ${card2}`);
        expect(c.status === 'active', `card status ${c.status}, expected active`);
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 5000 + fee,
          `the wallet moved ${before.balance_minor - after.balance_minor}, expected ${5000 + fee} (once)`,
        );
        expect(after.reserved_minor === 0, 'money is still reserved for the card');
        before = after;
        return `card ${card2} active, charged once`;
      },
    });
    await r.step({
      name: 'mock: provision',
      title: 'Meanwhile, the issuer finishes provisioning it (through the mock control plane)',
      argv: ['mock', 'provision', card2, '--outcome', 'active'],
      grep: '^(id|status) ',
    });
    await r.wait(waiting, {
      name: 'cards: issue --wait, done',
      title: 'The waiting command sees the card active and prints it',
    });
    await r.step({
      name: 'mock: fault 500_after_commit',
      title: 'Make the next recharge succeed but answer 500 (the worst case: money moved, answer lost)',
      argv: ['mock', 'faults', 'add', '--operation', 'recharge', '--kind', '500_after_commit', '--count', '1'],
    });
    r.say('--retries 0 shows the raw outcome; by default cardctl would replay the same key itself.');
    await r.step({
      name: 'cards: recharge, answer lost',
      title: 'Recharge: exit 7, "outcome unknown", with the key to replay',
      argv: ['cards', 'recharge', card2, '--amount', '1000', '--idempotency-key', 'demo-recharge-1', '--retries', '0'],
      expectExit: 7,
      check: async (run) => {
        expect(run.stderr.includes('demo-recharge-1'), 'the idempotency key should be printed');
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 1000,
          'the recharge should have moved 1000 despite the 500',
        );
        before = after;
        return 'the wallet did move 1000';
      },
    });
    await r.step({
      name: 'ops: list unresolved',
      title: 'The journal knows which money operations have an unknown outcome',
      argv: ['ops', 'list', '--unresolved'],
      check: ({ stdout }) => expect(stdout.includes('demo-recharge-1'), 'the recharge should be listed as unresolved'),
    });
    await r.step({
      name: 'ops: replay',
      title: 'Replay it: the same bytes with the same key; the API answers the original outcome',
      argv: ['ops', 'replay', 'demo-recharge-1'],
      grep: '"(id|balance_minor)"',
      check: async (run) => {
        const c = bodyJson<{ data: Card }>(run.stdout).data;
        expect(c.balance_minor === 6000, `card balance ${c.balance_minor}, expected 6000 (5000 + 1000 once)`);
        const after = await wallet('test');
        expect(after.balance_minor === before.balance_minor, 'the replay charged the wallet again');
        return 'card balance 6000, charged once';
      },
    });
    await r.step({
      name: 'cards: recharge, a replay said so',
      title: 'The same recharge command again: the API replays it, and stderr says so in one line',
      argv: ['cards', 'recharge', card2, '--amount', '1000', '--idempotency-key', 'demo-recharge-1'],
      grep: '^Replay: ',
      check: async (run) => {
        expect(
          /^Replay: Idempotency-Key demo-recharge-1 was first sent .*not charged again\.$/m.test(run.stderr),
          'stderr should say the answer is a replay, not charged again',
        );
        expect((await wallet('test')).balance_minor === before.balance_minor, 'the replay charged the wallet again');
        return 'not charged again';
      },
    });
    await r.step({
      name: 'cards: same key, another amount',
      title: 'The same key with another amount: one key is one money operation, refused before sending (exit 5)',
      argv: ['cards', 'recharge', card2, '--amount', '1001', '--idempotency-key', 'demo-recharge-1'],
      expectExit: 5,
      check: async ({ stderr }) => {
        expect(stderr.includes('amount (1000 then, 1001 now)'), 'the refusal should name the amount that differs');
        expect((await wallet('test')).balance_minor === before.balance_minor, 'the wallet moved');
        return 'payload_mismatch, nothing sent';
      },
    });
    await r.step({
      name: 'mock: fault on a read',
      title: 'Faults reach every operation: make the next customers.get answer 500',
      argv: ['mock', 'faults', 'add', '--operation', 'customers.get', '--kind', '500', '--count', '1'],
    });
    await r.step({
      name: 'customers: get, service failed',
      title: 'A 500 on a call that moves no money: exit 8, "the service failed: retry later" (nothing to replay)',
      argv: ['customers', 'get', ids.customer, '--retries', '0'],
      expectExit: 8,
      check: ({ stderr }) => {
        expect(stderr.includes('the service failed (500)'), 'the error should say the service failed');
        return 'retry later';
      },
    });
    await r.step({
      name: 'typo: did you mean',
      title: 'A typo gets a suggestion (only command words are repeated, never an argument)',
      argv: ['card', 'get', card2],
      expectExit: 2,
      check: ({ stderr }) => {
        expect(stderr.includes('Did you mean `cardctl cards get …`?'), 'the error should suggest cards get');
        expect(!stderr.includes(card2), 'the argument should not be repeated');
        return 'cardctl cards get';
      },
    });
    await r.step({
      name: 'mock: fault 500_after_commit, again',
      title: 'Once more, a recharge that succeeds but answers 500',
      argv: ['mock', 'faults', 'add', '--operation', 'recharge', '--kind', '500_after_commit', '--count', '1'],
    });
    await r.step({
      name: 'cards: recharge, answer lost again',
      title: 'Recharge 500: exit 7, outcome unknown',
      argv: ['cards', 'recharge', card2, '--amount', '500', '--idempotency-key', 'demo-recharge-2', '--retries', '0'],
      expectExit: 7,
      check: async () => {
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 500,
          'the recharge should have moved 500 despite the 500',
        );
        before = after;
        return 'the wallet did move 500';
      },
    });
    r.say(
      "When a replay is not possible (the service or the mock is gone, or the key is past the API's 24 hours), learn the outcome elsewhere and record it.",
    );
    await r.step({
      name: 'cards: get, to learn the outcome',
      title: 'The card shows the 500: the recharge went through',
      argv: ['cards', 'get', card2, '--json'],
      grep: '"balance_minor"',
      check: (run) => {
        const c = bodyJson<Card>(run.stdout);
        expect(c.balance_minor === 6500, `card balance ${c.balance_minor}, expected 6500`);
        return 'card balance 6500';
      },
    });
    await r.step({
      name: 'ops: resolve',
      title: 'Record what you learned: appended to the journal, nothing deleted',
      argv: ['ops', 'resolve', 'demo-recharge-2', '--outcome', 'succeeded', '--note', 'cards get shows the 500'],
      grep: '^(id|outcome|resolution) ',
      check: ({ stderr }) => expect(stderr.includes('Recorded: '), 'ops resolve should say what it recorded'),
    });
    await r.step({
      name: 'ops: nothing unresolved',
      title: 'Nothing left unresolved (the --wait issue resolved itself; the last recharge was resolved by hand)',
      argv: ['ops', 'list', '--unresolved'],
      check: ({ stdout }) =>
        expect(
          !stdout.includes('demo-recharge-1') &&
            !stdout.includes('demo-issue-2') &&
            !stdout.includes('demo-recharge-2'),
          'an operation is still unresolved',
        ),
    });
    r.say(
      'The journal keeps resolved operations whole for 90 days, then compacts them (in the background) to what the 24-hour rule needs: key, target, body hash, outcome.',
    );
    await r.step({
      name: 'ops: compact',
      title: 'Compaction by hand (money commands start it once a day): nothing in this journal is 90 days old',
      argv: ['ops', 'compact', '--older-than', '90d'],
      check: ({ stdout }) => {
        expect(
          /^compacted 0 operations first sent before \S+ \(90 days\)/.test(stdout),
          `unexpected ops compact output: ${stdout.slice(0, 200)}`,
        );
        return 'nothing past the retention';
      },
    });
    await r.step({
      name: 'ops: verify',
      title: "The journal is one SQLite file: SQLite's own check of it (money commands refuse a damaged one)",
      argv: ['ops', 'verify'],
      check: ({ stderr }) => {
        expect(
          /is sound: SQLite's check found nothing wrong/.test(stderr),
          `unexpected ops verify: ${stderr.slice(0, 200)}`,
        );
        return 'sound';
      },
    });
    // the journal moves: into another file here, into a PostgreSQL a fleet shares with --to postgres://... (docs/journal.md)
    const copyFile = join(ctx.files, 'fleet-journal.db');
    await r.step({
      name: 'ops: copy',
      title:
        'Copy the journal into another one (a PostgreSQL URL shares it across machines; here a file; run again, it copies nothing twice)',
      argv: ['ops', 'copy', '--to', copyFile, '--json'],
      display: 'cardctl ops copy --to "$PWD/fleet-journal.db" --json',
      check: ({ stdout }) => {
        const copied = bodyJson<{ operations: number; added: number }>(stdout);
        expect(copied.operations > 0 && copied.added === copied.operations, `unexpected copy: ${stdout.slice(0, 200)}`);
        return `${copied.operations} operations copied`;
      },
    });
    await r.step({
      name: 'ops: list --journal',
      title: 'The copy answers as the journal does: --journal names which one a command reads (or CARDCTL_JOURNAL_URL)',
      argv: ['ops', 'list', '--journal', copyFile, '--key', 'demo-recharge-2', '--json'],
      display: 'cardctl ops list --journal "$PWD/fleet-journal.db" --key demo-recharge-2 --json',
      check: ({ stdout }) => {
        const ops = bodyJson<{ data: Array<{ idempotency_key: string }> }>(stdout).data;
        expect(
          ops.length > 0 && ops.every((o) => o.idempotency_key === 'demo-recharge-2'),
          `unexpected list: ${stdout.slice(0, 200)}`,
        );
        return `${ops.length} send of demo-recharge-2, from the copy`;
      },
    });
    r.say(
      'One key, two shells: while one cardctl process sends a key, another one refuses it instead of sending it too.',
    );
    await r.step({
      name: 'mock: fault slow',
      title: 'Make the next recharge answer 3 s late (done at once, answered late)',
      argv: ['mock', 'faults', 'add', '--operation', 'recharge', '--kind', 'slow', '--ms', '3000', '--count', '1'],
    });
    before = await wallet('test');
    const slow = await r.start({
      name: 'cards: recharge, answered late',
      title: 'A recharge in one shell, waiting for its answer (--verbose shows the attempt going out)',
      argv: ['cards', 'recharge', card2, '--amount', '100', '--idempotency-key', 'demo-recharge-3', '--verbose'],
      maxLines: 3,
      ready: ({ stderr }) => stderr.includes('> attempt 1 of'),
      check: async (run) => {
        expect(card(run).balance_minor === 6600, `card balance ${card(run).balance_minor}, expected 6600`);
        const after = await wallet('test');
        expect(
          before.balance_minor - after.balance_minor === 100,
          `the wallet moved ${before.balance_minor - after.balance_minor}, expected 100 (once)`,
        );
        before = after;
        return 'recharged once';
      },
    });
    await r.step({
      name: 'cards: recharge, same key in a second shell',
      title: 'The same command in a second shell meanwhile: refused at once, nothing sent (exit 9, key_in_use)',
      argv: ['cards', 'recharge', card2, '--amount', '100', '--idempotency-key', 'demo-recharge-3'],
      expectExit: 9,
      check: ({ stderr }) => {
        expect(stderr.includes('another cardctl process (pid '), 'the refusal should name the process sending the key');
        return 'another cardctl process is sending it';
      },
    });
    await r.wait(slow, {
      name: 'cards: recharge, answered late, done',
      title: 'The first shell gets its answer: the card recharged once',
    });
  },
};
