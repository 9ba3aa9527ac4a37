// The request log through the control plane: `GET /_mock/requests` (newest first; filters:
// status (a class like 4xx, or a code like 401; several comma-separated), failed, code, path
// (a prefix), key, plane, since (ISO time or Unix seconds), after (a request id: only newer
// ones, for a reader that follows, with order=oldest); `limit` and `cursor`), and
// `GET /_mock/requests/{id}`.
import { fail, page, ok, validation, type ErrorMap, type Reply } from '../envelope.js';
import { recordView, requestId, seqOf, type RequestFilter } from '../request-log.js';
import type { ControlRequest } from './request.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

const logOff = (): Reply =>
  fail(404, 'The request log is off.', {
    request_log: [
      'This mock was started with --request-log 0 (or requestLog: 0): start it without, or with a size, to keep a log.',
    ],
  });

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?)?$/i;

/**
 * Unix seconds, or an ISO 8601 time that exists: Date.parse alone took `Nov 26` as 2001 and
 * `2026-02-30` as March 2, answering requests the reader did not ask for.
 */
function since(value: string): number | undefined {
  if (/^\d{1,12}$/.test(value)) return Number(value) * 1000;
  const m = ISO_TIME.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m
    .slice(1, 7)
    .map((x) => (x === undefined ? undefined : Number(x))) as number[];
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth || hour > 23 || minute > 59 || second > 59)
    return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

const PARAMETERS = ['status', 'failed', 'code', 'path', 'key', 'plane', 'since', 'cursor', 'after', 'limit', 'order'];

/** The filter of a query, or the messages of what is wrong with it (an unknown parameter too: a typo must not widen the answer). */
export function readFilter(
  query: URLSearchParams,
): { filter: RequestFilter; limit: number; oldestFirst: boolean } | { errors: ErrorMap } {
  const errors: ErrorMap = {};
  for (const name of new Set(query.keys())) {
    if (!PARAMETERS.includes(name))
      (errors[name] ??= []).push(
        `There is no parameter ${JSON.stringify(name)}: the parameters are ${PARAMETERS.join(', ')}.`,
      );
  }
  const filter: RequestFilter = {};
  const status = query.get('status');
  if (status) {
    for (const item of status.split(',').map((s) => s.trim().toLowerCase())) {
      if (/^[1-5]xx$/.test(item)) (filter.statusClasses ??= []).push(Number(item[0]));
      else if (/^[1-5]\d\d$/.test(item)) (filter.statuses ??= []).push(Number(item));
      else
        (errors.status ??= []).push(`The status ${JSON.stringify(item)} is not a class like 4xx or a code like 401.`);
    }
  }
  const failed = query.get('failed');
  if (failed !== null && failed !== '') {
    if (!['true', 'false', '1', '0'].includes(failed)) errors.failed = ['The failed filter is true or false.'];
    filter.failed = failed === 'true' || failed === '1';
  }
  filter.code = query.get('code') || undefined;
  filter.pathPrefix = query.get('path') || undefined;
  filter.keyId = query.get('key') || undefined;
  const plane = query.get('plane');
  if (plane) {
    if (plane !== 'api' && plane !== 'control') errors.plane = ['The plane is api or control.'];
    else filter.plane = plane;
  }
  const sinceText = query.get('since');
  if (sinceText) {
    filter.since = since(sinceText);
    if (filter.since === undefined)
      errors.since = ['The since filter is an ISO 8601 time (2026-11-26T01:00:00Z) or Unix seconds.'];
  }
  for (const [name, field] of [
    ['cursor', 'beforeSeq'],
    ['after', 'afterSeq'],
  ] as const) {
    const v = query.get(name);
    if (!v) continue;
    const seq = /^\d{1,15}$/.test(v) ? Number(v) : seqOf(v);
    if (seq === null) errors[name] = [`The ${name} is a request id (req_42) or the next_cursor of a page.`];
    else filter[field] = seq;
  }
  const limitText = query.get('limit');
  let limit = DEFAULT_LIMIT;
  if (limitText) {
    limit = /^\d{1,7}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) errors.limit = [`The limit is a whole number from 1 to ${MAX_LIMIT}.`];
  }
  const order = query.get('order');
  if (order && order !== 'newest' && order !== 'oldest')
    errors.order = ['The order is newest (the default) or oldest.'];
  return Object.keys(errors).length ? { errors } : { filter, limit, oldestFirst: order === 'oldest' };
}

export function listRequests({ rt, query }: ControlRequest): Reply {
  const log = rt.requestLog;
  if (!log) return logOff();
  const read = readFilter(query);
  if ('errors' in read) return validation(read.errors);
  const { records, nextCursor } = log.list(read.filter, read.limit, read.oldestFirst);
  // a reader following with `after` learns what the log dropped before it could read it (never a silent gap)
  // and which newer requests are still being answered (they finish out of order: a follower asks for those again)
  const after = read.filter.afterSeq;
  const dropped = after === undefined ? {} : { dropped: log.droppedAfter(after), pending: log.pendingAfter(after) };
  return page(records, { next_cursor: nextCursor, has_more: nextCursor !== null, capacity: log.capacity, ...dropped });
}

export function showRequest({ rt, params }: ControlRequest): Reply {
  const log = rt.requestLog;
  if (!log) return logOff();
  const seq = seqOf(params[0]!);
  const rec = seq === null ? undefined : log.get(seq);
  if (!rec) {
    return fail(404, 'Request not found.', {
      request: [
        `No request ${params[0]} in the log: ids look like ${requestId(1)}; the log keeps the last ${log.capacity} requests (\`cardctl mock requests\` lists them).`,
      ],
    });
  }
  return ok(recordView(rec));
}
