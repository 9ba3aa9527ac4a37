// The live request log: server-sent events. The page is told how many records the log added
// and the newest id, at most four times a second; it reads the list itself (the control plane's
// `GET /requests`, with its filters). So a busy mock pays a counter per request and one small
// write per watcher per batch, never a view of each record. A watcher that stops reading is sent
// nothing more until its buffer drained (it is told it lagged).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requestId, type RequestLog } from '../mock/request-log.js';
import { SECURITY_HEADERS } from './guard.js';

const BATCH_MS = 250;
const HEARTBEAT_MS = 20_000;
/** past this much unsent, a watcher is not read by its page: it gets a `lagged` event instead */
const MAX_BUFFERED = 1024 * 1024;

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
  let count = 0;
  let newest = 0;
  let lagged = 0;
  let timer: NodeJS.Timeout | null = null;
  const flush = (): void => {
    timer = null;
    if (res.destroyed) return;
    if (res.writableLength > MAX_BUFFERED) {
      lagged += count;
      count = 0;
      return;
    }
    if (lagged) res.write(`event: lagged\ndata: ${JSON.stringify({ count: lagged })}\n\n`);
    lagged = 0;
    if (count) res.write(`event: requests\ndata: ${JSON.stringify({ count, newest: requestId(newest) })}\n\n`);
    count = 0;
  };
  const stop = log.onAdded((seq) => {
    count++;
    if (seq > newest) newest = seq;
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
