// src/output/batch.ts: what a batch prints while its rows go, as a terminal user and a pipe see it.
// On a terminal the progress line sits on stderr below the result lines: cleared before each
// result line and redrawn after it, never mixed into stdout; to a pipe the result lines are
// gathered into large writes and no progress line is drawn at all; --json lines carry no header.
import { describe, expect, it } from 'vitest';
import type { RowResult } from '../../src/client/batch.js';
import { batchOutput } from '../../src/output/batch.js';
import { memoryIo } from '../helpers/memory-io.js';

const row = (n: number, over: Partial<RowResult> = {}): RowResult => ({
  row: n,
  line: n + 1,
  idempotency_key: `batch-0123456789abcdef-${n}`,
  status: 'ok',
  http_status: 200,
  id: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  balance_minor: 100 * n,
  error: null,
  from_journal: false,
  kind: null,
  ...over,
});
const counts = (done: number) => ({ total: 2, done, ok: done, refused: 0, unknown: 0 });

function withStderr(isTTY: boolean) {
  const m = memoryIo();
  Object.assign(m.io.stderr, { isTTY });
  return m;
}

describe('batchOutput', () => {
  it('a terminal: the progress line is cleared before each result line and drawn again after it', () => {
    const m = withStderr(true);
    const out = batchOutput(m.io, { json: false, verbose: false, total: 2 });
    out.start();
    out.progress(counts(0));
    out.result(row(1));
    out.progress(counts(1));
    out.result(row(2));
    out.progress(counts(2));
    out.flush();
    out.end(['2 rows: 2 ok, 0 refused, 0 unknown.']);
    expect(m.out().split('\n')).toEqual([
      expect.stringMatching(/^ROW +STATUS +HTTP +ID +BALANCE_MINOR +DETAIL$/),
      expect.stringMatching(/^1 +ok +200 +01JD2Q7N8V3K4M5P6R7S8T9V0W +100$/),
      expect.stringMatching(/^2 +ok +200 +01JD2Q7N8V3K4M5P6R7S8T9V0W +200$/),
      '',
    ]);
    const err = m.log.filter(([s]) => s === 'err').map(([, t]) => t);
    expect(err[0]).toBe('\r\x1b[K[--------------------] 0/2  ok 0  refused 0  unknown 0');
    // each result line: the bar cleared, the line on stdout, the bar again
    const first = m.log.findIndex(([s, t]) => s === 'out' && t.startsWith('1 '));
    expect(m.log[first - 1]).toEqual(['err', '\r\x1b[K']);
    expect(m.log[first + 1]![1]).toMatch(/^\r\x1b\[K\[-+\] 0\/2/);
    expect(err.at(-2)).toBe('\r\x1b[K');
    expect(err.at(-1)).toBe('2 rows: 2 ok, 0 refused, 0 unknown.\n');
    expect(m.out()).not.toContain('\x1b'); // stdout holds only the rows
  });

  it('a pipe: no progress line; the result lines come in one write when flushed', () => {
    const m = withStderr(false);
    const out = batchOutput(m.io, { json: false, verbose: false, total: 2 });
    out.start();
    out.progress(counts(0));
    out.result(row(1));
    out.result(row(2));
    expect(m.log.filter(([s]) => s === 'out')).toHaveLength(1); // the header; the rows wait for the flush
    out.flush();
    expect(m.log.filter(([s]) => s === 'out')).toHaveLength(2);
    expect(m.err()).toBe('');
  });

  it('--json: one JSON object per row, no header; a note between rows is escaped', () => {
    const m = withStderr(false);
    const out = batchOutput(m.io, { json: true, verbose: false, total: 2 });
    out.start();
    out.result(row(1, { status: 'error', error: { message: 'x\u001b[2J', code: null, hint: null } }));
    out.note('the API said x\u001b[2J');
    out.flush();
    const [line] = m.out().trimEnd().split('\n');
    expect(JSON.parse(line!)).toMatchObject({ row: 1, status: 'error', error: { message: 'x\u001b[2J' } });
    expect(m.err()).toBe('the API said x\\x1b[2J\n');
  });
});
