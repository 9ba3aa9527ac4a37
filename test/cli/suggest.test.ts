// Typos and help habits (issue 11, item 1): "did you mean" for commands and topics, `help CMD`,
// `-h` wherever `--help` works, and no stray word printed back (it could be a pasted secret).
import { describe, expect, it } from 'vitest';
import { closest, notFoundError, resolveWords } from '../../src/cli/suggest.js';
import { runCli } from '../helpers/cli.js';

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
    const a = await runCli(['cards', 'isue', '--customer', 'X']);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('Did you mean `cardctl cards issue …`?');
    const b = await runCli(['mock', 'fault', 'ad']);
    expect(b.stderr).toContain('Did you mean `cardctl mock faults add`?');
    const c = await runCli(['customer']);
    expect(c.stderr).toContain('Did you mean `cardctl customers`?');
  });

  it('an unknown word is never printed back; the commands are listed', async () => {
    const r = await runCli([SECRET_LIKE]);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain(SECRET_LIKE);
    expect(r.stderr).toContain('Commands: cards, completion, customers');
    const t = await runCli(['cards', 'sk9N3d0vYw2l1C5m9JxTzR4bF6hK7aPp']);
    expect(t.code).toBe(2);
    expect(t.stderr).not.toContain('sk9N3d0vYw2l1C5m9JxTzR4bF6hK7aPp');
    expect(t.stderr).toContain('Its commands: freeze, get, issue, recharge, terminate, transactions, unfreeze.');
  });

  it('--json: one clean error object on stdout', async () => {
    const r = await runCli(['customer', 'lst', '--json']);
    expect(r.code).toBe(2);
    const e = JSON.parse(r.stdout).error;
    expect(e.code).toBe('command_not_found');
    expect(e.message).toContain('`cardctl customers list');
  });

  it('matching is by words of the tree, not by substrings', () => {
    const ids = ['cards:get', 'cards:issue', 'customers:get', 'mock:faults', 'mock:faults:add', 'ops:show'];
    expect(resolveWords(['card', 'get', 'x'], ids)).toMatchObject({ words: ['cards', 'get'], command: 'cards:get', consumed: 2, corrected: true });
    expect(resolveWords(['mock', 'faults', 'add'], ids)).toMatchObject({ command: 'mock:faults:add', consumed: 3 });
    expect(closest('x', ['ops'])).toBeUndefined();
    expect(closest('cust', ['cards', 'customers'])).toBe('customers');
    expect(notFoundError(['zzzzzz'], ids, []).message).not.toContain('zzzzzz');
  });
});

describe('help habits', () => {
  it('`help cards issue` shows the same help as `cards issue --help`', async () => {
    const viaHelp = await runCli(['help', 'cards', 'issue']);
    const viaFlag = await runCli(['cards', 'issue', '--help']);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toContain('$ cardctl cards issue');
    expect(viaHelp.stdout).toBe(viaFlag.stdout);
  });

  it('`help` with a typo corrects it; with nothing known, suggests', async () => {
    const a = await runCli(['help', 'card', 'isue']);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain('$ cardctl cards issue');
    const b = await runCli(['help', SECRET_LIKE]);
    expect(b.code).toBe(2);
    expect(b.stderr).not.toContain(SECRET_LIKE);
  });

  for (const cmd of [['cards', 'issue'], ['sign'], ['mock', 'faults', 'add'], ['webhooks', 'trigger'], ['profiles', 'add'], ['cards']]) {
    it(`\`${cmd.join(' ')} -h\` is \`--help\``, async () => {
      const short = await runCli([...cmd, '-h']);
      const long = await runCli([...cmd, '--help']);
      expect(short.code).toBe(0);
      expect(short.stdout).toContain('USAGE');
      expect(short.stdout).toBe(long.stdout);
    });
  }
});
