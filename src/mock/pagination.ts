// Cursor pagination: newest first, opaque cursors that name the list and a position, per_page
// 1 to 100 (default 20, clamped).
import { validation, type Reply } from './envelope.js';
import { Heap } from './heap.js';

export const DEFAULT_PER_PAGE = 20;
export const MAX_PER_PAGE = 100;

/** Position of a row: primary sort key (time ms), then insertion sequence. Larger is newer. */
export type Position = [number, number];

interface CursorBody {
  l: string;
  d: 'n' | 'p';
  k: number;
  s: number;
}

export interface PageRequest {
  perPage: number;
  cursor: CursorBody | null;
}

export function encodeCursor(list: string, dir: 'n' | 'p', pos: Position): string {
  const body: CursorBody = { l: list, d: dir, k: pos[0], s: pos[1] };
  return Buffer.from(JSON.stringify(body), 'utf8').toString('base64url');
}

function decodeCursor(list: string, raw: string): CursorBody | null {
  if (raw.length > 512 || !/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  try {
    const c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<CursorBody>;
    if (c && c.l === list && (c.d === 'n' || c.d === 'p') && Number.isSafeInteger(c.k) && Number.isSafeInteger(c.s))
      return c as CursorBody;
  } catch {
    // falls through to invalid
  }
  return null;
}

/** Reads per_page and cursor from the query; a 422 for a value that is not an integer or a foreign cursor. */
export function readPageRequest(list: string, query: URLSearchParams): PageRequest | Reply {
  const errors: Record<string, string[]> = {};
  let perPage = DEFAULT_PER_PAGE;
  const rawPer = query.get('per_page');
  if (rawPer !== null && rawPer !== '') {
    // any integer, however long: out of range is clamped (spec), so a huge one is 100 and zero or negative is 1
    const text = rawPer.trim();
    if (!/^[+-]?\d+$/.test(text)) errors.per_page = ['The per page must be an integer between 1 and 100.'];
    else perPage = text.startsWith('-') || /^\+?0*$/.test(text) ? 1 : Math.min(MAX_PER_PAGE, Number(text));
  }
  let cursor: CursorBody | null = null;
  const rawCursor = query.get('cursor');
  if (rawCursor !== null && rawCursor !== '') {
    cursor = decodeCursor(list, rawCursor);
    if (!cursor)
      errors.cursor = ['The cursor is not valid for this list: use a next_cursor or previous_cursor from this list.'];
  }
  if (Object.keys(errors).length) return validation(errors);
  return { perPage, cursor };
}

export const isReply = (v: unknown): v is Reply =>
  typeof v === 'object' && v !== null && 'status' in v && 'body' in v && typeof (v as Reply).status === 'number';

/** Whether `a` is newer than `b` (a later time, or the same time and a later sequence). */
export const newer = (a: Position, b: Position): boolean => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/**
 * The `k` best of the rows offered (`better(a, b)`: a ranks before b), kept in a heap whose top is
 * the worst kept: a list costs one pass over its rows, not a sort of them.
 */
class Best<T> {
  private readonly heap: Heap<{ row: T; pos: Position }>;

  constructor(
    private readonly k: number,
    private readonly better: (a: Position, b: Position) => boolean,
  ) {
    this.heap = new Heap((a, b) => better(b.pos, a.pos));
  }

  offer(row: T, pos: Position): void {
    if (this.heap.size < this.k) this.heap.push({ row, pos });
    else if (this.k > 0 && this.better(pos, this.heap.peek()!.pos)) this.heap.replaceTop({ row, pos });
  }

  /** What was kept, newest first. */
  newestFirst(): T[] {
    return this.heap
      .toArray()
      .sort((a, b) => (newer(a.pos, b.pos) ? -1 : 1))
      .map((e) => e.row);
  }
}

/** The page's rows (newest first) and how many rows lie on each side of the cursor: the CursorMeta follows. */
function pageOf<T>(
  list: string,
  data: T[],
  position: (row: T) => Position,
  req: PageRequest,
  inRange: number,
  beyond: number,
): { data: T[]; meta: Record<string, unknown> } {
  const backward = req.cursor?.d === 'p';
  const hasMore = backward ? beyond > 0 : inRange > req.perPage;
  const hasPrevious = backward ? inRange > req.perPage : beyond > 0;
  const first = data[0];
  const last = data[data.length - 1];
  return {
    data,
    meta: {
      per_page: req.perPage,
      has_more: hasMore,
      next_cursor: hasMore && last !== undefined ? encodeCursor(list, 'n', position(last)) : null,
      previous_cursor: hasPrevious && first !== undefined ? encodeCursor(list, 'p', position(first)) : null,
    },
  };
}

/**
 * One page of `rows` (any order in, newest first out) with the spec's CursorMeta. Forward (no
 * cursor, or a next_cursor): the newest per_page rows older than the cursor. Backward (a
 * previous_cursor): the per_page rows just newer than it.
 */
export function paginate<T>(
  list: string,
  rows: Iterable<T>,
  position: (row: T) => Position,
  req: PageRequest,
): { data: T[]; meta: Record<string, unknown> } {
  const c = req.cursor;
  const at: Position | null = c ? [c.k, c.s] : null;
  const backward = c?.d === 'p';
  const best = new Best<T>(req.perPage, backward ? (a, b) => newer(b, a) : newer);
  let inRange = 0; // rows on the page's side of the cursor
  let beyond = 0; // rows on the other side
  for (const row of rows) {
    const pos = position(row);
    if (at && (backward ? !newer(pos, at) : !newer(at, pos))) {
      beyond++;
      continue;
    }
    inRange++;
    best.offer(row, pos);
  }
  return pageOf(list, best.newestFirst(), position, req, inRange, beyond);
}

/** The first index of `ascending` (oldest first) whose row is newer than `at`, or, `orEqual`, not older. */
function firstFrom<T>(ascending: readonly T[], position: (row: T) => Position, at: Position, orEqual: boolean): number {
  let lo = 0;
  let hi = ascending.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const p = position(ascending[mid]!);
    const after = orEqual ? !newer(at, p) : newer(p, at);
    if (after) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The same page as `paginate`, from rows already in order (oldest first): a binary search and a slice. */
export function paginateSorted<T>(
  list: string,
  ascending: readonly T[],
  position: (row: T) => Position,
  req: PageRequest,
): { data: T[]; meta: Record<string, unknown> } {
  const c = req.cursor;
  const n = ascending.length;
  if (c?.d === 'p') {
    const from = firstFrom(ascending, position, [c.k, c.s], false); // rows newer than the cursor: [from, n)
    return pageOf(
      list,
      ascending.slice(from, Math.min(n, from + req.perPage)).reverse(),
      position,
      req,
      n - from,
      from,
    );
  }
  const to = c ? firstFrom(ascending, position, [c.k, c.s], true) : n; // rows older than the cursor: [0, to)
  return pageOf(list, ascending.slice(Math.max(0, to - req.perPage), to).reverse(), position, req, to, n - to);
}
