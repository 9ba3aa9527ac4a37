// What a handler gets for one authenticated API request.
import type { RouteDef } from '../contract/routes.js';
import { validation, type Reply } from './envelope.js';
import type { Runtime } from './runtime.js';
import type { KeyRec, Mode } from './state.js';
import type { Trace } from './refusal.js';

export interface RequestContext {
  rt: Runtime;
  route: RouteDef;
  params: Record<string, string>;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  key: KeyRec;
  merchantId: string;
  mode: Mode;
  /** set by an injected fault: close the connection without answering, or answer late */
  effect?: { drop?: boolean; delayMs?: number };
  /** what the request log learns of this request (its id, why it was refused) */
  trace?: Trace;
}

export type Handler = (ctx: RequestContext) => Reply | Promise<Reply>;

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;.*)?$/i;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The JSON object body, or the 422 that says what is wrong with it. An empty body is `{}`
 * (every required field then gets its own message).
 */
export function jsonBody(ctx: RequestContext): Record<string, unknown> | Reply {
  return parseJsonObject(ctx.headers, ctx.body);
}

export function parseJsonObject(headers: RequestContext['headers'], raw: Buffer): Record<string, unknown> | Reply {
  if (raw.length === 0) return {};
  const type = headers['content-type'];
  const contentType = Array.isArray(type) ? type[0] : type;
  if (!contentType || !JSON_TYPE.test(contentType.trim())) {
    return validation({
      content_type: ['The Content-Type header must be application/json for a request with a body.'],
    });
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    return validation({ body: ['The request body must be UTF-8 text.'] });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return validation({ body: ['The request body must be valid JSON.'] });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return validation({ body: ['The request body must be a JSON object.'] });
  }
  return value as Record<string, unknown>;
}

export function header(ctx: RequestContext, name: string): string | undefined {
  const v = ctx.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}
