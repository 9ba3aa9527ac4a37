// The HTTP transport of every API command, in one place: node:http / node:https with keep-alive
// agents (one per process, created on first use), proxies from the environment
// (src/client/proxy.ts; https through a CONNECT tunnel), extra CA certificates, and the
// per-attempt timeouts. undici was measured and dropped: see bench/README.md.
//
// The boundary (src/client/attempt.ts uses it): `httpRequest` sends one exchange and answers
// status, headers and text; `closeAgent()` ends the keep-alive sockets. Nothing above this file
// knows which HTTP library sends the request.
// Transport failures carry a `code`: the system's (ECONNREFUSED, ENOTFOUND, ECONNRESET...), or
// CONNECT_TIMEOUT, HEADERS_TIMEOUT, BODY_TIMEOUT, PROXY_REFUSED, PROXY_TUNNEL_FAILED; and
// `proxy` (shown without credentials) when the failure was the proxy's.
import type {
  Agent as HttpAgent,
  ClientRequest,
  IncomingMessage,
  OutgoingHttpHeaders,
  RequestOptions,
} from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { whoAnswered } from './answer.js';
import { proxyFor, showProxy, type ProxyChoice } from './proxy.js';

export interface TransportRequest {
  origin: string;
  /** path and query, as sent on the request line */
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** ms until the answer's headers (connecting included) */
  headersTimeout: number;
  /** ms the body may stay silent */
  bodyTimeout: number;
}

export interface TransportAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: { text(): Promise<string> };
  /** the forward proxy that answered a plain-HTTP request (absolute-form), shown without credentials */
  proxy?: string;
}

export interface Transport {
  request(req: TransportRequest): Promise<TransportAnswer>;
}

export interface TransportSettings {
  /** PEM text trusted in addition to the default CAs (from --ca-file, CARDCTL_CA_FILE or the profile) */
  extraCa?: string;
  env?: NodeJS.ProcessEnv;
}

const KEEP_ALIVE = { keepAlive: true, maxSockets: 16 };

export class TransportError extends Error {
  readonly code: string;
  readonly proxy?: string;
  constructor(message: string, code: string, proxy?: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'TransportError';
    this.code = code;
    this.proxy = proxy;
  }
}

let settings: TransportSettings = {};
let transport: Promise<NodeTransport> | undefined;

/** Set before the first request (session.ts does): the CA file's certificates and the environment. */
export function configureTransport(next: TransportSettings): void {
  settings = next;
  void closeAgent();
}

export function getAgent(): Promise<Transport> {
  transport ??= NodeTransport.create(settings);
  return transport;
}

export interface HttpExchange {
  origin: string;
  /** the request target as it goes on the wire: path and query */
  target: string;
  method: string;
  headers: Record<string, string>;
  body?: Buffer;
  /** for the headers, and again for the body */
  timeoutMs: number;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** the forward proxy the request went to in absolute-form (its own 403/407 is its refusal: src/client/answer.ts) */
  proxy?: string;
}

/** Sends one request; rejects with the transport's error (its `code` tells whether it left this machine). */
export async function httpRequest(x: HttpExchange): Promise<HttpAnswer> {
  const t = await getAgent();
  const res = await t.request({
    origin: x.origin,
    path: x.target,
    method: x.method,
    headers: x.headers,
    body: x.body,
    headersTimeout: x.timeoutMs,
    bodyTimeout: x.timeoutMs,
  });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text(), proxy: res.proxy };
}

/** Closes the keep-alive sockets so the process can exit at once. */
export async function closeAgent(): Promise<void> {
  if (!transport) return;
  const t = await transport;
  transport = undefined;
  t.close();
}

/** The CA list to use when extra certificates are given: the defaults, NODE_EXTRA_CA_CERTS, and the extra ones. */
async function caList(extra: string | undefined, env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  if (extra === undefined) return undefined; // node's defaults, NODE_EXTRA_CA_CERTS included
  const [{ rootCertificates }, { readFileSync }] = await Promise.all([import('node:tls'), import('node:fs')]);
  const list = [...rootCertificates];
  // an explicit `ca` replaces node's defaults, which held NODE_EXTRA_CA_CERTS: add it back
  if (env.NODE_EXTRA_CA_CERTS) {
    try {
      list.push(readFileSync(env.NODE_EXTRA_CA_CERTS, 'utf8'));
    } catch {
      // node itself warned at start-up about an unreadable NODE_EXTRA_CA_CERTS
    }
  }
  list.push(extra);
  return list;
}

class NodeTransport implements Transport {
  private readonly agents = new Map<string, HttpAgent | HttpsAgent>();

  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly ca: string[] | undefined,
  ) {}

  static async create(s: TransportSettings): Promise<NodeTransport> {
    const env = s.env ?? process.env;
    return new NodeTransport(env, await caList(s.extraCa, env));
  }

  close(): void {
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  async request(req: TransportRequest): Promise<TransportAnswer> {
    const target = new URL(req.origin);
    const decision = proxyFor(target, this.env);
    const proxy = decision.proxy;
    const https = target.protocol === 'https:';
    const headers: OutgoingHttpHeaders = { ...req.headers };
    const body = req.body && req.body.length > 0 ? req.body : undefined;
    if (body) headers['Content-Length'] = String(body.length);
    else if (req.method !== 'GET' && req.method !== 'HEAD') headers['Content-Length'] = '0';
    const host = target.hostname.replace(/^\[|\]$/g, '');
    const port = Number(target.port || (https ? 443 : 80));
    let options: RequestOptions & { servername?: string };
    if (proxy && !https) {
      // absolute-form through the proxy: the proxy sees this request (an http target has no secrecy to keep)
      headers.Host = target.host;
      const auth = proxyAuthorization(proxy);
      if (auth) headers['Proxy-Authorization'] = auth;
      options = {
        host: proxy.url.hostname.replace(/^\[|\]$/g, ''),
        port: Number(proxy.url.port),
        path: `${target.origin}${req.path}`,
        agent: await this.agent('proxy-http', proxy),
      };
    } else {
      options = {
        host,
        port,
        path: req.path,
        servername: https && !/^[\d.]+$|:/.test(host) ? host : undefined,
        agent: await this.agent(https ? 'https' : 'http', proxy ?? undefined),
      };
    }
    options.method = req.method;
    options.headers = headers;
    const mod = https && !(proxy && !https) ? await import('node:https') : await import('node:http');
    return send(mod.request, options, body, req, proxy && !https ? proxy : undefined);
  }

  private async agent(
    kind: 'http' | 'https' | 'proxy-http',
    proxy: ProxyChoice | undefined,
  ): Promise<HttpAgent | HttpsAgent> {
    const key = `${kind} ${proxy?.url.href ?? ''}`;
    const existing = this.agents.get(key);
    if (existing) return existing;
    let made: HttpAgent | HttpsAgent;
    if (kind === 'https') {
      const { Agent } = await import('node:https');
      made = proxy
        ? await tunnelAgent(Agent, proxy, this.ca)
        : new Agent({ ...KEEP_ALIVE, ...(this.ca ? { ca: this.ca } : {}) });
    } else {
      const { Agent } = await import('node:http');
      made = new Agent(KEEP_ALIVE);
    }
    this.agents.set(key, made);
    return made;
  }
}

function proxyAuthorization(proxy: ProxyChoice): string | undefined {
  if (!proxy.url.username && !proxy.url.password) return undefined;
  const user = decodeURIComponent(proxy.url.username);
  const pass = decodeURIComponent(proxy.url.password);
  return `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
}

/**
 * An https agent whose connections are CONNECT tunnels through the proxy: TLS runs end to end
 * inside the tunnel, so the proxy sees `CONNECT host:port` and ciphertext, never the signing
 * headers. Tunnels are kept alive like direct connections.
 */
async function tunnelAgent(
  Agent: typeof HttpsAgent,
  proxy: ProxyChoice,
  ca: string[] | undefined,
): Promise<HttpsAgent> {
  const [http, tls] = await Promise.all([import('node:http'), import('node:tls')]);
  const shown = showProxy(proxy.url);
  class TunnelAgent extends Agent {
    override createConnection(
      options: RequestOptions & { servername?: string },
      callback?: (err: Error | null, socket: Duplex) => void,
    ): undefined {
      const done = callback!; // node's Agent always passes it: the connection may come later
      const target = `${options.host}:${options.port}`;
      const headers: OutgoingHttpHeaders = { Host: target };
      const auth = proxyAuthorization(proxy);
      if (auth) headers['Proxy-Authorization'] = auth;
      const connect = http.request({
        host: proxy.url.hostname.replace(/^\[|\]$/g, ''),
        port: Number(proxy.url.port),
        method: 'CONNECT',
        path: target,
        headers,
        agent: false,
      });
      connect.once('connect', (res: IncomingMessage, socket: Socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          const who = whoAnswered(res.headers);
          done(
            new TransportError(
              `the proxy ${shown} refused the tunnel to ${target} (${`${res.statusCode} ${res.statusMessage ?? ''}`.trim()}${who ? `; ${who}` : ''})`,
              'PROXY_REFUSED',
              shown,
            ),
            socket,
          );
          return;
        }
        const secure = tls.connect({
          socket,
          servername: options.servername ?? (options.host as string),
          ...(ca ? { ca } : {}),
        });
        done(null, secure);
      });
      connect.once('error', (err: NodeJS.ErrnoException) => {
        const code =
          err.code && /^E[A-Z]+$/.test(err.code) && err.code !== 'ECONNRESET' ? err.code : 'PROXY_TUNNEL_FAILED';
        done(
          new TransportError(
            `cannot open a tunnel through the proxy ${shown} (${err.code ?? err.message})`,
            code,
            shown,
            err,
          ),
          connect.socket!,
        );
      });
      connect.end();
      return undefined;
    }
  }
  return new TunnelAgent({ ...KEEP_ALIVE, ...(ca ? { ca } : {}) });
}

type RequestFn = (options: RequestOptions, callback: (res: IncomingMessage) => void) => ClientRequest;

/**
 * One request under ONE deadline per attempt (`headersTimeout` from the start: connect, proxy,
 * TLS, headers and the whole body): a body trickled a byte at a time cannot extend it. Resolves
 * once the whole body is read. `bodyTimeout` also bounds the silence between chunks.
 */
function send(
  request: RequestFn,
  options: RequestOptions,
  body: Buffer | undefined,
  req: TransportRequest,
  absoluteFormProxy: ProxyChoice | undefined,
): Promise<TransportAnswer> {
  return new Promise((resolve, reject) => {
    let connected = false;
    let settled = false;
    let answering: IncomingMessage | null = null;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      reject(err);
    };
    const shownProxy = absoluteFormProxy ? showProxy(absoluteFormProxy.url) : undefined;
    const r = request(options, (res) => {
      answering = res;
      const chunks: Buffer[] = [];
      let bodyTimer = setTimeout(
        () => res.destroy(new TransportError(`no data for ${req.bodyTimeout} ms`, 'BODY_TIMEOUT')),
        req.bodyTimeout,
      );
      res.on('data', (c: Buffer) => {
        chunks.push(c);
        clearTimeout(bodyTimer);
        bodyTimer = setTimeout(
          () => res.destroy(new TransportError(`no data for ${req.bodyTimeout} ms`, 'BODY_TIMEOUT')),
          req.bodyTimeout,
        );
      });
      res.once('error', (err) => {
        clearTimeout(bodyTimer);
        fail(err);
      });
      res.once('end', () => {
        clearTimeout(bodyTimer);
        clearTimeout(deadline);
        if (settled) return;
        settled = true;
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({
          statusCode: res.statusCode ?? 0,
          headers: res.headers,
          body: { text: async () => text },
          ...(shownProxy ? { proxy: shownProxy } : {}),
        });
      });
    });
    const deadline = setTimeout(() => {
      if (answering) {
        // headers came, the body did not finish in time (a trickle)
        answering.destroy(new TransportError(`no complete answer in ${req.headersTimeout} ms`, 'BODY_TIMEOUT'));
        return;
      }
      const code = connected ? 'HEADERS_TIMEOUT' : 'CONNECT_TIMEOUT';
      r.destroy(
        new TransportError(
          connected ? `no answer in ${req.headersTimeout} ms` : `could not connect in ${req.headersTimeout} ms`,
          code,
          connected ? undefined : shownProxy,
        ),
      );
    }, req.headersTimeout);
    r.once('socket', (socket: Socket) => {
      if (!socket.connecting && !(socket as { pending?: boolean }).pending) {
        connected = true;
        return;
      }
      socket.once(socket.constructor.name === 'TLSSocket' ? 'secureConnect' : 'connect', () => {
        connected = true;
      });
    });
    r.once('error', (err: NodeJS.ErrnoException) => {
      // the proxy of an absolute-form request is the first hop: a failed connect is the proxy's
      if (shownProxy && !connected && !(err instanceof TransportError)) {
        fail(
          new TransportError(
            `cannot reach the proxy ${shownProxy} (${err.code ?? err.message})`,
            err.code ?? 'PROXY_TUNNEL_FAILED',
            shownProxy,
            err,
          ),
        );
        return;
      }
      fail(err);
    });
    r.end(body);
  });
}
