// The PostgreSQL of the demo's section on a shared journal (src/demo/postgres.ts), in process:
// skipped in one line when there is none (and how to see it), a server of the user's
// (CARDCTL_DEMO_JOURNAL_URL: a new database a run, dropped at the end, kept with --keep, the
// password only in PGPASSWORD), and the demo's own throwaway server (started from the machine's
// binaries, stopped and removed by close). The whole tour against a real server is
// test/demo/demo.test.ts.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tourContext, type TourMock } from '../../src/demo/context.js';
import { type DemoJournal, JournalProvider } from '../../src/demo/postgres.js';
import { Runner } from '../../src/demo/runner.js';
import { runTour } from '../../src/demo/sections/index.js';
import { section as sharedJournalSection } from '../../src/demo/sections/52-shared-journal.js';
import { scramVerifier } from '../helpers/postgres-cluster.js';
import { type Postgres, startPostgres } from '../helpers/postgres.js';
import { needsPostgres } from '../helpers/programs.js';

const withPostgres = needsPostgres();

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The section run alone on a runner that writes into a string (no mock: a skipped section sends nothing). */
async function sectionOutput(provider: JournalProvider): Promise<{ out: string; runner: Runner }> {
  let out = '';
  const dir = mkdtempSync(join(tmpdir(), 'cardctl-demo-section-'));
  try {
    const runner = new Runner({
      node: process.execPath,
      bin: undefined,
      cwd: dir,
      env: {},
      write: (t) => void (out += t),
      chalk: new Chalk({ level: 0 }),
      secrets: [],
    });
    const control = async (): Promise<never> => {
      throw new Error('a skipped section asks the mock nothing');
    };
    const mock = { baseUrl: 'http://127.0.0.1:9/api/v1', products: [] } as unknown as TourMock;
    await runTour(tourContext({ r: runner, mock, files: dir, control, sharedJournal: () => provider.offer() }), [
      sharedJournalSection,
    ]);
    return { out, runner };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A query on the journal's database as the machines would connect (the URL, the password in PGPASSWORD). */
async function databaseOf(j: DemoJournal): Promise<string> {
  const sql = postgres(j.url, { pass: j.env.PGPASSWORD, max: 1, onnotice: () => {} });
  try {
    const [row] = await sql`SELECT current_database() AS db`;
    return row!.db as string;
  } finally {
    await sql.end();
  }
}

describe('the shared journal section without a PostgreSQL', () => {
  it('is skipped in one line after its heading, saying how to see it; no step runs', async () => {
    const provider = new JournalProvider({ env: {}, keep: false, find: () => undefined });
    const { out, runner } = await sectionOutput(provider);
    expect(out.split('\n')).toEqual([
      '',
      '━━ 1. A journal shared by a fleet: two machines, one PostgreSQL ━━',
      expect.stringMatching(
        /^⤼ skipped: no PostgreSQL on this machine\. To see it: install PostgreSQL 15 or later \(the demo then starts a throwaway server of its own\), or set CARDCTL_DEMO_JOURNAL_URL=postgres:\/\/USER@HOST\/DB to a server of yours \(the password in PGPASSWORD; .*\)\.$/,
      ),
      '',
    ]);
    expect(runner.records).toEqual([]);
    expect(runner.skipped).toEqual([
      {
        section: 'A journal shared by a fleet: two machines, one PostgreSQL',
        reason: 'no PostgreSQL on this machine',
        how_to_see: expect.stringContaining('CARDCTL_DEMO_JOURNAL_URL='),
      },
    ]);
    await provider.close(); // nothing to undo
  });

  it('CARDCTL_DEMO_JOURNAL_URL=off skips it even where PostgreSQL is installed; a version before 15 is named', async () => {
    const off = new JournalProvider({
      env: { CARDCTL_DEMO_JOURNAL_URL: 'off' },
      keep: false,
      find: () => ({ dir: '/usr/lib/postgresql/17/bin', major: 17 }),
    });
    expect(await off.offer()).toEqual({
      skipped: 'CARDCTL_DEMO_JOURNAL_URL=off',
      howToSee: 'unset it, or set it to a server of yours',
    });
    const old = new JournalProvider({ env: {}, keep: false, find: () => ({ dir: '/opt/pg14/bin', major: 14 }) });
    expect(await old.offer()).toMatchObject({
      skipped: 'PostgreSQL 14 is installed (/opt/pg14/bin); the shared journal needs 15 or later',
    });
  });

  it('a CARDCTL_DEMO_JOURNAL_URL that is not a PostgreSQL URL stops the demo (it was asked for), its text not repeated', async () => {
    const provider = new JournalProvider({
      env: { CARDCTL_DEMO_JOURNAL_URL: 'mysql://u:hunter2@db/x' },
      keep: false,
    });
    const err = await provider.offer().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/^CARDCTL_DEMO_JOURNAL_URL: a mysql: URL is not a journal cardctl can use/);
    expect(err?.message).not.toContain('hunter2');
  });
});

describe.runIf(withPostgres)('the shared journal section on a server of yours (CARDCTL_DEMO_JOURNAL_URL)', () => {
  let pg: Postgres;
  let maker: { url: string; password: string };
  beforeAll(async () => {
    pg = await startPostgres();
    // a role that may create databases (the cluster's test role may not)
    const password = 'demo-maker-AAAA-BBBB-CCCC';
    await pg.psql(`CREATE ROLE demo_maker LOGIN CREATEDB PASSWORD '${scramVerifier(password)}'`);
    maker = { url: `postgres://demo_maker@127.0.0.1:${pg.port}/${pg.database}`, password };
  });
  afterAll(() => pg?.stop());

  const demoDatabases = async (): Promise<string[]> =>
    (await pg.psql("SELECT datname FROM pg_database WHERE datname LIKE 'cardctl_demo_%' ORDER BY 1"))
      .split('\n')
      .filter(Boolean);

  it('makes a new database for the run (the password only in PGPASSWORD, never in the URL) and drops it at the end', async () => {
    const provider = new JournalProvider({
      env: { CARDCTL_DEMO_JOURNAL_URL: maker.url, PGPASSWORD: maker.password, PGCONNECT_TIMEOUT: '5' },
      keep: false,
    });
    const offer = await provider.offer();
    expect('journal' in offer).toBe(true);
    const j = (offer as { journal: DemoJournal }).journal;
    expect(j.database).toMatch(/^cardctl_demo_\d{14}_[0-9a-f]{6}$/);
    expect(j.url).toBe(`postgres://demo_maker@127.0.0.1:${pg.port}/${j.database}`);
    // the user's PG* variables go to the machines, and the password in PGPASSWORD
    expect(j.env).toEqual({ PGPASSWORD: maker.password, PGCONNECT_TIMEOUT: '5' });
    expect(j.origin).toBe(
      `your server (CARDCTL_DEMO_JOURNAL_URL, postgres://demo_maker@127.0.0.1:${pg.port}/${pg.database}): a new database ${j.database} for this run, dropped at the end`,
    );
    expect(j.server).toBeUndefined();
    expect(await demoDatabases()).toEqual([j.database]);
    expect(await databaseOf(j)).toBe(j.database);
    expect(provider.kept()).toBeUndefined();
    await provider.close();
    expect(await demoDatabases()).toEqual([]);
  });

  it('a second run gets another database; with --keep it is kept and named, with how to drop it', async () => {
    const env = { CARDCTL_DEMO_JOURNAL_URL: maker.url.replace('demo_maker@', `demo_maker:${maker.password}@`) };
    const provider = new JournalProvider({ env, keep: true });
    const j = ((await provider.offer()) as { journal: DemoJournal }).journal;
    // the password given in the URL is taken out of it: the machines get it in PGPASSWORD
    expect(j.url).not.toContain(maker.password);
    expect(j.env).toEqual({ PGPASSWORD: maker.password });
    expect(j.password).toBe(maker.password);
    await provider.close();
    expect(await demoDatabases()).toEqual([j.database]);
    expect(provider.kept()).toBe(
      `the database ${j.database} on postgres://demo_maker@127.0.0.1:${pg.port} (drop it with DROP DATABASE ${j.database})`,
    );
    await pg.psql(`DROP DATABASE ${j.database}`);
  });

  it('a role that cannot create databases stops the demo saying it needs CREATEDB, its password never shown', async () => {
    const provider = new JournalProvider({
      env: { CARDCTL_DEMO_JOURNAL_URL: pg.url }, // the cluster's test role, its password in the URL
      keep: false,
    });
    const err = await provider.offer().then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(
      new RegExp(
        `^CARDCTL_DEMO_JOURNAL_URL: postgres://cardctl_test@127\\.0\\.0\\.1:${pg.port}/cardctl: permission denied to create database \\(42501\\); the demo makes a new database for each run: its role needs CREATEDB$`,
      ),
    );
    expect(err?.message).not.toContain(pg.password);
    await provider.close();
    expect(await demoDatabases()).toEqual([]);
  });
});

describe.runIf(withPostgres)("the shared journal section on the demo's own throwaway server", () => {
  it("starts one from the machine's binaries on 127.0.0.1, password logins only; close stops it and removes its folder", async () => {
    const provider = new JournalProvider({ env: {}, keep: false });
    const j = ((await provider.offer()) as { journal: DemoJournal }).journal;
    expect(j.url).toMatch(/^postgres:\/\/cardctl_demo@127\.0\.0\.1:\d+\/cardctl_demo_\d{14}_[0-9a-f]{6}$/);
    expect(j.env).toEqual({ PGPASSWORD: j.password });
    expect(j.password).toMatch(/^[0-9a-f]{36}$/);
    const { dir, pid } = j.server!;
    expect(j.origin).toMatch(
      new RegExp(
        `^PostgreSQL \\d+ of this machine \\(.+\\), started for the tour on 127\\.0\\.0\\.1:\\d+, data in ${dir}: stopped and removed at the end$`,
      ),
    );
    expect(existsSync(join(dir, 'data', 'postmaster.pid'))).toBe(true);
    expect(alive(pid!)).toBe(true);
    expect(await databaseOf(j)).toBe(j.database);
    // no password, no login: the server asks for one (scram-sha-256)
    const refused = await databaseOf({ ...j, env: { PGPASSWORD: 'wrong' } }).then(
      () => 'answered',
      (e: { code?: string }) => e.code,
    );
    expect(refused).toBe('28P01');
    await provider.close();
    expect(alive(pid!)).toBe(false);
    expect(existsSync(dir)).toBe(false);
    await provider.close(); // twice: nothing more
  });
});
