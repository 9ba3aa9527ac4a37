// A journal shared by a fleet (issue 35; docs/journal.md, "A journal shared by a fleet"): the
// built CLI on two "machines" (two state folders, nothing shared but the database) against the real
// mock, and a real PostgreSQL started for this file (test/helpers/postgres.ts). A day passes on
// both sides: the shared journal's operations are made 25 h older, as a day would (their records
// rewritten with their checksums, as a person with psql would), and the mock's clock moves 25 h
// (it forgets every key: a key sent again would be a new charge). The mock's books say whether
// anything was charged twice.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { type AddressInfo, connect as connectTcp, createServer, type Socket } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { activeCard, advance, cardBalance, ctl, type MockHandle } from '../helpers/api.js';
import { BIN, cleanEnv, ROOT } from '../helpers/cli.js';
import { type Machine, useFleet } from '../helpers/fleet.js';
import { needsPostgres } from '../helpers/programs.js';

const HOUR = 3_600_000;
const withPostgres = needsPostgres();

/** The shared journal's operations first sent `hours` earlier, their records and checksums rewritten (a day passing on the clients' side). */
async function ageJournal(url: string, hours: number): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const rows = await sql`SELECT id, record FROM cardctl_journal.operations`;
    for (const r of rows) {
      const rec = JSON.parse(r.record as string) as { time: string };
      rec.time = new Date(Date.parse(rec.time) - hours * HOUR).toISOString();
      const text = JSON.stringify(rec);
      await sql`UPDATE cardctl_journal.operations SET time = ${rec.time}, record = ${text}, crc = ${crc32(text)} WHERE id = ${r.id as string}`;
    }
  } finally {
    await sql.end();
  }
}

async function dayPasses(mock: MockHandle, url: string): Promise<void> {
  await ageJournal(url, 25);
  await advance(mock, 25 * 3600);
}

/**
 * How many times each row was charged, from the card's balance alone: the rows' amounts are
 * powers of ten, so each decimal digit of what the card gained counts one row's charges.
 */
async function chargesOf(
  mock: MockHandle,
  card: string,
  before: number,
  amounts: readonly number[],
): Promise<number[]> {
  const gained = (await cardBalance(mock, card)) - before;
  return amounts.map((a) => Math.floor(gained / a) % 10);
}

function batchFile(m: Machine, card: string, amounts: number[]): string {
  const file = join(m.sb.dir, `recharges-${amounts.join('-')}.csv`);
  writeFileSync(file, ['card_id,amount', ...amounts.map((a) => `${card},${a}`)].join('\n') + '\n');
  return file;
}

const opsOf = async (
  m: Machine,
): Promise<Array<{ id: string; idempotency_key: string; outcome: string; host?: string; body: string }>> =>
  JSON.parse((await m.run(['ops', 'list', '--all', '--json'])).stdout).data;

describe.runIf(withPostgres)('a journal shared by two machines', () => {
  const f = useFleet({ seed: 35 });

  it('a fresh runner a day later sends none of the rows another machine sent: answered from the shared journal, nothing charged', async () => {
    const url = await f.newJournal();
    const a = f.machine(url);
    const card = (await activeCard(f.mock)).id as string;
    const amounts = [1, 10, 100];
    const start = await cardBalance(f.mock, card);
    const file = batchFile(a, card, amounts);
    const first = await a.run(['cards', 'recharge', '--batch', file, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const balance = await cardBalance(f.mock, card);
    await dayPasses(f.mock, url);

    const b = f.machine(url); // a new state folder: the runner's disk is new
    const again = await b.run(['cards', 'recharge', '--batch', file]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('from the journal');
    expect(await cardBalance(f.mock, card)).toBe(balance);
    expect(await chargesOf(f.mock, card, start, amounts)).toEqual([1, 1, 1]);
    // B lists what A sent, by A's ids, with the machine each was sent from
    const idsOnA = (await opsOf(a)).map((e) => e.id).sort();
    const onB = await opsOf(b);
    expect(onB.map((e) => e.id).sort()).toEqual(idsOnA);
    expect(onB.map((e) => e.host)).toEqual(onB.map(() => hostname()));
    // a single command a day later names where its key was first sent
    const single = ['cards', 'recharge', card, '--amount', '1000', '--idempotency-key', 'fleet-single-1'];
    expect((await a.run(single)).code).toBe(0);
    await dayPasses(f.mock, url);
    const later = await f.machine(url).run(single);
    expect(later.code, later.stderr).toBe(0);
    expect(later.stderr).toContain(`, from ${hostname()}); the API forgets a key after 24 h`);
  });

  it('a batch leaves nothing in the folder it runs from: the journal is a URL, not a path, and no lock folder is made beside it', async () => {
    const url = await f.newJournal();
    const a = f.machine(url);
    const card = (await activeCard(f.mock)).id as string;
    const file = batchFile(a, card, [1]);
    const cwd = join(a.sb.dir, 'cwd');
    mkdirSync(cwd);
    const r = await a.sb.run(['cards', 'recharge', '--batch', file], { env: a.env, cwd, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(readdirSync(cwd)).toEqual([]); // it was `postgres:/USER@HOST:PORT/locks/`
  });

  it('a batch on A killed (SIGKILL) mid-send, rerun on B a day later: no row charged twice, the row in flight held back as unknown', async () => {
    const url = await f.newJournal();
    const a = f.machine(url);
    const card = (await activeCard(f.mock)).id as string;
    const amounts = [1, 10, 100, 1000, 10000];
    const start = await cardBalance(f.mock, card);
    const file = batchFile(a, card, amounts);
    await ctl(f.mock, 'POST', '/faults', { operation: 'recharge', kind: 'slow', ms: 700, count: 3 });
    const child = spawn(process.execPath, [BIN, 'cards', 'recharge', '--batch', file, '--concurrency', '1'], {
      env: a.env,
      stdio: 'ignore',
    });
    const closed = new Promise((resolve) => child.once('close', resolve));
    try {
      // killed once two rows are answered and the third is on its way
      for (let i = 0; i < 200; i++) {
        const ops = await opsOf(f.machine(url));
        if (ops.filter((o) => o.outcome === 'resolved').length >= 2 && ops.length >= 3) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      child.kill('SIGKILL');
      await closed;
    }
    await ctl(f.mock, 'DELETE', '/faults');
    // what A left, row by row (how far it got depends on the machine's speed): answered, unknown (in flight), or not recorded
    const left = new Map<number, string>();
    for (const o of await opsOf(f.machine(url))) left.set(JSON.parse(o.body).amount, o.outcome);
    expect([...left.values()].filter((o) => o === 'resolved').length).toBeGreaterThanOrEqual(2);
    expect([...left.values()].filter((o) => o === 'unknown').length).toBeLessThanOrEqual(1);
    await dayPasses(f.mock, url);

    const b = f.machine(url);
    const rerun = await b.run(['cards', 'recharge', '--batch', file]);
    // the row A was sending when it died: its outcome is unknown, and a day later it is not sent again
    const unknown = [...left.values()].includes('unknown');
    expect(rerun.code, rerun.stderr).toBe(unknown ? 7 : 0);
    const charges = await chargesOf(f.mock, card, start, amounts);
    for (const [i, amount] of amounts.entries()) {
      const onA = left.get(amount);
      if (onA === 'unknown')
        expect(charges[i], `row ${i + 1}, in flight on A`).toBeLessThanOrEqual(1); // at most once, whatever A's last request did
      else expect(charges[i], `row ${i + 1}, ${onA ?? 'never reached by A'}`).toBe(1); // answered on A: not sent again; never reached: sent once by B
    }
  });

  it('the server stopped in the middle of a batch stops it, nothing unrecorded leaves; the rerun after its restart charges each row once', async () => {
    const url = await f.newJournal();
    const a = f.machine(url);
    const card = (await activeCard(f.mock)).id as string;
    const amounts = [1, 10, 100, 1000, 10000, 100000];
    const start = await cardBalance(f.mock, card);
    const file = batchFile(a, card, amounts);
    await ctl(f.mock, 'POST', '/faults', { operation: 'recharge', kind: 'slow', ms: 400, count: 6 });
    const child = spawn(process.execPath, [BIN, 'cards', 'recharge', '--batch', file, '--concurrency', '1'], {
      env: a.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const code = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      for (let i = 0; i < 200; i++) {
        const ops = await opsOf(f.machine(url));
        if (ops.filter((o) => o.outcome === 'resolved').length >= 2) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await f.pg.stopServer('fast');
      expect(await code).not.toBe(0);
    } finally {
      child.kill('SIGKILL');
      await f.pg.startServer();
    }
    // one row meets the stopped server, and the batch stops there: the rows after it are not tried
    expect(stderr).toMatch(
      /Stopped at row \d+: cannot reach the shared journal postgres:\/\/cardctl_test@127\.0\.0\.1:\d+\/journal_\d+ .*not sent/,
    );
    expect(stderr).not.toContain(f.pg.password);
    await ctl(f.mock, 'DELETE', '/faults');
    const beforeRerun = await chargesOf(f.mock, card, start, amounts);
    expect(beforeRerun.every((n) => n <= 1)).toBe(true);
    expect(beforeRerun.reduce((x, n) => x + n, 0)).toBeLessThan(amounts.length); // it stopped: not every row was sent

    const rerun = await a.run(['cards', 'recharge', '--batch', file]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await chargesOf(f.mock, card, start, amounts)).toEqual(amounts.map(() => 1));
  });

  it('one key, two machines at once: the second refuses (exit 9) naming the holder, sends nothing; after the first ends, it replays', async () => {
    const url = await f.newJournal();
    const [a, b] = [f.machine(url), f.machine(url)];
    const card = (await activeCard(f.mock)).id as string;
    const start = await cardBalance(f.mock, card);
    // the first machine's request held at the API long enough for the second to start on a busy machine
    await ctl(f.mock, 'POST', '/faults', { operation: 'recharge', kind: 'slow', ms: 6000, count: 1 });
    const args = ['cards', 'recharge', card, '--amount', '401', '--idempotency-key', 'fleet-401', '--json'];
    const first = a.run(args);
    for (let i = 0; i < 100 && (await opsOf(b)).length === 0; i++) await new Promise((r) => setTimeout(r, 30));
    const second = await b.run(args);
    expect(second.code, second.stderr).toBe(9);
    expect(JSON.parse(second.stdout).error.message).toMatch(/cardctl on .* \(pid \d+\)/); // the holder, as the server knows its connection
    expect((await first).code).toBe(0);
    const replay = await b.run(args);
    expect(replay.code, replay.stderr).toBe(0);
    expect(await cardBalance(f.mock, card)).toBe(start + 401);
  });

  it('a holder that stops answering (SIGSTOP) loses the key after CARDCTL_JOURNAL_HOLD: the other machine then sends it, and the API answers the one operation (charged once)', async () => {
    const url = await f.newJournal();
    const hold = { CARDCTL_JOURNAL_HOLD: '3' };
    const [a, b] = [f.machine(url), f.machine(url)];
    const card = (await activeCard(f.mock)).id as string;
    const start = await cardBalance(f.mock, card);
    await ctl(f.mock, 'POST', '/faults', { operation: 'recharge', kind: 'slow', ms: 4000, count: 1 });
    const args = ['cards', 'recharge', card, '--amount', '3', '--idempotency-key', 'stalled-1'];
    const frozen = spawn(process.execPath, [BIN, ...args], { env: { ...a.env, ...hold }, stdio: 'ignore' });
    const ended = new Promise((resolve) => frozen.once('close', resolve));
    try {
      for (let i = 0; i < 200 && (await opsOf(b)).length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      frozen.kill('SIGSTOP'); // its request is at the API; its process answers nothing now
      const held = await b.run(args, hold);
      expect(held.code, held.stderr).toBe(9);
      expect(held.stderr).toContain('loses the key within 3 s');
      await new Promise((r) => setTimeout(r, 4500)); // the server ended the silent session, and its lock
      const after = await b.run(args, hold);
      expect(after.code, after.stderr).toBe(0);
      expect(await cardBalance(f.mock, card)).toBe(start + 3);
    } finally {
      frozen.kill('SIGCONT');
      frozen.kill('SIGKILL');
      await ended;
    }
  }, 60_000);

  it('the new-journal note is said once for the whole fleet, on stderr; doctor and config name the shared journal, never its password', async () => {
    const url = await f.newJournal();
    const [a, b] = [f.machine(url), f.machine(url)];
    const card = (await activeCard(f.mock)).id as string;
    const one = await a.run(['cards', 'recharge', card, '--amount', '501']);
    expect(one.stderr).toContain('new shared operations journal');
    expect(one.stdout).not.toContain('journal');
    const two = await b.run(['cards', 'recharge', card, '--amount', '502']);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stderr).not.toContain('new');
    const doctor = await b.run(['doctor', '--json']);
    const journal = JSON.parse(doctor.stdout).checks.find((c: { name: string }) => c.name === 'journal');
    expect(journal.detail).toContain('shared PostgreSQL journal, reachable, 2 operations');
    const config = await b.run(['config', '--json']);
    expect(JSON.parse(config.stdout).settings.journal).toMatchObject({
      source: 'environment',
      from: 'CARDCTL_JOURNAL_URL',
    });
    for (const r of [one, two, doctor, config]) expect(r.stdout + r.stderr).not.toContain(f.pg.password);
  });

  it('a runner of an older cardctl on a journal a newer one migrated: its money commands are refused (exit 2, nothing sent), never its password shown; the journal left as it is', async () => {
    const url = await f.newJournal();
    const a = f.machine(url);
    const card = (await activeCard(f.mock)).id as string;
    expect((await a.run(['cards', 'recharge', card, '--amount', '3', '--idempotency-key', 'fleet-newer-1'])).code).toBe(
      0,
    );
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await sql`UPDATE cardctl_journal.meta SET value = '99' WHERE name = 'schema_version'`; // a newer cardctl's migration, elsewhere in the fleet
      const before = await cardBalance(f.mock, card);
      const b = f.machine(url);
      for (const argv of [
        ['cards', 'recharge', card, '--amount', '4', '--json'],
        ['cards', 'recharge', card, '--amount', '3', '--idempotency-key', 'fleet-newer-1', '--json'],
      ]) {
        const r = await b.run(argv);
        expect(r.code, r.stdout + r.stderr).toBe(2);
        const { error } = JSON.parse(r.stdout);
        expect(error.code).toBe('journal_newer');
        expect(error.message).toMatch(
          /^the shared journal postgres:\/\/\S+ was written by a newer cardctl \(its schema 99, this one's 1\)/,
        );
        expect(r.stdout + r.stderr).not.toContain(f.pg.password);
      }
      expect(await cardBalance(f.mock, card)).toBe(before);
      const counted = await sql`SELECT count(*)::int AS n FROM cardctl_journal.operations`;
      expect(counted[0]!.n).toBe(1);
      expect((await sql`SELECT value FROM cardctl_journal.meta WHERE name = 'schema_version'`)[0]!.value).toBe('99');
    } finally {
      await sql.end();
    }
  });

  it("retention for the fleet: a machine's money command compacts the shared journal's aged operations in the background", async () => {
    const url = await f.newJournal();
    const [a, b] = [f.machine(url), f.machine(url)];
    const card = (await activeCard(f.mock, { amount: 100 })).id as string;
    for (const key of ['old-1', 'old-2'])
      expect((await a.run(['cards', 'recharge', card, '--amount', '1', '--idempotency-key', key])).code).toBe(0);
    await ageJournal(url, 120 * 24); // sent 120 days ago
    const compacted = async () =>
      (
        await f.pg.psql(
          "SELECT value FROM cardctl_journal.meta WHERE name = 'last_compaction'",
          url.split('/').pop()!.split('?')[0],
        )
      ).trim();
    expect(await compacted()).toBe('');
    // a fresh machine of the fleet: its money command finds the retention due and starts the compaction
    const r = await b.run(['cards', 'recharge', card, '--amount', '1', '--idempotency-key', 'new-1'], {
      CARDCTL_JOURNAL_RETENTION: '100d',
    });
    expect(r.code, r.stderr).toBe(0);
    for (let i = 0; i < 200 && (await compacted()) === ''; i++) await new Promise((res) => setTimeout(res, 100));
    expect(await compacted()).not.toBe('');
    const show = async (m: Machine, key: string) => JSON.parse((await m.run(['ops', 'show', key, '--json'])).stdout);
    expect(await show(a, 'old-1')).toMatchObject({ outcome: 'resolved', body: null, compacted_at: expect.any(String) });
    expect(await show(b, 'new-1')).toMatchObject({ body: '{"amount":1}' }); // today's: kept whole
    // and the 24-hour rule still holds for a compacted key: answered from the journal, nothing sent
    const again = await b.run(['cards', 'recharge', card, '--amount', '1', '--idempotency-key', 'old-1', '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).from_journal).toBeTruthy();
  }, 60_000);

  it('ops copy --to puts a local journal into the shared one once (run twice, nothing twice); the day after, a machine of the fleet answers its keys from there', async () => {
    const url = await f.newJournal();
    const local = f.machine(undefined);
    const card = (await activeCard(f.mock)).id as string;
    const start = await cardBalance(f.mock, card);
    const file = batchFile(local, card, [1, 10]);
    expect((await local.run(['cards', 'recharge', '--batch', file])).code).toBe(0);
    const copy = await local.run(['ops', 'copy', '--to', url, '--json']);
    expect(copy.code, copy.stderr).toBe(0);
    expect(JSON.parse(copy.stdout)).toMatchObject({ operations: 2, added: 2 });
    expect(copy.stdout + copy.stderr).not.toContain(f.pg.password);
    const twice = await local.run(['ops', 'copy', '--to', url, '--json']);
    expect(JSON.parse(twice.stdout)).toMatchObject({ operations: 2, added: 0 });
    await dayPasses(f.mock, url);
    const fleet = f.machine(url);
    const rerun = await fleet.run(['cards', 'recharge', '--batch', file]);
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(await chargesOf(f.mock, card, start, [1, 10])).toEqual([1, 1]);
  });

  it('1,000 races of two machines on one key each: exactly one sender every time', async () => {
    const url = await f.newJournal();
    const script = join(ROOT, 'test', 'fixtures', 'journal-race.mjs');
    const race = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [script, 'race', '1000'], {
          env: { ...cleanEnv(), CARDCTL_JOURNAL_URL: url },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.once('error', reject);
        child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`the race exited ${code}`))));
      });
    const [a, b] = await Promise.all([race(), race()]);
    const lines = `${a}${b}`.trim().split('\n');
    const sent = lines.filter((l) => l.startsWith('SENT ')).map((l) => Number(l.slice(5)));
    expect(sent).toHaveLength(1000);
    expect(new Set(sent).size).toBe(1000); // every key sent, none by both
    // and each key's other attempt saw it held (BUSY) or already sent (FOUND)
    expect(lines.filter((l) => /^(BUSY|FOUND) /.test(l))).toHaveLength(1000);
  }, 120_000);

  it('the password from a password file (PGPASSFILE, ~/.pgpass) as libpq reads it; one that others can read is not used (exit 2, nothing sent)', async () => {
    const url = new URL(await f.newJournal());
    url.password = '';
    const line = (host: string, password: string) =>
      `${host}:${url.port}:${url.pathname.slice(1)}:${decodeURIComponent(url.username)}:${password.replace(/([:\\])/g, '\\$1')}`;
    const m = f.machine(url.href);
    const file = join(m.sb.dir, 'pgpass');
    // a comment, a line for another host, then the one that matches (its password escaped as libpq writes it)
    writeFileSync(
      file,
      `# the fleet's journal\n${line('db.example', 'not-this-one')}\n${line('127.0.0.1', f.pg.password)}\n`,
      {
        mode: 0o600,
      },
    );
    const card = (await activeCard(f.mock)).id as string;
    const before = await cardBalance(f.mock, card);
    const r = await m.run(['cards', 'recharge', card, '--amount', '901'], { PGPASSFILE: file });
    expect(r.code, r.stderr).toBe(0);
    expect(await cardBalance(f.mock, card)).toBe(before + 901);
    // in the home folder, with wildcards
    mkdirSync(join(m.sb.dir, 'home'));
    writeFileSync(join(m.sb.dir, 'home', '.pgpass'), `*:*:*:*:${f.pg.password}\n`, { mode: 0o600 });
    const home = await m.run(['cards', 'recharge', card, '--amount', '902'], { HOME: join(m.sb.dir, 'home') });
    expect(home.code, home.stderr).toBe(0);
    expect(await cardBalance(f.mock, card)).toBe(before + 901 + 902);
    chmodSync(file, 0o644); // readable by others: not used
    const open = await m.run(['cards', 'recharge', card, '--amount', '903'], { PGPASSFILE: file });
    expect(open.code, open.stderr).toBe(2);
    expect(open.stderr).toContain('nothing was sent');
    expect(open.stderr).toContain('chmod 600'); // the hint names the file's mode
    expect(await cardBalance(f.mock, card)).toBe(before + 901 + 902);
    for (const out of [r, home, open]) expect(out.stdout + out.stderr).not.toContain(f.pg.password);
  });

  it('the server from a connection service file (service= or PGSERVICE, as libpq reads pg_service.conf); a service in no file, or a line it cannot read, is refused (exit 2, nothing sent)', async () => {
    const url = new URL(await f.newJournal());
    const m = f.machine('postgres:///?service=fleet');
    const file = join(m.sb.dir, 'pg_service.conf');
    writeFileSync(
      file,
      [
        '# the fleet',
        '[other]',
        'host=db.example',
        '[fleet]',
        `host=${url.hostname}`,
        `port = ${url.port}`,
        `dbname=${url.pathname.slice(1)}`,
        `user=${decodeURIComponent(url.username)}`,
        `password=${f.pg.password}`,
        '',
      ].join('\n'),
    );
    const card = (await activeCard(f.mock)).id as string;
    const before = await cardBalance(f.mock, card);
    const r = await m.run(['cards', 'recharge', card, '--amount', '911', '--idempotency-key', 'service-911'], {
      PGSERVICEFILE: file,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(await cardBalance(f.mock, card)).toBe(before + 911);
    // PGSERVICE names it when the URL does not; the URL's own parts win over the section's
    const viaEnv = await m.run(['ops', 'list', '--all', '--json'], {
      PGSERVICEFILE: file,
      PGSERVICE: 'fleet',
      CARDCTL_JOURNAL_URL: 'postgres:///',
    });
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(JSON.parse(viaEnv.stdout).data.map((o: { idempotency_key: string }) => o.idempotency_key)).toEqual([
      'service-911',
    ]);
    const missing = await m.run(['cards', 'recharge', card, '--amount', '912'], {
      PGSERVICEFILE: file,
      CARDCTL_JOURNAL_URL: 'postgres:///?service=nowhere',
    });
    expect(missing.code, missing.stderr).toBe(2);
    expect(missing.stderr).toContain('the service "nowhere" is in no service file');
    expect(missing.stderr).toContain('nothing was sent');
    writeFileSync(file, `[fleet]\nhost=${url.hostname}\npasswd=${f.pg.password}\n`);
    const unreadable = await m.run(['cards', 'recharge', card, '--amount', '913'], { PGSERVICEFILE: file });
    expect(unreadable.code, unreadable.stderr).toBe(2);
    expect(unreadable.stderr).toContain(`line 3 of ${file}`);
    expect(await cardBalance(f.mock, card)).toBe(before + 911);
    for (const out of [r, viaEnv, missing, unreadable]) expect(out.stdout + out.stderr).not.toContain(f.pg.password);
  });

  it('an unreachable journal server refuses every money command before anything is sent: exit 8, naming it without its password', async () => {
    const canary = 'pw-canary-7f3a91';
    const m = f.machine(`postgres://cardctl:${canary}@127.0.0.1:1/journal?connect_timeout=2`);
    const card = (await activeCard(f.mock)).id as string;
    const before = await cardBalance(f.mock, card);
    const r = await m.run(['cards', 'recharge', card, '--amount', '701']);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('cannot reach the shared journal postgres://cardctl@127.0.0.1:1/journal');
    expect(r.stderr).toContain('nothing was sent');
    expect(r.stdout + r.stderr).not.toContain(canary);
    expect(await cardBalance(f.mock, card)).toBe(before);
    const wrong = await m.run(['cards', 'recharge', card, '--amount', '702'], {
      CARDCTL_JOURNAL_URL: f.pg.url.replace(f.pg.password, canary),
    });
    expect(wrong.code, wrong.stderr).toBe(2);
    expect(wrong.stderr).toContain('the password was refused');
    expect(wrong.stdout + wrong.stderr).not.toContain(canary);
    expect(await cardBalance(f.mock, card)).toBe(before);
  });
});

/** A TCP relay in front of the server that counts the connections made through it; `silent`: it takes them and never answers. */
async function relay(to: { host: string; port: number }, silent = false) {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((client) => {
    connections++;
    sockets.add(client);
    client.on('error', () => {}).on('close', () => sockets.delete(client));
    if (silent) return;
    const upstream = connectTcp(to.port, to.host);
    sockets.add(upstream);
    upstream.on('error', () => client.destroy()).on('close', () => sockets.delete(upstream));
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    /** connections still open through it */
    open: () => [...sockets].filter((s) => !s.destroyed).length,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe.runIf(withPostgres)("a shared journal's connection, started before the command's code loads", () => {
  const f = useFleet({ seed: 36 });
  const relays: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const r of relays) await r.close();
  });

  it("a money command makes one connection (the early one is the journal's), ends it when done, and records as before", async () => {
    const url = new URL(await f.newJournal());
    const r = await relay({ host: url.hostname, port: Number(url.port) });
    relays.push(r);
    url.port = String(r.port);
    const m = f.machine(url.href);
    const card = (await activeCard(f.mock)).id as string;
    const before = await cardBalance(f.mock, card);
    for (const [i, amount] of [711, 712].entries()) {
      const done = await m.run([
        'cards',
        'recharge',
        card,
        '--amount',
        String(amount),
        '--idempotency-key',
        `early-${amount}`,
      ]);
      expect(done.code, done.stderr).toBe(0);
      expect(r.connections()).toBe(i + 1); // one connection a command, not an early one beside the journal's
    }
    expect(await cardBalance(f.mock, card)).toBe(before + 711 + 712);
    // the same key again, within the API's 24 h: sent again and answered as the first (a third command, a third connection)
    const again = await m.run(['cards', 'recharge', card, '--amount', '711', '--idempotency-key', 'early-711']);
    expect(again.code, again.stderr).toBe(0);
    expect(await cardBalance(f.mock, card)).toBe(before + 711 + 712);
    expect(r.connections()).toBe(3);
    await expect.poll(() => r.open(), { timeout: 5_000 }).toBe(0); // each command ended its connection
    // a command of the journal that is not a money command connects too (ops list reads it), and only once
    const list = await m.run(['ops', 'list', '--all', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(
      JSON.parse(list.stdout)
        .data.map((o: { idempotency_key: string }) => o.idempotency_key)
        .sort(),
    ).toEqual(['early-711', 'early-711', 'early-712']);
    expect(r.connections()).toBe(4);
    // a command without a journal opens none
    expect((await m.run(['cards', 'get', card])).code).toBe(0);
    expect(r.connections()).toBe(4);
  });

  it('a server that takes the connection and never answers does not hold a command that fails before using the journal; a money command still says it cannot reach it (exit 8)', async () => {
    const silent = await relay({ host: '127.0.0.1', port: 1 }, true);
    relays.push(silent);
    const canary = 'pw-canary-early-5c1d';
    const journal = `postgres://cardctl:${canary}@127.0.0.1:${silent.port}/journal`;
    // a connection that would wait 10 minutes: the command is done long before (the run is killed after 60 s)
    const m = f.machine(`${journal}?connect_timeout=600`);
    const card = (await activeCard(f.mock)).id as string;
    const before = await cardBalance(f.mock, card);
    // no credentials: refused before the journal is used; the connection under way keeps nothing waiting
    const noKey = await m.run(['cards', 'recharge', card, '--amount', '721'], {
      CARDCTL_API_KEY: '',
      CARDCTL_API_SECRET: '',
    });
    expect(noKey.code, noKey.stderr).toBe(2);
    expect(noKey.stderr).toContain('no credentials');
    expect(silent.connections()).toBe(1);
    const r = await m.run(['cards', 'recharge', card, '--amount', '722'], {
      CARDCTL_JOURNAL_URL: `${journal}?connect_timeout=2`,
    });
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain(`postgres://cardctl@127.0.0.1:${silent.port}/journal`);
    expect(r.stderr).toContain('nothing was sent');
    for (const out of [noKey, r]) expect(out.stdout + out.stderr).not.toContain(canary);
    expect(await cardBalance(f.mock, card)).toBe(before);
  });
});

describe.runIf(withPostgres)('a shared journal over TLS', () => {
  const f = useFleet({ seed: 37, server: { tls: true } });

  it("sslmode=verify-full with the server's CA records the operation; without that CA nothing is sent (exit 8, journal_tls)", async () => {
    expect(f.pg.url).toContain('sslmode=verify-full');
    const card = (await activeCard(f.mock)).id as string;
    const before = await cardBalance(f.mock, card);
    const good = await f.machine(f.pg.url).run(['cards', 'recharge', card, '--amount', '5']);
    expect(good.code, good.stderr).toBe(0);
    expect(await cardBalance(f.mock, card)).toBe(before + 5);
    // the system's CAs do not know the test CA: the certificate is refused before anything is sent
    const noCa = f.pg.url.replace(/&?sslrootcert=[^&]*/, '');
    const bad = await f.machine(noCa).run(['cards', 'recharge', card, '--amount', '7', '--json']);
    expect(bad.code, bad.stdout).toBe(8);
    expect(JSON.parse(bad.stdout).error.code).toBe('journal_tls');
    expect(bad.stdout + bad.stderr).not.toContain(f.pg.password);
    expect(await cardBalance(f.mock, card)).toBe(before + 5);
  });
});
