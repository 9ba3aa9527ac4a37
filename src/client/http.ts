// The transport boundary: one HTTP exchange, bytes in and bytes out. Nothing above this file
// knows which HTTP library sends the request. One keep-alive undici Agent per process, created
// on first use (undici is heavy to import).
import type { Agent } from 'undici';

let agent: Promise<Agent> | undefined;

export function getAgent(): Promise<Agent> {
  agent ??= import('undici').then(({ Agent: A }) => new A({ keepAliveTimeout: 10_000, connections: 16 }));
  return agent;
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
}

/** Sends one request; rejects with the transport's error (its `code` tells whether it left this machine). */
export async function httpRequest(x: HttpExchange): Promise<HttpAnswer> {
  const a = await getAgent();
  const res = await a.request({
    origin: x.origin,
    path: x.target,
    method: x.method as 'GET',
    headers: x.headers,
    body: x.body,
    headersTimeout: x.timeoutMs,
    bodyTimeout: x.timeoutMs,
  });
  return { status: res.statusCode, headers: res.headers as HttpAnswer['headers'], text: await res.body.text() };
}

/** Closes the keep-alive sockets so the process can exit at once. */
export async function closeAgent(): Promise<void> {
  if (!agent) return;
  const a = await agent;
  agent = undefined;
  await a.close().catch(() => a.destroy());
}
