// The journal's database as users meet it: the built CLI against the embedded mock, real files.
// The older file journals taken over (once, every record, the old files kept aside, an interrupted
// takeover losing nothing); damage to the database refused, never a key made unknown; a full disk,
// a folder in the way; the new-journal notice, once.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/client/journal.js';
import { activeCard, advance, cardBalance, wallet } from '../helpers/api.js';
import { BIN, type Sandbox } from '../helpers/cli.js';
import {
  filesUnder,
  journalDb,
  journalRecords,
  legacyJournalText,
  rewriteJournal,
  writeFolderJournal,
} from '../helpers/journal.js';
import { journalSandboxes, json, state } from '../helpers/journal-sandbox.js';

const HOUR = 3_600_000;
const j = journalSandboxes({ seed: 35, cliTimeoutMs: 90_000 });
const sandbox = j.sandbox;
const balance = async () => (await wallet(j.mock, 'test')).balance_minor;

/** Operations in the journal's database (read as the sqlite3 shell would), or 0 without one. */
function opsIn(cardctlState: string): number {
  if (!existsSync(journalDb(cardctlState))) return 0;
  const db = new DatabaseSync(journalDb(cardctlState), { readOnly: true });
  try {
    return Number((db.prepare('SELECT count(*) AS n FROM operations').get() as { n: number }).n);
  } finally {
    db.close();
  }
}

/** Two days pass for the journal and the mock (which then forgets every key: sent again, a key is a new charge). */
async function twoDaysPass(s: Sandbox): Promise<void> {
  rewriteJournal(state(s), (r) => ({ ...r, time: new Date(Date.parse(r.time as string) - 48 * HOUR).toISOString() }));
  await advance(j.mock, 49 * 3600);
}

/** A sandbox holding an older operations.ndjson of `ops` operations (every 7th unknown). */
function withOldFile(ops: number, newestMs = Date.now() - 3 * 86_400_000) {
  const s = sandbox();
  mkdirSync(state(s), { recursive: true, mode: 0o700 });
  const text = legacyJournalText({
    ops,
    baseUrl: j.mock.baseUrl,
    keyId: j.mock.keys.test.keyId,
    unknownEvery: 7,
    newestMs,
  });
  writeFileSync(join(state(s), 'operations.ndjson'), text, { mode: 0o600 });
  return { s, text };
}

describe('taking over an older file journal', () => {
  it('operations.ndjson: every record in one go, said once; the old file kept aside byte for byte; taken over again (restored), nothing twice', async () => {
    const { s, text } = withOldFile(300);
    const first = await s.cli(['ops', 'list', '--limit', '1', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(/Took over the older journal .*operations\.ndjson: 557 records into .*journal\.db/);
    expect(first.stderr).toMatch(/kept as .*operations\.ndjson\.taken-over-/);
    const aside = readdirSync(state(s)).filter((f) => f.startsWith('operations.ndjson.taken-over-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(state(s), aside[0]!), 'utf8')).toBe(text);
    expect(existsSync(join(state(s), 'operations.ndjson'))).toBe(false);
    const unknown = Math.ceil(300 / 7);
    const doctor = await s.cli(['doctor']);
    expect(doctor.stdout).toContain(`300 operations, ${unknown} unresolved`);
    expect(doctor.stderr).not.toMatch(/Took over/);
    expect(json(await s.cli(['ops', 'list', '--unresolved', '--all', '--json'])).data).toHaveLength(unknown);

    writeFileSync(join(state(s), 'operations.ndjson'), text); // a backup restored beside the database
    const again = await s.cli(['ops', 'list', '--limit', '1']);
    expect(again.stderr).toMatch(/Took over the older journal/);
    expect(opsIn(state(s))).toBe(300);
    expect(json(await s.cli(['ops', 'list', '--unresolved', '--all', '--json'])).data).toHaveLength(unknown);
  });

  it('the folder journal with one of its copies damaged: the damaged line refuses money commands (nothing sent) until `ops verify --discard-unreadable`; then the old recharge comes from the journal', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const recharge = ['cards', 'recharge', card.id, '--amount', '5', '--idempotency-key', 'folder-1', '--json'];
    expect((await s.cli(recharge)).code).toBe(0);
    await twoDaysPass(s);
    const records = journalRecords(state(s));
    for (const f of readdirSync(state(s)))
      if (f.startsWith('journal.db') || f.startsWith('operations')) rmSync(join(state(s), f));
    writeFolderJournal(state(s), records, { damage: { id: records[0]!.id, copy: 'segments' } });
    const before = await balance();

    const refused = await s.cli(recharge);
    expect(refused.code, refused.stdout).toBe(1);
    expect(json(refused).error).toMatchObject({ code: 'journal_damaged' });
    expect(json(refused).error.hint).toContain('cardctl ops verify');
    expect(await balance()).toBe(before);
    const verify = await s.cli(['ops', 'verify']);
    expect(verify.stdout).toMatch(/unreadable line of the older journal .*segments.*checksum mismatch/);
    expect(verify.stderr).toMatch(/cannot be read: .*--discard-unreadable/);
    expect((await s.cli(['ops', 'verify', '--discard-unreadable'])).code).toBe(0);

    const answered = await s.cli(recharge);
    expect(answered.code, answered.stderr).toBe(0);
    expect(json(answered)).toMatchObject({ from_journal: true, outcome: 'succeeded' });
    expect(await balance()).toBe(before);
    expect(readdirSync(state(s)).some((f) => f.startsWith('journal.taken-over-'))).toBe(true);
  });

  it('answers far from their operation, a key sent twice, and the folder journal read twice over: each record kept once, every count and outcome as the records say', async () => {
    const { s, text } = withOldFile(2000, Date.now() - 3 * 86_400_000);
    const lines = text.trim().split('\n');
    const parsed = lines.map((l) => JSON.parse(l) as { type: string; id: string; idempotency_key?: string });
    const idOf = (key: string) => parsed.find((r) => r.idempotency_key === key)!.id;
    // the answers of gen-1 .. gen-99 written after everything else (far past any window of held operations)
    const late = new Set(Array.from({ length: 99 }, (_, i) => idOf(`gen-${i + 1}`)));
    const moved = lines.filter((_, i) => parsed[i]!.type === 'outcome' && late.has(parsed[i]!.id));
    // gen-7 (answered) and gen-14 (never answered: every 7th) sent again later, the second send answered
    const resend = (key: string, id: string) =>
      lines[parsed.findIndex((r) => r.idempotency_key === key)]!.replace(/"id":"op_[0-9a-f]+"/, `"id":"${id}"`);
    const outcome = (id: string) => moved[0]!.replace(/"id":"op_[0-9a-f]+"/, `"id":"${id}"`);
    const extra = [resend('gen-7', 'op_aaaaaaaaaaa7'), resend('gen-14', 'op_aaaaaaaaaa14'), outcome('op_aaaaaaaaaa14')];
    const file = [...lines.filter((l) => !moved.includes(l)), ...moved, ...extra].join('\n') + '\n';
    writeFileSync(join(state(s), 'operations.ndjson'), file);
    expect((await s.cli(['ops', 'list', '--limit', '1'])).code).toBe(0);
    // every 7th unanswered, gen-7 sent again unanswered (one more), gen-14's first send resolved by its second (the same operation, answered)
    const unknown = Math.ceil(2000 / 7) + 1 - 1;
    expect((await s.cli(['doctor'])).stdout).toContain(`2002 operations, ${unknown} unresolved`);
    const gen1 = json(await s.cli(['ops', 'show', 'gen-1', '--json']));
    expect(gen1).toMatchObject({ outcome: 'resolved', status: 200 });
    expect(gen1.outcomes).toHaveLength(1);
    const sends14 = json(await s.cli(['ops', 'list', '--key', 'gen-14', '--json'])).data as Array<{ outcome: string }>;
    expect(sends14.map((e) => e.outcome)).toEqual(['resolved', 'resolved']);
    expect((json(await s.cli(['ops', 'list', '--key', 'gen-7', '--json'])).data as unknown[]).length).toBe(2);

    // the same records as the folder journal kept them (each in its key's bucket and its hour's segment)
    const f = sandbox();
    mkdirSync(state(f), { recursive: true, mode: 0o700 });
    writeFolderJournal(
      state(f),
      file
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    );
    const took = await f.cli(['ops', 'list', '--limit', '1']);
    expect(took.stderr).toMatch(/Took over the older journal .*journal: 3717 records/);
    expect((await f.cli(['doctor'])).stdout).toContain(`2002 operations, ${unknown} unresolved`);
    expect(json(await f.cli(['ops', 'show', 'gen-1', '--json'])).outcomes).toHaveLength(1);
    expect(json(await f.cli(['ops', 'verify', '--json']))).toMatchObject({ ok: true });
  });

  it('killed (SIGKILL) in the middle: nothing half-done, the old file as it was; the next command takes every record over', async () => {
    const { s, text } = withOldFile(200_000);
    const child = j.track(
      spawn(process.execPath, [BIN, 'ops', 'list', '--limit', '1'], { env: { ...process.env, ...s.env } }),
    );
    const closed = new Promise((r) => child.once('close', r));
    // the takeover holds SQLite's write lock in one transaction: kill it once the database exists
    for (let i = 0; i < 3000 && !existsSync(journalDb(state(s))); i++) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 300));
    child.kill('SIGKILL');
    await closed;
    expect(opsIn(state(s))).toBe(0);
    expect(readFileSync(join(state(s), 'operations.ndjson'), 'utf8')).toBe(text);
    const after = await s.cli(['ops', 'list', '--limit', '1']);
    expect(after.code, after.stderr).toBe(0);
    expect(opsIn(state(s))).toBe(200_000);
  }, 180_000);

  it('a file of the folder journal that cannot be read, after thousands of records were written: refused, nothing taken over, the folder as it was; fixed, the next command takes every record once', async () => {
    const { s, text } = withOldFile(2000);
    const records = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; id: string });
    rmSync(join(state(s), 'operations.ndjson'));
    writeFolderJournal(state(s), records);
    // read after every key bucket (`zzz` sorts after their hex names): a link to nothing
    const link = join(state(s), 'journal', 'keys', 'zzz.ndjson');
    symlinkSync(join(s.dir, 'nowhere'), link);
    const folder = () =>
      filesUnder(join(state(s), 'journal'))
        .filter((f) => f !== link)
        .map((f) => [f, readFileSync(f, 'utf8')]);
    const before = folder();

    const refused = await s.cli(['ops', 'list', '--limit', '1']);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/zzz\.ndjson is a symbolic link to .*nowhere, which does not exist/);
    expect(opsIn(state(s))).toBe(0);
    expect(folder()).toEqual(before);
    expect(readdirSync(state(s)).some((f) => f.includes('taken-over'))).toBe(false);

    rmSync(link);
    const took = await s.cli(['ops', 'list', '--limit', '1']);
    expect(took.code, took.stderr).toBe(0);
    expect(took.stderr).toMatch(new RegExp(`Took over the older journal .*journal: ${records.length} records`));
    expect(opsIn(state(s))).toBe(2000);
    expect((await s.cli(['doctor'])).stdout).toContain(`2000 operations, ${Math.ceil(2000 / 7)} unresolved`);
    expect(json(await s.cli(['ops', 'verify', '--json']))).toMatchObject({ ok: true });
  });
});

describe('damage to the database', () => {
  it('a damaged file: money commands refused naming `ops verify`, nothing sent; `ops verify` exits 1; doctor says so', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const recharge = ['cards', 'recharge', card.id, '--amount', '5', '--idempotency-key', 'broken-1', '--json'];
    expect((await s.cli(recharge)).code).toBe(0);
    const file = journalDb(state(s));
    const db = new DatabaseSync(file);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    const bytes = readFileSync(file);
    bytes.write('this is not sqlite', 0); // the header, as a stray write would leave it
    writeFileSync(file, bytes);
    const before = await cardBalance(j.mock, card.id);
    const refused = await s.cli([...recharge.slice(0, -3), '--idempotency-key', 'broken-2', '--json']);
    expect(refused.code, refused.stdout).toBe(1);
    expect(json(refused).error).toMatchObject({ code: 'journal_damaged' });
    expect(json(refused).error.hint).toContain('cardctl ops verify');
    expect(await cardBalance(j.mock, card.id)).toBe(before);
    expect((await s.cli(['ops', 'verify'])).code).toBe(1);
    const doctor = await s.cli(['doctor']);
    expect(doctor.code).not.toBe(0);
    expect(doctor.stdout).toMatch(/journal.*damaged/);
  });

  it('a folder where the database should be: refused as a state folder to fix (exit 2), nothing sent', async () => {
    const s = sandbox();
    mkdirSync(journalDb(state(s)), { recursive: true });
    const card = await activeCard(j.mock, { amount: 100 });
    const r = await s.cli(['cards', 'recharge', card.id, '--amount', '5', '--json']);
    expect(r.code, r.stdout).toBe(2);
    expect(json(r).error).toMatchObject({ code: 'state_folder_unwritable' });
    expect(json(r).error.message).toMatch(/journal\.db.*EISDIR|EISDIR.*journal\.db/);
    expect(await cardBalance(j.mock, card.id)).toBe(100);
  });
});

describe('a journal a newer cardctl wrote (two versions on one machine, an image rolled back)', () => {
  it('money commands and the rerun are refused naming the newer version (exit 2, nothing sent); the journal is left as it was; the same version again reads it', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const key = ['--idempotency-key', 'newer-1', '--json'];
    expect((await s.cli(['cards', 'recharge', card.id, '--amount', '5', ...key])).code).toBe(0);
    const file = journalDb(state(s));
    const setVersion = (v: number) => {
      const db = new DatabaseSync(file);
      db.exec(`PRAGMA user_version = ${v}`);
      db.close();
    };
    setVersion(99); // what a later cardctl whose tables changed leaves
    const bytes = readFileSync(file);
    const before = await cardBalance(j.mock, card.id);
    const batch = join(s.dir, 'newer.csv');
    writeFileSync(batch, `card_id,amount\n${card.id},7\n`);
    for (const argv of [
      ['cards', 'recharge', card.id, '--amount', '6', '--idempotency-key', 'newer-2', '--json'],
      ['cards', 'recharge', card.id, '--amount', '5', ...key], // the key it holds: not answered from a journal it cannot read
      ['cards', 'recharge', '--batch', batch, '--json'],
    ]) {
      const r = await s.cli(argv);
      expect(r.code, r.stdout + r.stderr).toBe(2);
      const { error } = json(r);
      expect(error.code).toBe('journal_newer');
      expect(error.message).toContain("written by a newer cardctl (its schema 99, this one's 1)");
      expect(error.message).toContain('nothing is sent or read with it');
      expect(error.hint).toContain('cardctl --version');
      expect(r.stdout + r.stderr).not.toMatch(/\n\s+at |node:internal/);
    }
    expect(await cardBalance(j.mock, card.id)).toBe(before);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    setVersion(1); // the newer version's own migration is not this one's to guess: only the same version reads it
    const again = await s.cli(['cards', 'recharge', card.id, '--amount', '5', ...key]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/replay|from the journal|not charged again/i);
    expect(await cardBalance(j.mock, card.id)).toBe(before);
  });
});

describe('a full disk (a file size limit) while the operation is recorded', () => {
  it('the money command is refused (exit 2, the disk named), nothing sent; with room again the same command is charged once', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    expect((await s.cli(['ops', 'list'])).code).toBe(0); // the database made, with room
    const args = ['cards', 'recharge', card.id, '--amount', '7', '--idempotency-key', 'full-1', '--json'];
    // ulimit -f counts 512-byte blocks: 1 block is less than the WAL's first page
    const cut = spawnSync('bash', ['-c', `ulimit -f 1; exec "${process.execPath}" "${BIN}" "$@"`, 'bash', ...args], {
      env: { ...process.env, ...s.env, ...j.env },
      encoding: 'utf8',
    });
    expect(cut.status, cut.stdout + cut.stderr).toBe(2);
    expect(JSON.parse(cut.stdout).error).toMatchObject({ code: 'state_folder_unwritable' });
    expect(cut.stdout).toMatch(/disk is full|largest size/);
    expect(await cardBalance(j.mock, card.id)).toBe(100);
    const room = await s.cli(args);
    expect(room.code, room.stderr).toBe(0);
    expect(await cardBalance(j.mock, card.id)).toBe(107);
    expect(json(await s.cli(['ops', 'verify', '--json']))).toMatchObject({ ok: true });
  });
});

describe('a new journal', () => {
  it('says once, on stderr, that it is local to this machine and how to share one; never on stdout, never twice', async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const first = await s.cli(['cards', 'recharge', card.id, '--amount', '1', '--json']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(
      /new operations journal .*journal\.db.*local to this machine.*CARDCTL_STATE_DIR on a volume/,
    );
    expect(first.stdout).not.toMatch(/journal/);
    const second = await s.cli(['cards', 'recharge', card.id, '--amount', '1', '--json']);
    expect(second.stderr).not.toMatch(/new operations journal/);
  });

  it("in CI (CI=true), a batch's summary says the journal is local to this runner (stderr only)", async () => {
    const s = sandbox();
    const card = await activeCard(j.mock, { amount: 100 });
    const file = join(s.dir, 'ci.csv');
    writeFileSync(file, `card,amount\n${card.id},2\n`);
    const ci = await s.cli(['cards', 'recharge', '--batch', file, '--json'], { CI: 'true' });
    expect(ci.code, ci.stderr).toBe(0);
    expect(ci.stderr).toMatch(/The journal \(.*journal\.db\) is local to this runner/);
    expect(ci.stdout).not.toMatch(/runner/);
    const here = await s.cli(['cards', 'recharge', '--batch', file, '--json']);
    expect(here.stderr).not.toMatch(/local to this runner/);
  });
});
