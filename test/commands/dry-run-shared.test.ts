// `--dry-run` with the shared journal (PostgreSQL, CARDCTL_JOURNAL_URL): a fresh runner's dry run
// of a batch another machine sent reads what that machine recorded, the same journal its real run
// would read: every row answered, nothing sent, nothing recorded (the shared journal's operations
// unchanged, no local journal made).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { activeCard, apiRequestsDuring, cardBalance } from '../helpers/api.js';
import type { CliResult } from '../helpers/cli.js';
import { useFleet } from '../helpers/fleet.js';
import { filesUnder } from '../helpers/journal.js';
import { needsPostgres } from '../helpers/programs.js';

const withPostgres = needsPostgres();

describe.runIf(withPostgres)('--dry-run with a shared journal', () => {
  const f = useFleet({ seed: 381 });

  it("a fresh runner's dry run of what another machine sent: every row answered from the shared journal, nothing sent or recorded", async () => {
    const url = await f.pg.createDatabase('journal_dry');
    const [a, b] = [f.machine(url), f.machine(url)];
    const card = (await activeCard(f.mock, { amount: 100 })).id as string;
    const file = join(a.sb.dir, 'rows.csv');
    writeFileSync(file, `card_id,amount\n${card},1\n${card},2\n`);
    expect((await a.run(['cards', 'recharge', '--batch', file])).code).toBe(0);
    const opsBefore = JSON.parse((await b.run(['ops', 'list', '--all', '--json'])).stdout).data.length;
    const filesBefore = filesUnder(b.sb.stateDir);

    let r!: CliResult;
    const sent = await apiRequestsDuring(
      f.mock,
      async () => (r = await b.run(['cards', 'recharge', '--batch', file, '--dry-run', '--json'])),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d.rows.map((x: { decision: string }) => x.decision)).toEqual(['answer', 'answer']);
    expect(d.journal).not.toContain(f.pg.password);
    expect(r.stdout + r.stderr).not.toContain(f.pg.password);
    expect(JSON.parse((await b.run(['ops', 'list', '--all', '--json'])).stdout).data.length).toBe(opsBefore);
    expect(filesUnder(b.sb.stateDir)).toEqual(filesBefore);
    expect(await cardBalance(f.mock, card)).toBe(103);
  });

  it('a dry run against a database no cardctl used yet leaves it as it is: no schema made, the operation would be sent', async () => {
    const m = f.machine(await f.pg.createDatabase('journal_untouched'));
    const card = (await activeCard(f.mock, { amount: 100 })).id as string;
    const schema = () =>
      f.pg.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'cardctl_journal'", 'journal_untouched');
    let r!: CliResult;
    const sent = await apiRequestsDuring(
      f.mock,
      async () =>
        (r = await m.run([
          'cards',
          'recharge',
          card,
          '--amount',
          '5',
          '--idempotency-key',
          'dry-1',
          '--dry-run',
          '--json',
        ])),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    expect(JSON.parse(r.stdout).money.decision).toBe('send');
    expect((await schema()).trim()).toBe('0');
    const show = await m.run(['ops', 'replay', 'dry-1', '--dry-run']);
    expect(show.code, show.stderr).toBe(4); // not found: there is no journal there yet
    expect(show.stderr).toContain('/journal_untouched'); // the shared journal named, not a local file
    expect((await schema()).trim()).toBe('0');
    const real = await m.run(['cards', 'recharge', card, '--amount', '5', '--idempotency-key', 'dry-1']);
    expect(real.code, real.stderr).toBe(0); // the real run makes it
    expect((await schema()).trim()).toBe('1');
  });
});
