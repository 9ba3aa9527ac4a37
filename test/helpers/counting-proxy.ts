// A reverse proxy in front of the mock that counts every request a client sends (so a test can
// check a request budget, or that nothing was sent at all) and can answer one itself (a 429
// with Retry-After, say) instead of forwarding it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  path: string;
  /** Date.now() when it arrived */
  at: number;
  /** answered by `inject` instead of the mock */
  injected: boolean;
}

export interface Injected {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface CountingProxy {
  /** base URL with the /api/v1 prefix, like the mock's */
  baseUrl: string;
  seen: Seen[];
  close(): Promise<void>;
}

/** `inject(n, req)`: called for the n-th request (1-based); answer it, or undefined to forward. */
export async function startCountingProxy(
  targetBaseUrl: string,
  inject?: (n: number, req: { method: string; path: string }) => Injected | undefined,
): Promise<CountingProxy> {
  const target = new URL(targetBaseUrl);
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', path: req.url ?? '', at: Date.now(), injected: false };
      seen.push(entry);
      const answer = inject?.(seen.length, { method: entry.method, path: entry.path });
      if (answer) {
        entry.injected = true;
        res
          .writeHead(answer.status, { 'Content-Type': 'application/json', ...answer.headers })
          .end(answer.body ?? '{"success":false,"message":"Too Many Attempts.","errors":{"rate_limit":["exceeded"]}}');
        return;
      }
      const headers = { ...req.headers, host: target.host };
      const up = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (upRes) => {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
        },
      );
      up.on('error', () => res.writeHead(502).end());
      up.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${target.pathname}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
