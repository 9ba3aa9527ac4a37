// The live request log: server-sent events. Each record the log adds is summed up in a line of
// the list (the page reads the whole record when it is opened) and sent in batches, at most four
// a second, so a busy mock pays one small write per watcher per batch, not one per request. A
// watcher that stops reading is sent nothing more until its buffer drained (it is told it lagged).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestLog } from '../mock/request-log.js';
import { SECURITY_HEADERS } from './guard.js';

const BATCH_MS = 250;
const HEARTBEAT_MS = 20_000;
/** past this much unsent, a watcher is not read by its page: it gets a `lagged` event instead */
const MAX_BUFFERED = 1024 * 1024;

/** The fields of a record the list shows. */
export function summary(v: Record<string, unknown>): Record<string, unknown> {
  const d = v.diagnosis as { id?: unknown } | null;
  return {
    id: v.id,
    plane: v.plane,
    received_at: v.received_at,
    method: v.method,
    path: v.path,
    query: v.query,
    status: v.status,
    outcome: v.outcome,
    codes: v.codes,
    key_id: v.key_id,
    duration_ms: v.duration_ms,
    diagnosis: d && typeof d.id === 'string' ? d.id : null,
  };
}

export function serveLive(log: RequestLog | null, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'Content-Type': 'text/event-stream; charset=utf-8',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
  });
  if (!log) {
    res.end('event: off\ndata: {}\n\n');
    return;
  }
  res.write(': live\n\n');
  let batch: Array<Record<string, unknown>> = [];
  let lagged = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    timer = null;
    if (res.destroyed) return;
    if (res.writableLength > MAX_BUFFERED) {
      lagged += batch.length;
      batch = [];
      return;
    }
    if (lagged) res.write(`event: lagged\ndata: ${JSON.stringify({ count: lagged })}\n\n`);
    lagged = 0;
    if (batch.length) res.write(`event: requests\ndata: ${JSON.stringify(batch)}\n\n`);
    batch = [];
  };
  const stop = log.onRecord((view) => {
    batch.push(summary(view));
    timer ??= setTimeout(flush, BATCH_MS);
  });
  const heartbeat = setInterval(() => res.write(': ping\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  const end = (): void => {
    stop();
    clearInterval(heartbeat);
    if (timer) clearTimeout(timer);
  };
  req.on('close', end);
  res.on('close', end);
}
