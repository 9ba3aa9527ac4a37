// One delivery as the service makes it: a plain POST of the raw bytes, no agent (a fresh
// connection each time, like the mock's deliveries), no redirect followed, one total timeout.
// Never throws: the answer is a status or an error text.
import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { connectionErrorWords } from '../../errno-words.js';

export interface PostResult {
  /** the receiver's status, when it answered */
  status: number | null;
  /** why there is no status: refused, reset, timeout, ... */
  error: string | null;
  ms: number;
}

/** A failed delivery in words: this file's own timeout, the rest as the mock's deliveries say them (src/errno-words.ts). */
function describe(err: NodeJS.ErrnoException, timeoutS: number): string {
  return err.code === 'ETIMEOUT_TOTAL' ? `no answer within ${timeoutS} s` : connectionErrorWords(err);
}

export function postDelivery(
  url: URL,
  body: Buffer,
  headers: Record<string, string>,
  timeoutS: number,
): Promise<PostResult> {
  const started = performance.now();
  const ms = (): number => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let done = false;
    let status: number | null = null;
    const finish = (r: Omit<PostResult, 'ms'>): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (!req.destroyed) req.destroy();
      resolve({ ...r, ms: ms() });
    };
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'POST',
      agent: false,
      headers: {
        ...headers,
        'Content-Length': String(body.length),
        'User-Agent': 'cardctl-webhooks-test/1',
        Connection: 'close',
      },
    });
    const timer = setTimeout(() => {
      // a status already received is the verdict, even if the answer's body never ends
      if (status !== null) finish({ status, error: null });
      else req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEOUT_TOTAL' }));
    }, timeoutS * 1000);
    req.on('response', (res) => {
      status = res.statusCode ?? null;
      res.on('end', () => finish({ status, error: null }));
      res.on('error', () => finish({ status, error: null }));
      res.on('close', () => finish({ status, error: null }));
      res.resume(); // the answer's body is not kept
    });
    req.on('error', (err: NodeJS.ErrnoException) => finish({ status: null, error: describe(err, timeoutS) }));
    req.on('close', () =>
      finish(
        status !== null ? { status, error: null } : { status: null, error: 'connection closed without an answer' },
      ),
    );
    req.end(body);
  });
}
