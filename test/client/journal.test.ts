// The journal's folder: private modes, records folded into entries, checksums, base URL identity.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal, journalDir, journalPath } from '../../src/client/journal.js';
import { normalBase } from '../../src/client/identity.js';
import { filesUnder } from '../helpers/journal.js';

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
  it('lives under CARDCTL_STATE_DIR, else XDG_STATE_HOME/cardctl; the old file beside it', () => {
    expect(journalDir({ CARDCTL_STATE_DIR: '/s', XDG_STATE_HOME: '/x' })).toBe('/s/journal');
    expect(journalDir({ XDG_STATE_HOME: '/x' })).toBe('/x/cardctl/journal');
    expect(journalPath({ CARDCTL_STATE_DIR: '/s' })).toBe('/s/operations.ndjson');
  });

  it('creates the folders 0700 and the files 0600, also under a wider existing folder and umask 000', () => {
    const dir = join(tmp(), 'state');
    mkdirSync(dir, { mode: 0o777 });
    chmodSync(dir, 0o777);
    const old = process.umask(0);
    try {
      new Journal(join(dir, 'journal')).recordOp(op);
    } finally {
      process.umask(old);
    }
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const files = filesUnder(join(dir, 'journal'));
    expect(files.length).toBeGreaterThanOrEqual(4); // key bucket, segment, id index, unresolved marker
    for (const f of files) expect(statSync(f).mode & 0o777, f).toBe(0o600);
  });

  it('records the op before and the outcome after, and folds them; found by id, prefix and key', () => {
    const j = new Journal(join(tmp(), 'journal'));
    const id = j.recordOp(op);
    expect(j.entries()[0]).toMatchObject({
      id,
      outcome: 'unknown',
      status: null,
      body_sha256: '015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862',
    });
    expect(j.unresolved().map((e) => e.id)).toEqual([id]);
    j.recordOutcome({ id, status: 201, outcome: 'resolved', resource_id: 'CARD' });
    expect(j.entries()[0]).toMatchObject({ outcome: 'resolved', status: 201, resource_id: 'CARD' });
    expect(j.unresolved()).toEqual([]);
    expect(j.find(id.slice(0, 8))).toMatchObject({ id });
    expect(j.find(id.slice(3, 9))).toMatchObject({ id });
    expect(j.find('k1')).toMatchObject({ id });
    expect(j.stats()).toMatchObject({ ops: 1, unresolved: 0 });
  });

  it('a success is final: a later send that learned nothing (a replay refused at connect, an in_flight) does not make it unknown again', () => {
    const j = new Journal(join(tmp(), 'journal'));
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
    expect(j.unresolved().map((e) => e.id)).toEqual([other]);
  });

  it("every line carries a checksum: a damaged byte in a key bucket makes the key's history unknowable (refused), never shorter", () => {
    const dir = join(tmp(), 'journal');
    const j = new Journal(dir);
    j.recordOp(op);
    const bucket = filesUnder(join(dir, 'keys'))[0]!;
    const text = readFileSync(bucket, 'utf8');
    const at = text.indexOf('"k1"') + 1;
    writeFileSync(bucket, text.slice(0, at) + 'j' + text.slice(at + 1)); // k1 -> j1: the key itself damaged
    const fresh = new Journal(dir);
    expect(() => fresh.history('k1')).toThrow(/damaged record.*checksum mismatch.*not sent/);
  });

  it('one base URL identity: scheme and host case, default port, trailing slash', () => {
    expect(normalBase('HTTPS://API.Example.COM:443/api/v1/')).toBe('https://api.example.com/api/v1');
    expect(normalBase('http://127.0.0.1:80/api/v1')).toBe('http://127.0.0.1/api/v1');
    expect(normalBase('http://127.0.0.1:4010/api/v1//')).toBe('http://127.0.0.1:4010/api/v1');
  });
});
