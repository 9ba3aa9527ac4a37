// A rerun's slot holds the money rules' report exactly, or says "ask the journal": never another
// answer (src/client/batch/rerun-slots.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SLOT_BYTES, decodeSlot, encodeSlot, slotRow } from '../../src/client/batch/rerun-slots.js';
import { RESEND_LIMIT_MS, type JournalReport } from '../../src/client/money-rules.js';

const hex = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: n, maxLength: n });
const printable = (max: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: max });

const report = fc.record({
  outcome: fc.constantFrom('succeeded', 'failed', 'unknown') as fc.Arbitrary<JournalReport['outcome']>,
  id: fc.option(printable(32), { nil: null }),
  balance: fc.option(fc.maxSafeInteger(), { nil: undefined }),
  status: fc.option(fc.integer({ min: 0, max: 0xfffe }), { nil: null }),
  code: fc.option(printable(28), { nil: null }),
  journal_id: printable(21),
  first: fc.integer({ min: 0, max: 4_000_000_000_000 }),
  why: fc.constantFrom('resolved', 'key_forgotten') as fc.Arbitrary<JournalReport['why']>,
  recorded_by: fc.constantFrom('api', 'ops resolve') as fc.Arbitrary<JournalReport['recorded_by']>,
});

function build(r: typeof report extends fc.Arbitrary<infer T> ? T : never, key: string): JournalReport {
  const base = { from_journal: true as const, outcome: r.outcome, id: r.id };
  const rest = {
    status: r.status,
    code: r.code,
    idempotency_key: key,
    journal_id: r.journal_id,
    first_sent_at: new Date(r.first).toISOString(),
    why: r.why,
    recorded_by: r.recorded_by,
    note: null,
  };
  return r.outcome === 'succeeded' && r.balance !== undefined
    ? { ...base, balance_minor: r.balance, ...rest }
    : { ...base, ...rest };
}

describe('rerun slots', () => {
  it('hold a report byte for byte (its JSON, key order included) and the body it is valid for', () => {
    fc.assert(
      fc.property(report, hex(64), fc.integer({ min: 1, max: 10_000_000 }), (r, sha, row) => {
        const key = `batch-0123456789abcdef-${row}`;
        const rep = build(r, key);
        const buf = Buffer.alloc(SLOT_BYTES * 3, 0xee);
        encodeSlot(buf, SLOT_BYTES, { report: rep, bodySha256: sha }, row);
        expect(slotRow(buf, SLOT_BYTES)).toBe(row);
        const now = r.first + 1000; // within 23 h of the first send: `why` as stored
        const slot = decodeSlot(buf, SLOT_BYTES, key, now);
        expect(slot.kind).toBe('answer');
        if (slot.kind !== 'answer') return;
        expect(JSON.stringify(slot.report)).toBe(JSON.stringify(rep));
        expect(sha.startsWith(slot.bodySha256Prefix)).toBe(true);
        expect(slot.bodySha256Prefix.length).toBeGreaterThanOrEqual(32);
        expect(buf.subarray(0, SLOT_BYTES).every((b) => b === 0xee)).toBe(true); // its neighbours untouched
        expect(buf.subarray(2 * SLOT_BYTES).every((b) => b === 0xee)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('a row resolved while its key was remembered reads as key_forgotten once 23 h have passed since its first send', () => {
    const first = Date.parse('2026-11-20T10:00:00.000Z');
    const rep = build(
      {
        outcome: 'succeeded',
        id: null,
        balance: 5,
        status: 200,
        code: null,
        journal_id: 'op_0123456789ab',
        first,
        why: 'resolved',
        recorded_by: 'api',
      },
      'k-1',
    );
    const buf = Buffer.alloc(SLOT_BYTES);
    encodeSlot(buf, 0, { report: rep, bodySha256: 'a'.repeat(64) }, 1);
    const at = (ms: number) => (decodeSlot(buf, 0, 'k-1', ms) as { report: JournalReport }).report.why;
    expect(at(first + RESEND_LIMIT_MS)).toBe('resolved');
    expect(at(first + RESEND_LIMIT_MS + 1)).toBe('key_forgotten');
  });

  it('what a slot cannot hold exactly is "ask the journal", never a shortened answer', () => {
    const ok = build(
      {
        outcome: 'failed',
        id: 'C'.repeat(26),
        balance: undefined,
        status: 409,
        code: 'invalid_state',
        journal_id: 'op_0123456789ab',
        first: 0,
        why: 'resolved',
        recorded_by: 'api',
      },
      'k-2',
    );
    const cases: Array<[string, JournalReport]> = [
      ['a note from ops resolve', { ...ok, recorded_by: 'ops resolve', note: 'called the bank' }],
      ['an id longer than 32', { ...ok, id: 'C'.repeat(33) }],
      ['a code with a non-ASCII character', { ...ok, code: 'invalid_stätte' }],
      ['a journal id longer than the slot', { ...ok, journal_id: 'op_' + 'f'.repeat(19) }],
      ['a code longer than 28', { ...ok, code: 'c'.repeat(29) }],
      ['a status past 65534', { ...ok, status: 70000 }],
      ['a time that is not an ISO instant', { ...ok, first_sent_at: '2026-11-20 10:00' }],
    ];
    for (const [what, rep] of cases) {
      const buf = Buffer.alloc(SLOT_BYTES);
      encodeSlot(buf, 0, { report: rep, bodySha256: 'b'.repeat(64) }, 2);
      expect(decodeSlot(buf, 0, 'k-2', 0).kind, what).toBe('ask');
    }
    const bad = Buffer.alloc(SLOT_BYTES);
    encodeSlot(bad, 0, { report: ok, bodySha256: 'not a hash' }, 2);
    expect(decodeSlot(bad, 0, 'k-2', 0).kind).toBe('ask');
    const none = Buffer.alloc(SLOT_BYTES, 0xff);
    encodeSlot(none, 0, 'none', 2);
    expect(decodeSlot(none, 0, 'k-2', 0).kind).toBe('none');
  });
});
