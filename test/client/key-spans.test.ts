// A `--batch` rerun's pass groups a key bucket's lines by key from their text and parses a key's
// records only when it is that key's turn (src/client/journal-store/key-spans.ts). It must find
// exactly what the ordinary reading (JournalStore.bucketLinesFor, every wanted line parsed) finds,
// or say it cannot (`inexact`: the reader then reads the bucket the ordinary way), or both must
// say the bucket is damaged. Random buckets written as the journal writes them, on disk.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fewKeysRecords, recordsAt, wantedSpans } from '../../src/client/journal-store/key-spans.js';
import { keyBucketFile } from '../../src/client/journal-store/layout.js';
import { encodeLine } from '../../src/client/journal-store/lines.js';
import { JournalStore } from '../../src/client/journal-store/store.js';
import { recordsByKey } from '../../src/client/journal.js';

const root = mkdtempSync(join(tmpdir(), 'cardctl-key-spans-'));
mkdirSync(join(root, 'keys'), { recursive: true });
afterAll(() => rmSync(root, { recursive: true, force: true }));

const BUCKET = 'abc';
const time = '2026-11-24T10:00:00.000Z';
const op = (id: string, key: string) => ({
  type: 'op',
  id,
  time,
  profile: null,
  source: 'env',
  mode: 'test',
  base_url: 'http://127.0.0.1:9/api/v1',
  key_id: 'K',
  method: 'POST',
  path: '/api/v1/cards/C/recharge',
  query: '',
  idempotency_key: key,
  body_b64: 'e30=',
  body_sha256: 'a'.repeat(64),
});
const outcome = (id: string) => ({
  type: 'outcome',
  id,
  time,
  status: 200,
  outcome: 'resolved',
  code: null,
  resource_id: 'C',
  balance_minor: 7,
});
const resolution = (id: string, note: string) => ({ type: 'resolution', id, time, outcome: 'succeeded', note });
// a compact record holds a nested object whose text may look like a field of the record
const compact = (id: string, key: string, note: string) => ({
  type: 'compact',
  id,
  time,
  mode: 'test',
  base_url: 'http://127.0.0.1:9/api/v1',
  method: 'POST',
  path: '/p',
  idempotency_key: key,
  body_sha256: 'b'.repeat(64),
  outcome: 'resolved',
  status: 200,
  code: null,
  resource_id: null,
  resolution: { outcome: 'failed', note, time },
  compacted_at: time,
});

/** What the pass finds in a bucket: the wanted keys' records in order, or why it cannot say. */
function lazyReading(bytes: Buffer, wanted: (k: string) => boolean): Map<string, unknown[]> | 'damaged' | 'inexact' {
  const spans = wantedSpans(bytes, wanted);
  if (typeof spans === 'string') return spans;
  const out = new Map<string, unknown[]>();
  for (const [key, at] of spans) {
    const records = recordsAt(bytes, at, key);
    if (typeof records === 'string') return records;
    out.set(key, records);
  }
  return out;
}

const plainKeys = ['p-1', 'p-2', 'p-3', 'other-1', 'p-10'];
const oddKeys = ['p-"4', 'p-\\5', 'p-é6', 'p-\n7', ...plainKeys];
const ids = ['op_a1', 'op_b2', 'op_c3', 'op_"d', 'op_e5'];
const notes = ['plain', '"id":"op_a1"', '"idempotency_key":"p-1"', 'x\\"y'];

const recordArb = (keys: string[], idList: string[]) =>
  fc.oneof(
    fc.record({ id: fc.constantFrom(...idList), key: fc.constantFrom(...keys) }).map(({ id, key }) => op(id, key)),
    fc.constantFrom(...idList).map(outcome),
    fc
      .record({ id: fc.constantFrom(...idList), note: fc.constantFrom(...notes) })
      .map(({ id, note }) => resolution(id, note)),
    fc
      .record({ id: fc.constantFrom(...idList), key: fc.constantFrom(...keys), note: fc.constantFrom(...notes) })
      .map(({ id, key, note }) => compact(id, key, note)),
  );

function writeBucket(records: object[], damageAt?: number): Buffer {
  const bytes = Buffer.from(records.map(encodeLine).join(''));
  if (damageAt !== undefined && bytes.length > 0) {
    let at = damageAt % bytes.length;
    if (bytes[at] === 0x0a) at = at === 0 ? 1 : at - 1; // a line's byte: lines are never empty
    bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30;
  }
  writeFileSync(keyBucketFile(root, BUCKET), bytes);
  return bytes;
}

const wanted = (k: string): boolean => k.startsWith('p-');

describe('the pass reading a key bucket key by key', () => {
  it('finds what the ordinary reading finds, says inexact, or agrees the bucket is damaged (random buckets, escapes, nested fields, a damaged byte)', () => {
    const store = new JournalStore(root);
    fc.assert(
      fc.property(
        fc.array(recordArb(oddKeys, ids), { maxLength: 30 }),
        fc.option(fc.nat(), { nil: undefined }),
        (records, damageAt) => {
          const bytes = writeBucket(records, damageAt);
          const ordinary = store.bucketLinesFor(BUCKET, wanted);
          const lazy = lazyReading(bytes, wanted);
          if (lazy === 'inexact') return;
          if (lazy === 'damaged') expect(ordinary).toBeUndefined();
          else expect([...lazy.entries()]).toEqual([...ordinary!.entries()]);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a few keys (ops list --unresolved): finds what historyMany finds (each record follows its op id wherever it lies), or reads the bucket whole, which then sees any damage', () => {
    const store = new JournalStore(root);
    fc.assert(
      fc.property(
        fc.array(recordArb(oddKeys, ids), { maxLength: 30 }),
        fc.subarray(oddKeys, { minLength: 1 }),
        fc.option(fc.nat(), { nil: undefined }),
        (records, keys, damageAt) => {
          const bytes = writeBucket(records, damageAt);
          const { records: all, damaged } = store.bucketByName(BUCKET);
          const few = fewKeysRecords(bytes, new Set(keys));
          if (few === undefined) return;
          // a damaged byte is always seen (then the bucket is read whole); a record of the wrong shape
          // (here an id that is not op_...) is seen only when it is one of the listed operations' lines
          expect(damaged.filter((d) => d.why === 'checksum mismatch')).toEqual([]);
          expect(few).toEqual(recordsByKey(all as never, new Set(keys)));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('a few keys: a bucket written by cardctl (ops first, ids unique, no escapes) is read the fast way; a damaged byte is always seen', () => {
    const plainIds = ids.filter((id) => !id.includes('"'));
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.record({ id: fc.constantFrom(...plainIds), key: fc.constantFrom(...plainKeys) }), {
          selector: (r) => r.id,
        }),
        fc.array(fc.nat(), { maxLength: 20 }),
        fc.subarray(plainKeys, { minLength: 1 }),
        fc.nat(),
        (ops, later, keys, damageAt) => {
          const records: object[] = ops.map(({ id, key }) => op(id, key));
          for (const n of later) if (ops.length) records.push(outcome(ops[n % ops.length]!.id));
          expect(fewKeysRecords(writeBucket(records), new Set(keys))).toBeDefined();
          if (records.length) expect(fewKeysRecords(writeBucket(records, damageAt), new Set(keys))).toBeUndefined();
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never gives up on a bucket whose keys and ids hold no escape (the fast path is the one taken)', () => {
    const store = new JournalStore(root);
    const plainIds = ids.filter((id) => !id.includes('"'));
    fc.assert(
      fc.property(fc.array(recordArb(plainKeys, plainIds), { maxLength: 30 }), (records) => {
        const bytes = writeBucket(records);
        const lazy = lazyReading(bytes, wanted);
        expect(lazy).not.toBe('inexact');
        expect(lazy).not.toBe('damaged');
        expect([...(lazy as Map<string, unknown[]>).entries()]).toEqual([
          ...store.bucketLinesFor(BUCKET, wanted)!.entries(),
        ]);
      }),
      { numRuns: 1000 },
    );
  });
});
