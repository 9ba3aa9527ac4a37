// A small scriptable API server on 127.0.0.1 (port 0) for the client tests. It VERIFIES each
// request's signature with src/signing (401 otherwise, like the real gateway) and then answers
// from a script: status, body, headers, Date header, delay, or a dropped connection.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bodySha256, canonicalString, verifyRequestSignature } from '../../src/signing/index.js';

export interface Reply {
  status?: number;
  /** an object is sent as JSON; a string as is */
  body?: unknown;
  headers?: Record<string, string>;
  /** the `Date` header (default: now) */
  date?: Date | string;
  /** wait before answering (ms) */
  delayMs?: number;
  /** destroy the socket after reading the request, without answering */
  drop?: boolean;
}

export interface Received {
  method: string;
  path: string;
  query: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  bodySha256: string;
  canonical: string;
  /** the signature verified */
  verified: boolean;
}

export interface SignedServer {
  baseUrl: string;
  port: number;
  keyId: string;
  secret: string;
  requests: Received[];
  /**
   * cardctl's question about the key's mode (src/client/key-mode.ts: GET /deposit-addresses,
   * asked once per key id and state folder before the first money operation), answered as the
   * real API does for a key of this server's `mode` and kept here, out of `requests` and of the
   * script: the scripts and `requests` are the operations under test.
   */
  probes: Received[];
  /** the mode of this server's key (default test) */
  mode: 'test' | 'live';
  /** replies for the next verified requests, in order; afterwards `fallback` answers */
  script(...replies: Reply[]): void;
  fallback: (req: Received) => Reply;
  /** false: GET /deposit-addresses is answered from the script like any request (a test of the mode question itself) */
  answerProbes: boolean;
  /** env for the CLI: CARDCTL_API_KEY / SECRET / BASE_URL / MODE */
  env(mode?: 'test' | 'live'): Record<string, string>;
  close(): Promise<void>;
}

export const TEST_KEY_ID = '01HZZZZZZZZZZZZZZZZZZZZKEY';
export const TEST_SECRET = 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXh4eHg=';

const echo = (req: Received): Reply => ({
  status: 200,
  body: { success: true, data: { method: req.method, path: req.path, query: req.query, body_sha256: req.bodySha256 } },
});

/** The real API's answer to GET /deposit-addresses (live keys only; spec, Errors: 403 `{}` for a test key). */
const liveOnlyAnswer = (mode: 'test' | 'live'): Reply =>
  mode === 'live'
    ? { status: 200, body: { success: true, data: [] } }
    : {
        status: 403,
        body: { success: false, message: 'Deposit addresses are available to live keys only.', errors: {} },
      };

export async function startSignedServer(
  opts: { keyId?: string; secret?: string; mode?: 'test' | 'live' } = {},
): Promise<SignedServer> {
  const keyId = opts.keyId ?? TEST_KEY_ID;
  const secret = opts.secret ?? TEST_SECRET;
  const mode = opts.mode ?? 'test';
  const queue: Reply[] = [];
  const requests: Received[] = [];
  const probes: Received[] = [];

  const send = (res: ServerResponse, reply: Reply): void => {
    const status = reply.status ?? 200;
    const text =
      reply.body === undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    res.setHeader(
      'Date',
      reply.date ? (typeof reply.date === 'string' ? reply.date : reply.date.toUTCString()) : new Date().toUTCString(),
    );
    if (text !== '') res.setHeader('Content-Type', 'application/json');
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.setHeader(k, v);
    res.writeHead(status);
    res.end(text);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = req.url ?? '/';
      const q = raw.indexOf('?');
      const path = q < 0 ? raw : raw.slice(0, q);
      const query = q < 0 ? '' : raw.slice(q + 1);
      const body = Buffer.concat(chunks);
      const h = (name: string): string | undefined => {
        const v = req.headers[name];
        return Array.isArray(v) ? v[0] : v;
      };
      const [apiKey, ts, nonce, sig] = [h('x-api-key'), h('x-timestamp'), h('x-nonce'), h('x-signature')];
      let canonical = '';
      let verified = false;
      if (apiKey !== undefined && ts !== undefined && nonce !== undefined && sig !== undefined) {
        try {
          canonical = canonicalString({
            method: req.method ?? 'GET',
            path,
            query,
            keyId: apiKey,
            timestamp: ts,
            nonce,
            body,
          });
          verified = apiKey === keyId && verifyRequestSignature(canonical, sig, [secret]);
        } catch {
          verified = false;
        }
      }
      const received: Received = {
        method: req.method ?? 'GET',
        path,
        query,
        headers: req.headers,
        body,
        bodySha256: bodySha256(body),
        canonical,
        verified,
      };
      if (verified && received.method === 'GET' && path.endsWith('/deposit-addresses') && srv.answerProbes) {
        probes.push(received);
        send(res, liveOnlyAnswer(mode));
        return;
      }
      requests.push(received);
      if (!verified) {
        const code =
          sig === undefined || nonce === undefined || ts === undefined || apiKey === undefined
            ? 'missing_signature_headers'
            : apiKey !== keyId
              ? 'invalid_api_key'
              : 'invalid_signature';
        send(res, { status: 401, body: { success: false, message: 'Unauthorized.', errors: { gateway: [code] } } });
        return;
      }
      const reply = queue.shift() ?? srv.fallback(received);
      const act = (): void => {
        if (reply.drop) req.socket.destroy();
        else send(res, reply);
      };
      if (reply.delayMs) setTimeout(act, reply.delayMs);
      else act();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  const srv: SignedServer = {
    baseUrl,
    port,
    keyId,
    secret,
    requests,
    probes,
    mode,
    answerProbes: true,
    script: (...replies) => {
      queue.push(...replies);
    },
    fallback: echo,
    env: (envMode = mode) => ({
      CARDCTL_API_KEY: keyId,
      CARDCTL_API_SECRET: secret,
      CARDCTL_BASE_URL: baseUrl,
      CARDCTL_MODE: envMode,
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return srv;
}
