// SQLite does not checksum its pages: a damaged byte in the pages holding a key could make a key
// sent before look unsent (measured before the journal's own checks: 13 of 2,893 single-bit flips
// there found no send, 20 more read another outcome), and the key would be sent again. With the
// record checksums and the second index (src/client/journal-db/schema.ts), every such flip reads
// the key's history exactly or refuses. In process (no mock: the flips run synchronously).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/client/journal.js';

const root = mkdtempSync(join(tmpdir(), 'cardctl-journal-damage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('damage to the database', () => {
  it('one flipped bit anywhere in the pages that hold a key: its history is read exactly, or refused; never a key made unknown', async () => {
    const file = join(root, 'base', 'journal.db');
    const base = new Journal(file);
    const op = (k: string) => ({
      profile: null,
      source: 'env',
      mode: 'test',
      base_url: 'http://127.0.0.1:1/api/v1',
      key_id: 'K',
      method: 'POST',
      path: '/api/v1/cards/C/recharge',
      query: '',
      idempotency_key: k,
      body: Buffer.from('{"amount":5}'),
    });
    for (let i = 0; i < 2000; i++)
      await base.recordOutcome({
        id: await base.recordOp(op(`k-${i}`)),
        status: 200,
        outcome: 'resolved',
        resource_id: 'C',
      });
    await base.close();
    const db = new DatabaseSync(file);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    const bytes = readFileSync(file);
    const key = 'k-1234';
    const pages = new Set<number>();
    for (let i = bytes.indexOf(key); i >= 0; i = bytes.indexOf(key, i + 1)) pages.add(Math.floor(i / 4096));
    expect(pages.size).toBeGreaterThanOrEqual(2); // the table's and the indexes'
    const at = fc
      .constantFrom(...pages)
      .chain((p) => fc.tuple(fc.integer({ min: p * 4096, max: p * 4096 + 4095 }), fc.integer({ min: 0, max: 7 })));
    let trial = 0;
    const outcomes = { exact: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(at, async ([offset, bit]) => {
        const damaged = Buffer.from(bytes);
        damaged[offset]! ^= 1 << bit;
        const dir = join(root, `t${trial++}`);
        mkdirSync(dir);
        writeFileSync(join(dir, 'journal.db'), damaged);
        let history: Awaited<ReturnType<Journal['history']>> | undefined;
        const journal = new Journal(join(dir, 'journal.db'));
        try {
          history = await journal.history(key);
        } catch {
          outcomes.refused++;
          return true;
        } finally {
          await journal.close();
          rmSync(dir, { recursive: true, force: true });
        }
        outcomes.exact++;
        expect(
          history.map((e) => [e.idempotency_key, e.outcome, e.status]),
          `byte ${offset} bit ${bit}`,
        ).toEqual([[key, 'resolved', 200]]);
        return true;
      }),
      { numRuns: 400 },
    );
    expect(outcomes.refused).toBeGreaterThan(0); // the damage was seen where it mattered
  });
});
