// The mock's lists take one pass over their rows (the per_page best kept in a small heap) instead of
// sorting them all. This holds that pass to the plain definition: sort everything newest first,
// then cut the page at the cursor, for any rows, page size and cursor, walking forward and back.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeCursor, paginate, paginateSorted, readPageRequest, type Position } from '../../src/mock/pagination.js';

interface Row {
  at: number;
  seq: number;
}
const position = (r: Row): Position => [r.at, r.seq];
const newer = (a: Position, b: Position) => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/** The definition: sort all, then slice at the cursor. */
function reference(rows: Row[], perPage: number, cursor: { d: 'n' | 'p'; at: Position } | null) {
  const sorted = [...rows].sort((a, b) => (newer(position(a), position(b)) ? -1 : 1));
  let start = 0;
  let end = Math.min(sorted.length, perPage);
  if (cursor?.d === 'n') {
    start = sorted.findIndex((r) => newer(cursor.at, position(r)));
    if (start < 0) start = sorted.length;
    end = Math.min(sorted.length, start + perPage);
  } else if (cursor?.d === 'p') {
    end = sorted.findIndex((r) => !newer(position(r), cursor.at));
    if (end < 0) end = sorted.length;
    start = Math.max(0, end - perPage);
  }
  return { data: sorted.slice(start, end), hasMore: end < sorted.length, hasPrevious: start > 0 };
}

const request = (perPage: number, cursor: string | null) => {
  const req = readPageRequest(
    'rows',
    new URLSearchParams({ per_page: String(perPage), ...(cursor ? { cursor } : {}) }),
  );
  if ('status' in req) throw new Error('the request was refused');
  return req;
};
const page = (rows: Row[], perPage: number, cursor: string | null) =>
  paginate('rows', rows, position, request(perPage, cursor));
/** The same page from an index kept oldest first (the customers list): binary search and slice. */
const sortedPage = (rows: Row[], perPage: number, cursor: string | null) =>
  paginateSorted(
    'rows',
    [...rows].sort((a, b) => (newer(position(a), position(b)) ? 1 : -1)),
    position,
    request(perPage, cursor),
  );

// rows with unique seqs (as the mock's are) and times that collide often (same millisecond)
const rowsArb = fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 120 }).chain((times) =>
  fc.shuffledSubarray(
    times.map((at, seq) => ({ at, seq })),
    { minLength: times.length, maxLength: times.length },
  ),
);

describe('pagination', () => {
  it('one page at any cursor is the page the definition gives', () => {
    fc.assert(
      fc.property(
        rowsArb,
        fc.integer({ min: 1, max: 30 }),
        fc.option(
          fc.record({
            d: fc.constantFrom('n' as const, 'p' as const),
            at: fc.tuple(fc.integer({ min: -1, max: 41 }), fc.integer({ min: -1, max: 125 })),
          }),
        ),
        (rows, perPage, cursor) => {
          const raw = cursor ? encodeCursor('rows', cursor.d, cursor.at) : null;
          const want = reference(rows, perPage, cursor);
          for (const got of [page(rows, perPage, raw), sortedPage(rows, perPage, raw)]) {
            expect(got.data).toEqual(want.data);
            expect(got.meta.has_more).toBe(want.hasMore);
            expect(got.meta.previous_cursor !== null).toBe(want.hasPrevious && want.data.length > 0);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('following next_cursor visits every row once, newest first; previous_cursor walks back the same pages', () => {
    fc.assert(
      fc.property(rowsArb, fc.integer({ min: 1, max: 30 }), (rows, perPage) => {
        const pages: Row[][] = [];
        let cursor: string | null = null;
        for (;;) {
          const p = page(rows, perPage, cursor);
          pages.push(p.data);
          cursor = p.meta.next_cursor as string | null;
          if (!cursor) break;
        }
        expect(pages.flat()).toEqual(reference(rows, rows.length + 1, null).data);
        // back from the last page
        let back = page(rows, perPage, (page(rows, perPage, null).meta.next_cursor as string | null) ?? null);
        if (pages.length > 1) {
          const prev = back.meta.previous_cursor as string;
          back = page(rows, perPage, prev);
          expect(back.data).toEqual(pages[0]);
        }
      }),
      { numRuns: 300 },
    );
  });
});
