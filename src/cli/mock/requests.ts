// `cardctl mock requests`: the newest N records of the mock's request log, oldest first (a log
// tail); with --follow, then every new one as it is answered, until Ctrl-C. Returned as the
// command's result: a list (src/output/list.ts), or with --follow a stream of items printed as
// they come (src/output/stream.ts), as `webhooks listen` does.
import { requestLine } from './request-lines.js';
import type { Result } from '../../output/render.js';
import type { StreamItem, StreamResult } from '../../output/stream.js';

export interface RequestsFlags {
  failed: boolean;
  limit: number;
  follow: boolean;
  status?: string;
  path?: string;
  key?: string;
}

/** A control call: the answer's data and meta. */
type Call = (method: string, path: string) => Promise<{ data: unknown; meta: Record<string, unknown> }>;
export type RequestsFormat = 'text' | 'json' | 'ndjson';

/** Polling period of --follow: short enough to feel live, long enough to cost the mock nothing. */
const FOLLOW_POLL_MS = 250;

function queryOf(flags: RequestsFlags, extra: Record<string, string>): string {
  const q = new URLSearchParams();
  if (flags.failed) q.set('failed', 'true');
  if (flags.status) q.set('status', flags.status);
  if (flags.path) q.set('path', flags.path);
  if (flags.key) q.set('key', flags.key);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return `/requests?${q}`;
}

/** What the mock's log dropped before a follower could read it (`meta.dropped` of an `after` read). */
export interface Dropped {
  count: number;
  first: string;
  last: string;
  /** how many requests the log keeps (`--request-log`) */
  capacity: number | null;
}

function droppedOf(meta: Record<string, unknown>): Dropped | undefined {
  const d = meta.dropped as { count?: unknown; first?: unknown; last?: unknown } | null | undefined;
  if (!d || typeof d.count !== 'number' || d.count <= 0 || typeof d.first !== 'string' || typeof d.last !== 'string')
    return undefined;
  return {
    count: d.count,
    first: d.first,
    last: d.last,
    capacity: typeof meta.capacity === 'number' ? meta.capacity : null,
  };
}

/** The stderr line of a gap, for people. */
export function gapLine(d: Dropped, flags: RequestsFlags): string {
  const which = d.count === 1 ? `1 request (${d.first})` : `${d.count} requests (${d.first} to ${d.last})`;
  const keeps = d.capacity === null ? '' : ` (it keeps the last ${d.capacity})`;
  const filtered =
    flags.failed || flags.status || flags.path || flags.key ? ', some of which may not have matched your filters' : '';
  return `cardctl: ${which} left the mock's request log${keeps} before they could be read: not shown${filtered}. To keep up, start the mock with a larger --request-log.`;
}

const seq = (record: unknown): number =>
  Number(String((record as { id?: unknown }).id ?? '').replace(/^req_/, '')) || 0;

/**
 * The command's result (src/output/list.ts): the newest N records, oldest first, as a list; with
 * --follow a stream of lines, those records and then every new one as it is answered (a gap the
 * log dropped: a note on stderr), until SIGINT or SIGTERM.
 */
export async function showRequests(
  flags: RequestsFlags,
  call: Call,
  format: RequestsFormat,
): Promise<Result | StreamResult> {
  const { listResult } = await import('../../output/render.js');
  const page = await call('GET', queryOf(flags, { limit: String(flags.limit) }));
  const shown = [...(page.data as unknown[])].reverse();
  if (!flags.follow)
    return listResult({
      kind: 'list',
      // the list shape of every list (docs/output.md); the mock's meta as it sent it
      pages: [{ data: shown, meta: page.meta }],
      format: format === 'text' ? 'table' : format,
      table: (rows) => (rows.length === 0 ? '(no requests yet)\n' : rows.map((r) => requestLine(r) + '\n').join('')),
    });
  const { streamResult } = await import('../../output/stream.js');
  // --json --follow: one JSON record per line too (a document never ends), as --ndjson
  const items: Items = {
    record: (r) => ({ json: r, text: `${format === 'text' ? requestLine(r) : JSON.stringify(r)}\n` }),
    // a gap: a note on stderr, the line for people, `{gap}` with --ndjson and --json
    gap: (dropped) => ({
      text: null,
      notes: [format === 'text' ? gapLine(dropped, flags) : JSON.stringify({ gap: dropped })],
    }),
  };
  return streamResult(followed(flags, call, shown, items));
}

/** How a record and a gap show in the stream. */
interface Items {
  record: (record: unknown) => StreamItem;
  gap: (dropped: Dropped) => StreamItem;
}

/** The records shown first, then every newer one as it is answered, and the gaps between. */
async function* followed(flags: RequestsFlags, call: Call, shown: unknown[], items: Items): AsyncGenerator<StreamItem> {
  for (const record of shown) yield items.record(record);
  yield* follow(flags, call, shown.length ? seq(shown.at(-1)) : 0, items);
}

const pendingOf = (meta: Record<string, unknown>): string[] =>
  Array.isArray(meta.pending) ? meta.pending.filter((id): id is string => typeof id === 'string') : [];

/**
 * One request the follower read past while it was being answered: yielded once answered (if it
 * matches the filters), a gap of one if the log dropped it first. Returns true once settled.
 */
async function* recheck(
  flags: RequestsFlags,
  call: Call,
  w: number,
  items: Items,
): AsyncGenerator<StreamItem, boolean> {
  const answer = await call('GET', queryOf(flags, { after: String(w - 1), limit: '1', order: 'oldest' }));
  if (pendingOf(answer.meta).includes(`req_${w}`)) return false;
  const dropped = droppedOf(answer.meta);
  if (dropped && seq({ id: dropped.first }) === w) yield items.gap({ ...dropped, count: 1, last: dropped.first });
  else {
    const [record] = answer.data as unknown[];
    if (record !== undefined && seq(record) === w) yield items.record(record);
  }
  return true;
}

/** Every newer record, until SIGINT or SIGTERM; then it ends (exit 0). */
async function* follow(flags: RequestsFlags, call: Call, after: number, items: Items): AsyncGenerator<StreamItem> {
  let stopped = false;
  let wake = (): void => {};
  const stop = (): void => {
    stopped = true;
    wake();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  try {
    let last = after;
    /** ids read past while they were still being answered */
    const waiting = new Set<number>();
    if (last === 0) {
      // nothing matched yet: start after the newest request of any kind
      const any = (await call('GET', '/requests?limit=1')).data as unknown[];
      last = any.length ? seq(any[0]) : 0;
    }
    while (!stopped) {
      const answer = await call('GET', queryOf(flags, { after: String(last), limit: '1000', order: 'oldest' }));
      const fresh = answer.data as unknown[];
      // the log made room for newer requests before these were read: said on stderr, never skipped silently
      const dropped = droppedOf(answer.meta);
      if (dropped) {
        yield items.gap(dropped);
        last = Math.max(last, seq({ id: dropped.last }));
      }
      for (const record of fresh) {
        yield items.record(record);
        last = Math.max(last, seq(record));
      }
      // requests finish out of order: one still being answered that this read went past is asked for again
      for (const id of pendingOf(answer.meta)) if (seq({ id }) < last) waiting.add(seq({ id }));
      for (const w of [...waiting]) if (yield* recheck(flags, call, w, items)) waiting.delete(w);
      if (fresh.length === 1000) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FOLLOW_POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}
