// The journal's file: private modes, and a torn last line never breaks reading or appending.
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, journalPath } from '../../src/client/journal.js';

const dirs: string[] = [];
const tmp = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'cardctl-journal-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const op = { profile: 'p', source: 'flag', mode: 'test', base_url: 'http://x/api/v1', method: 'POST', path: '/api/v1/cards', query: '', idempotency_key: 'k1', body: Buffer.from('{"a":1}') };

describe('journal', () => {
  it('lives under CARDCTL_STATE_DIR, else XDG_STATE_HOME/cardctl', () => {
    expect(journalPath({ CARDCTL_STATE_DIR: '/s', XDG_STATE_HOME: '/x' })).toBe('/s/operations.ndjson');
    expect(journalPath({ XDG_STATE_HOME: '/x' })).toBe('/x/cardctl/operations.ndjson');
  });

  it('creates the folder 0700 and the file 0600, also over a wider existing file and under umask 000', () => {
    const dir = join(tmp(), 'state');
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const file = join(dir, 'operations.ndjson');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const old = process.umask(0);
    try {
      new Journal(file).recordOp(op);
    } finally {
      process.umask(old);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('records the op before and the outcome after, and folds them', () => {
    const j = new Journal(join(tmp(), 'operations.ndjson'));
    const id = j.recordOp(op);
    expect(j.entries()[0]).toMatchObject({ id, outcome: 'unknown', status: null, body_sha256: '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862' });
    j.recordOutcome({ id, status: 201, outcome: 'resolved', resource_id: 'CARD' });
    expect(j.entries()[0]).toMatchObject({ outcome: 'resolved', status: 201, resource_id: 'CARD' });
    expect(j.find(id.slice(0, 8))).toMatchObject({ id });
    expect(j.find('k1')).toMatchObject({ id });
  });

  it('a success is final: a later send that learned nothing (a replay refused at connect, an in_flight) does not make it unknown again', () => {
    const j = new Journal(join(tmp(), 'operations.ndjson'));
    const id = j.recordOp(op);
    j.recordOutcome({ id, status: 201, outcome: 'resolved', resource_id: 'CARD' });
    j.recordOutcome({ id, status: null, outcome: 'unknown', replay: true }); // ops replay: connection refused
    j.recordOutcome({ id, status: 409, outcome: 'unknown', code: 'in_flight', replay: true }); // another process's answer, recorded late
    expect(j.entries()[0]).toMatchObject({ outcome: 'resolved', status: 201, resource_id: 'CARD' });
    expect(j.entries()[0]!.outcomes).toHaveLength(3); // every record is kept (ops show lists them)
    // a refusal is not final that way: a later unknown (the replay may have gone through) wins
    const other = j.recordOp({ ...op, idempotency_key: 'k2' });
    j.recordOutcome({ id: other, status: 409, outcome: 'resolved', code: 'kyc_not_approved' });
    j.recordOutcome({ id: other, status: 500, outcome: 'unknown', replay: true });
    expect(j.history('k2')[0]).toMatchObject({ outcome: 'unknown', status: 500 });
  });

  it('skips a torn last line and appends the next record on a line of its own', () => {
    const file = join(tmp(), 'operations.ndjson');
    const j = new Journal(file);
    const first = j.recordOp(op);
    appendFileSync(file, '{"type":"outcome","id":"' + first + '","sta'); // crash mid-write
    expect(j.entries().map((e) => e.id)).toEqual([first]);
    const second = j.recordOp({ ...op, idempotency_key: 'k2' });
    j.recordOutcome({ id: second, status: 200, outcome: 'resolved' });
    const entries = j.entries();
    expect(entries.map((e) => e.id)).toEqual([first, second]);
    expect(entries[0]!.outcome).toBe('unknown');
    expect(entries[1]!.outcome).toBe('resolved');
  });
});
