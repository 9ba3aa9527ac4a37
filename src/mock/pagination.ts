// Cursor pagination: newest first, opaque cursors that name the list and a position, per_page
// 1 to 100 (default 20, clamped).
import { validation, type Reply } from './envelope.js';

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
    if (c && c.l === list && (c.d === 'n' || c.d === 'p') && Number.isSafeInteger(c.k) && Number.isSafeInteger(c.s)) return c as CursorBody;
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
    if (!cursor) errors.cursor = ['The cursor is not valid for this list: use a next_cursor or previous_cursor from this list.'];
  }
  if (Object.keys(errors).length) return validation(errors);
  return { perPage, cursor };
}

export const isReply = (v: unknown): v is Reply =>
  typeof v === 'object' && v !== null && 'status' in v && 'body' in v && typeof (v as Reply).status === 'number';

const newer = (a: Position, b: Position): boolean => a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);

/** One page of `rows` (any order in, newest first out) with the spec's CursorMeta. */
export function paginate<T>(list: string, rows: T[], position: (row: T) => Position, req: PageRequest): { data: T[]; meta: Record<string, unknown> } {
  const sorted = [...rows].sort((a, b) => {
    const pa = position(a);
    const pb = position(b);
    return newer(pa, pb) ? -1 : newer(pb, pa) ? 1 : 0;
  });
  let start = 0;
  let end = sorted.length;
  const c = req.cursor;
  if (c) {
    const at: Position = [c.k, c.s];
    if (c.d === 'n') {
      start = sorted.findIndex((r) => newer(at, position(r)));
      if (start < 0) start = sorted.length;
      end = Math.min(sorted.length, start + req.perPage);
    } else {
      // rows newer than the cursor: take the per_page closest to it
      let firstOlder = sorted.findIndex((r) => !newer(position(r), at));
      if (firstOlder < 0) firstOlder = sorted.length;
      end = firstOlder;
      start = Math.max(0, end - req.perPage);
    }
  } else {
    end = Math.min(sorted.length, req.perPage);
  }
  const data = sorted.slice(start, end);
  const hasMore = end < sorted.length;
  const first = data[0];
  const last = data[data.length - 1];
  return {
    data,
    meta: {
      per_page: req.perPage,
      has_more: hasMore,
      next_cursor: hasMore && last !== undefined ? encodeCursor(list, 'n', position(last)) : null,
      previous_cursor: start > 0 && first !== undefined ? encodeCursor(list, 'p', position(first)) : null,
    },
  };
}

