// Typos and help habits (issue 11, item 1): "did you mean" for commands and topics, `help CMD`,
// `-h` wherever `--help` works, and no stray word printed back (it could be a pasted secret).
// The built CLI runs in this process (test/helpers/in-process.ts: oclif's path, help and usage
// errors included), except the first case: a whole process, its exit code and no stack trace.
import { describe, expect, it } from 'vitest';
import { closest, notFoundError, resolveWords } from '../../src/cli/suggest.js';
import { runCli } from '../helpers/cli.js';
import { runInProcess } from '../helpers/in-process.js';

const SECRET_LIKE = 'q8N3d0vYw2l1C5m9JxTzR4bF6hK7aPpUe3sG1oVtW0E=';

describe('did you mean', () => {
  it('`card get ID` suggests `cards get` and does not print the id back', async () => {
    const r = await runCli(['card', 'get', SECRET_LIKE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Did you mean `cardctl cards get …`?');
    expect(r.stderr + r.stdout).not.toContain(SECRET_LIKE);
    expect(r.stderr).not.toMatch(/ at .*\.js:\d+/); // no stack
  });

  it('a typo in a subcommand and in a nested topic', async () => {
    const a = await runInProcess(['cards', 'isue', '--customer', 'X']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('Did you mean `cardctl cards issue …`?');
    const b = await runInProcess(['mock', 'fault', 'ad']);
    expect(b.stderr).toContain('Did you mean `cardctl mock faults add`?');
    const c = await runInProcess(['customer']);
    expect(c.stderr).toContain('Did you mean `cardctl customers`?');
  });

  it('an unknown word is never printed back; the commands are listed', async () => {
    const r = await runInProcess([SECRET_LIKE]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain(SECRET_LIKE);
    expect(r.stderr).toContain('Commands: cards, completion, config, customers');
    const t = await runInProcess(['cards', 'sk9N3d0vYw2l1C5m9JxTzR4bF6hK7aPp']);
    expect(t.code).toBe(2);
    expect(t.stderr).not.toContain('sk9N3d0vYw2l1C5m9JxTzR4bF6hK7aPp');
    expect(t.stderr).toContain('Its commands: freeze, get, issue, recharge, terminate, transactions, unfreeze.');
  });

  it('--json: one clean error object on stdout', async () => {
    const r = await runInProcess(['customer', 'lst', '--json']);
    expect(r.code).toBe(2);
    const e = JSON.parse(r.stdout).error;
    expect(e.code).toBe('command_not_found');
    expect(e.hint).toContain('`cardctl customers list'); // the suggestion is the hint, its own field
    expect(e.message).toBe('"customer lst" is not a cardctl command.');
  });

  it('matching is by words of the tree, not by substrings', () => {
    const ids = ['cards:get', 'cards:issue', 'customers:get', 'mock:faults', 'mock:faults:add', 'ops:show'];
    expect(resolveWords(['card', 'get', 'x'], ids)).toMatchObject({
      words: ['cards', 'get'],
      command: 'cards:get',
      consumed: 2,
      corrected: true,
    });
    expect(resolveWords(['mock', 'faults', 'add'], ids)).toMatchObject({ command: 'mock:faults:add', consumed: 3 });
    expect(closest('x', ['ops'])).toBeUndefined();
    expect(closest('cust', ['cards', 'customers'])).toBe('customers');
    expect(notFoundError(['zzzzzz'], ids, []).message).not.toContain('zzzzzz');
  });
});

describe('help habits', () => {
  it('`help cards issue` shows the same help as `cards issue --help`', async () => {
    const viaHelp = await runInProcess(['help', 'cards', 'issue']);
    const viaFlag = await runInProcess(['cards', 'issue', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain('$ cardctl cards issue');
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it('`help` with a typo corrects it; with nothing known, suggests', async () => {
    const a = await runInProcess(['help', 'card', 'isue']);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('$ cardctl cards issue');
    const b = await runInProcess(['help', SECRET_LIKE]);
    expect(b.code).toBe(2);
    expect(b.stderr).not.toContain(SECRET_LIKE);
  });

  for (const cmd of [
    ['cards', 'issue'],
    ['sign'],
    ['mock', 'faults', 'add'],
    ['webhooks', 'trigger'],
    ['profiles', 'add'],
    ['cards'],
  ]) {
    it(`\`${cmd.join(' ')} -h\` is \`--help\``, async () => {
      const short = await runInProcess([...cmd, '-h']);
      const long = await runInProcess([...cmd, '--help']);
      expect(short.code).toBe(0);
      expect(short.stdout).toContain('USAGE');
      expect(short.stdout).toBe(long.stdout);
    });
  }
});

describe('likely words that are not commands', () => {
  it('`cards list` and others are answered with what to use instead (exit 2), also after a typo', async () => {
    const list = await runInProcess(['cards', 'list']);
    expect(list.code).toBe(2);
    expect(list.stderr).toBe(
      'Error: `cardctl cards list` is not a command.\nThe API has no card listing: a card is read by its id (`cardctl cards get CARD`). The cards you issued are in your journal (`cardctl ops list`), and their ids come back from `cardctl cards issue` (`--json | jq -r .id`).\n',
    );
    const typo = await runInProcess(['card', 'delete', '01JD2QA1B2C3D4E5F6G7H8J9KM']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('`cardctl cards terminate CARD`');
    expect(typo.stderr).not.toContain('01JD2QA1B2C3D4E5F6G7H8J9KM');
    const login = await runInProcess(['login', '--json']);
    expect(JSON.parse(login.stdout).error).toMatchObject({
      code: 'command_not_found',
      message: '`cardctl login` is not a command.',
      hint: expect.stringContaining('cardctl profiles add NAME'),
    });
    expect((await runInProcess(['customers', 'delete', 'x'])).stderr).toContain(
      'customers update CUSTOMER --status disabled',
    );
  });
});

describe('argument errors in cardctl words', () => {
  it('a missing flag or argument, a mistyped flag, two ways at once, a bad value: what is wrong, then the usage lines', async () => {
    const flag = await runInProcess(['mock', 'faults', 'add', '--operation', 'issue']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(
      /^Error: missing --kind KIND \(required\)\.\nUsage:\n  cardctl mock faults add --operation OPERATION --kind KIND /,
    );
    const arg = await runInProcess(['cards', 'get']);
    expect(arg.stderr).toBe(
      'Error: missing CARD (card id).\nUsage:\n  cardctl cards get CARD [API FLAGS]\nSee `cardctl cards get --help` for every flag.\n',
    );
    const typo = await runInProcess(['cards', 'issue', '--ammount', '5', '--customer', '01JD2QA1B2C3D4E5F6G7H8J9KM']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      'Error: unknown flag --ammount for `cardctl cards issue`.\nDid you mean `--amount MINOR`?\nUsage:\n',
    );
    expect(typo.stderr).toContain(
      '  cardctl cards issue --customer ID --amount MINOR [--product ID] [--idempotency-key KEY] [--wait] [--wait-timeout SECONDS] [API FLAGS]\n  cardctl cards issue --batch FILE ',
    );
    const both = await runInProcess(['cards', 'issue', '--batch', 'x.csv', '--customer', '01JD2QA1B2C3D4E5F6G7H8J9KM']);
    expect(both.stderr).toMatch(
      /^Error: --customer cannot be used with --batch: they are the two ways to run this command, pick one\.\n/,
    );
    const kind = await runInProcess([
      'mock',
      'faults',
      'add',
      '--operation',
      'issue',
      '--kind',
      'sloww',
      '--count',
      '1',
    ]);
    expect(kind.stderr).toMatch(
      /^Error: --kind must be one of: 503, 500, 500_after_commit, drop, slow, async_202, issue_failed\.\nDid you mean `--kind slow`\?\n/,
    );
    // a value typed where a flag goes is never repeated: it could be a pasted secret
    const secret = await runInProcess(['cards', 'get', '--sk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAA=zzz']);
    expect(secret.stderr).not.toContain('AAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    for (const r of [flag, arg, typo, both, kind])
      expect(r.stderr).not.toMatch(/The following error|Missing \d+ required|Nonexistent flag|See more help/);
  });

  it('--help marks what is required and shows --batch as the other way', async () => {
    const r = await runInProcess(['cards', 'issue', '--help']);
    expect(r.stdout).toMatch(
      /\$ cardctl cards issue --customer ID --amount MINOR \[--product ID\]\s+\[--idempotency-key KEY\]/,
    );
    expect(r.stdout).toMatch(/\$ cardctl cards issue --batch FILE \[--concurrency N\]/);
  });
});
