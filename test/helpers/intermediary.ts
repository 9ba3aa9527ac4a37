// A reverse proxy between the CLI and the mock that answers as intermediaries do (issue 36):
// a gateway that forwards the request, gets the API's answer, and answers 503 text/plain
// instead (as Envoy does when the upstream resets); a captive portal's HTML 200 that forwards
// nothing; a JSON 200 cut in half; a proxy's plain 403 and 407 pages. `mode` may change between
// requests; 'forward' passes everything through. `forwarded` counts what reached the mock.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type IntermediaryMode = 'forward' | 'gateway-503' | 'portal-html' | 'truncated' | 'forbidden-403' | 'auth-407';

export interface Intermediary {
  /** base URL with the /api/v1 prefix, like the mock's */
  baseUrl: string;
  mode: IntermediaryMode;
  /** requests that reached this proxy */
  received: number;
  /** requests passed on to the mock */
  forwarded: number;
  close(): Promise<void>;
}

const PORTAL_PAGE =
  '<!DOCTYPE html>\n<html><head><title>Sign in to Guest Wi-Fi</title></head>\n<body><h1>Welcome</h1>\n<form action="/login"><input name="room"></form>\n</body></html>\n';
const FORBIDDEN_PAGE =
  '<!DOCTYPE html>\n<html><head><title>ERROR: The requested URL could not be retrieved</title></head>\n<body><h1>Access Denied</h1>\n<p>Access control configuration prevents your request from being allowed at this time.</p>\n</body></html>\n';

function forward(
  target: URL,
  req: http.IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 502, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    up.on('error', reject);
    up.end(body);
  });
}

export async function startIntermediary(
  targetBaseUrl: string,
  mode: IntermediaryMode = 'forward',
): Promise<Intermediary> {
  const target = new URL(targetBaseUrl);
  const state: Intermediary = { baseUrl: '', mode, received: 0, forwarded: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      state.received++;
      const m = state.mode;
      if (m === 'portal-html') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', Server: 'nginx' }).end(PORTAL_PAGE);
        return;
      }
      if (m === 'forbidden-403') {
        res
          .writeHead(403, { 'Content-Type': 'text/html', Server: 'squid/6.6', 'X-Squid-Error': 'ERR_ACCESS_DENIED 0' })
          .end(FORBIDDEN_PAGE);
        return;
      }
      if (m === 'auth-407') {
        res
          .writeHead(407, {
            'Content-Type': 'text/html',
            Server: 'squid/6.6',
            'Proxy-Authenticate': 'Basic realm="proxy"',
          })
          .end(FORBIDDEN_PAGE);
        return;
      }
      let answer: Awaited<ReturnType<typeof forward>>;
      try {
        answer = await forward(target, req, Buffer.concat(chunks));
        state.forwarded++;
      } catch {
        res.writeHead(502, { 'Content-Type': 'text/plain' }).end('upstream unreachable');
        return;
      }
      if (m === 'gateway-503') {
        res
          .writeHead(503, { 'Content-Type': 'text/plain', Server: 'envoy' })
          .end('upstream connect error or disconnect/reset before headers. reset reason: connection termination');
        return;
      }
      if (m === 'truncated') {
        const half = answer.body.subarray(0, Math.floor(answer.body.length / 2));
        res
          .writeHead(answer.status, { 'Content-Type': 'application/json', 'Content-Length': String(half.length) })
          .end(half);
        return;
      }
      const headers = { ...answer.headers };
      delete headers['transfer-encoding'];
      headers['content-length'] = String(answer.body.length);
      res.writeHead(answer.status, headers).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.baseUrl = `http://127.0.0.1:${port}${target.pathname}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}
