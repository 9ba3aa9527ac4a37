// The journal's database: private modes, records folded into entries, damage refused, base URL identity.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, journalFile } from '../../src/client/journal.js';
import { normalBase } from '../../src/client/identity.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'cardctl-journal-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const op = {
  profile: 'p',
  source: 'flag',
  mode: 'test',
  base_url: 'http://x/api/v1',
  method: 'POST',
  path: '/api/v1/cards',
  query: '',
  idempotency_key: 'k1',
  body: Buffer.from('{"a":1}'),
};

describe('journal', () => {
  it('lives under CARDCTL_STATE_DIR, else XDG_STATE_HOME/cardctl', async () => {
    expect(journalFile({ CARDCTL_STATE_DIR: '/s', XDG_STATE_HOME: '/x' })).toBe('/s/journal.db');
    expect(journalFile({ XDG_STATE_HOME: '/x' })).toBe('/x/cardctl/journal.db');
  });

  it('creates the folders 0700 and the files 0600, also under a wider existing folder and umask 000', async () => {
    const dir = join(tmp(), 'state');
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const old = process.umask(0);
    try {
      const j = new Journal(join(dir, 'journal.db'));
      await j.recordOp(op);
      const files = readdirSync(dir).filter((f) => f.startsWith('journal.db'));
      expect(files).toContain('journal.db-wal'); // WAL mode
      for (const f of files) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600);
      await j.close();
    } finally {
      process.umask(old);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('records the op before and the outcome after, and folds them; found by id, prefix and key', async () => {
    const j = new Journal(join(tmp(), 'journal.db'));
    const id = await j.recordOp(op);
    expect((await j.entries())[0]).toMatchObject({
      id,
      outcome: 'unknown',
      status: null,
      body_sha256: '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    });
    expect((await j.unresolved()).map((e) => e.id)).toEqual([id]);
    await j.recordOutcome({ id, status: 201, outcome: 'resolved', resource_id: 'CARD' });
    expect((await j.entries())[0]).toMatchObject({ outcome: 'resolved', status: 201, resource_id: 'CARD' });
    expect(await j.unresolved()).toEqual([]);
    expect(await j.find(id.slice(0, 8))).toMatchObject({ id });
    expect(await j.find(id.slice(3, 9))).toMatchObject({ id });
    expect(await j.find('k1')).toMatchObject({ id });
    expect(await j.stats()).toMatchObject({ ops: 1, unresolved: 0 });
  });

  it('a success is final: a later send that learned nothing (a replay refused at connect, an in_flight) does not make it unknown again', async () => {
    const j = new Journal(join(tmp(), 'journal.db'));
    const id = await j.recordOp(op);
    await j.recordOutcome({ id, status: 201, outcome: 'resolved', resource_id: 'CARD' });
    await j.recordOutcome({ id, status: null, outcome: 'unknown', replay: true }); // ops replay: connection refused
    await j.recordOutcome({ id, status: 409, outcome: 'unknown', code: 'in_flight', replay: true }); // another process's answer, recorded late
    expect((await j.entries())[0]).toMatchObject({ outcome: 'resolved', status: 201, resource_id: 'CARD' });
    expect((await j.entries())[0]!.outcomes).toHaveLength(3); // every record is kept (ops show lists them)
    // a refusal is not final that way: a later unknown (the replay may have gone through) wins
    const other = await j.recordOp({ ...op, idempotency_key: 'k2' });
    await j.recordOutcome({ id: other, status: 409, outcome: 'resolved', code: 'kyc_not_approved' });
    await j.recordOutcome({ id: other, status: 500, outcome: 'unknown', replay: true });
    expect((await j.history('k2'))[0]).toMatchObject({ outcome: 'unknown', status: 500 });
    expect((await j.unresolved()).map((e) => e.id)).toEqual([other]);
  });

  it("a damaged record makes the key's history unknowable (refused, naming ops verify), never shorter", async () => {
    const file = join(tmp(), 'journal.db');
    await new Journal(file).recordOp(op);
    for (const damage of [
      "'[' || substr(record, 2)", // not JSON
      'replace(record, \'"k1"\', \'"j1"\')', // the key inside the record, another key
      'replace(record, \'"type":"op"\', \'"type":"oq"\')', // a record of no known type
    ]) {
      const db = new DatabaseSync(file);
      const before = (db.prepare('SELECT record FROM operations').get() as { record: string }).record;
      db.exec(`UPDATE operations SET record = ${damage}`);
      db.close();
      await expect(new Journal(file).history('k1'), damage).rejects.toThrow(/damaged .*Idempotency-Key k1.*not sent/);
      const back = new DatabaseSync(file);
      back.prepare('UPDATE operations SET record = ?').run(before);
      back.close();
    }
    expect(await new Journal(file).history('k1')).toHaveLength(1);
  });

  it('one base URL identity: scheme and host case, default port, trailing slash', async () => {
    expect(normalBase('HTTPS://API.Example.COM:443/api/v1/')).toBe('https://api.example.com/api/v1');
    expect(normalBase('http://127.0.0.1:80/api/v1')).toBe('http://127.0.0.1/api/v1');
    expect(normalBase('http://127.0.0.1:4010/api/v1//')).toBe('http://127.0.0.1:4010/api/v1');
  });
});

describe('retention falls due once there is something to compact', () => {
  it('after a compaction, an old operation it had to keep whole (unknown) does not make one due every day; a newly aged one does', async () => {
    const { compactionDue } = await import('../../src/client/retention.js');
    const DAY = 86_400_000;
    const now = Date.now();
    const j = new Journal(join(tmp(), 'journal.db'));
    const old = (key: string, daysAgo: number) => j.recordOp({ ...op, idempotency_key: key }, now - daysAgo * DAY);
    await j.recordOutcome(
      { id: await old('done-100', 100), status: 201, outcome: 'resolved', code: null, resource_id: 'c1' },
      now - 100 * DAY,
    );
    await old('unknown-95', 95); // no answer: kept whole by every compaction
    await j.recordOutcome(
      { id: await old('done-60', 60), status: 201, outcome: 'resolved', code: null, resource_id: 'c2' },
      now - 60 * DAY,
    );
    expect(await compactionDue(j, 90, now)).toBe(true); // done-100 is past 90 days
    expect(await j.compact(now - 90 * DAY)).toBe(1);
    // a day later: the unknown one is still past the retention, but nothing it could compact is
    expect(await compactionDue(j, 90, now + 1.5 * DAY)).toBe(false);
    // 31 days later done-60 is past 90 days: due again
    expect(await compactionDue(j, 90, now + 31 * DAY)).toBe(true);
    await j.close();
  });
});
