// The single request pipeline: URL -> body (with its limit) -> control plane or API ->
// gateway (SIGNING.md order) -> route -> scope -> live-only -> handler -> envelope.
// Every answer, including every failure, is one of the spec's envelopes; nothing throws out.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_PREFIX, matchRoute, stripApiPrefix, type OperationName } from '../contract/routes.js';
import { MESSAGES } from '../contract/errors.js';
import { endpointNotFound, fail, serverError, unavailable, type Reply } from './envelope.js';
import { isMoneyOperation, takeFault } from './faults.js';
import { authenticate, checkScope, knownKeyRateHeaders } from './gateway.js';
import type { Handler, RequestContext } from './context.js';
import type { Runtime } from './runtime.js';
import * as cards from './handlers/cards.js';
import * as customers from './handlers/customers.js';
import * as deposits from './handlers/deposits.js';
import { handleControl } from './control/index.js';
import type { Trace } from './refusal.js';
import { logHeaders, recordRequest, isLogRead } from './request-record.js';

/** Decided: 6 MiB, room for a 4,200,000-character id_front_image and every other field. */
export const BODY_LIMIT_BYTES = 6 * 1024 * 1024;
/** Past this much, an oversized body is not even drained: answer 413 and close. */
const DRAIN_LIMIT_BYTES = 64 * 1024 * 1024;

const HANDLERS: Record<OperationName, Handler> = {
  'cards.issue': cards.issue,
  'cards.get': cards.get,
  'cards.recharge': cards.recharge,
  'cards.freeze': cards.freeze,
  'cards.unfreeze': cards.unfreeze,
  'cards.terminate': cards.terminate,
  'cards.transactions': cards.transactions,
  'customers.create': customers.create,
  'customers.list': customers.list,
  'customers.get': customers.get,
  'customers.update': customers.update,
  'customers.kyc': customers.kyc,
  'depositAddresses.create': deposits.createAddress,
  'depositAddresses.list': deposits.listAddresses,
  'deposits.list': deposits.listDeposits,
};

const LIVE_ONLY_MESSAGE: Partial<Record<OperationName, string>> = {
  'depositAddresses.create': MESSAGES.liveOnlyDepositAddresses,
  'depositAddresses.list': MESSAGES.liveOnlyDepositAddresses,
  'deposits.list': MESSAGES.liveOnlyDeposits,
};

interface BodyResult {
  body: Buffer;
  tooLarge: boolean;
  /** the client went away or sent far too much: answer (if at all) and close */
  abandon: boolean;
}

function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyResult) => {
      if (!done) {
        done = true;
        resolve(r);
      }
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > DRAIN_LIMIT_BYTES) {
        req.pause();
        finish({ body: Buffer.alloc(0), tooLarge: true, abandon: true });
      } else if (size <= limit) {
        chunks.push(chunk);
      } else {
        chunks.length = 0; // keep draining so the client can read the 413
      }
    });
    req.on('end', () =>
      finish({ body: size > limit ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge: size > limit, abandon: false }),
    );
    req.on('error', () => finish({ body: Buffer.alloc(0), tooLarge: false, abandon: true }));
    req.on('close', () => finish({ body: Buffer.concat(chunks), tooLarge: size > limit, abandon: !req.complete }));
  });
}

/** The answer's text; a body that cannot be serialized (too deep, a cycle) becomes the 500 envelope, never a throw. */
function replyText(reply: Reply): { status: number; text: string; headers?: Record<string, string> } {
  try {
    return { status: reply.status, text: JSON.stringify(reply.body), headers: reply.headers };
  } catch (err) {
    logUnexpected(err);
    return { status: 500, text: JSON.stringify(serverError().body) };
  }
}

function send(res: ServerResponse, reply: Reply, extra: Record<string, string>, close: boolean): void {
  if (res.headersSent || res.destroyed) return;
  const { status, text, headers: replyHeaders } = replyText(reply);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    ...extra,
    ...(replyHeaders ?? {}),
  };
  if (close) headers.Connection = 'close';
  res.writeHead(status, headers);
  res.end(text);
}

function splitUrl(url: string): { rawPath: string; rawQuery: string } {
  let target = url;
  if (/^https?:\/\//i.test(target)) {
    // absolute-form request target: keep only the path and query
    const slash = target.indexOf('/', target.indexOf('//') + 2);
    target = slash < 0 ? '/' : target.slice(slash);
  }
  const q = target.indexOf('?');
  return q < 0 ? { rawPath: target, rawQuery: '' } : { rawPath: target.slice(0, q), rawQuery: target.slice(q + 1) };
}

const isApiPath = (rawPath: string): boolean => rawPath === API_PREFIX || rawPath.startsWith(API_PREFIX + '/');

function safeSearchParams(rawQuery: string): URLSearchParams {
  try {
    return new URLSearchParams(rawQuery);
  } catch {
    return new URLSearchParams();
  }
}

type Effect = RequestContext['effect'];
const EMPTY = Buffer.alloc(0);
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Runs an operation's handler under the fault injected for it, if any. Money operations take
 * theirs at the commit point in their handlers; the others here: 503 and 500 answer before the
 * handler (nothing done), slow delays it, 500_after_commit and drop run it first.
 */
async function runHandler(ctx: RequestContext): Promise<{ reply: Reply; effect: Effect }> {
  const op = ctx.route.operation;
  const fault = isMoneyOperation(op) ? null : takeFault(ctx.rt, op, ctx.merchantId, ctx.trace);
  if (fault?.kind === '503') return { reply: unavailable(), effect: undefined };
  if (fault?.kind === '500') return { reply: serverError(), effect: undefined };
  if (fault?.kind === 'slow') await sleep(fault.ms ?? 0);
  const reply = await HANDLERS[op](ctx);
  if (fault?.kind === '500_after_commit') return { reply: serverError(), effect: undefined };
  if (fault?.kind === 'drop') return { reply, effect: { drop: true } };
  return { reply, effect: ctx.effect };
}

async function apiReply(
  rt: Runtime,
  req: IncomingMessage,
  rawPath: string,
  rawQuery: string,
  body: Buffer,
  trace: Trace,
): Promise<{ reply: Reply; headers: Record<string, string>; effect?: Effect }> {
  const method = (req.method ?? 'GET').toUpperCase();
  const gate = authenticate(
    rt,
    { method, rawPath, rawQuery, headers: req.headers, body, remoteAddress: req.socket.remoteAddress },
    trace.seq,
  );
  if (!gate.ok) {
    trace.refusal = gate.why;
    if (gate.key) {
      trace.keyId = gate.key.key_id;
      trace.mode = gate.key.mode;
    }
    return { reply: gate.reply, headers: {} };
  }
  trace.keyId = gate.key.key_id;
  trace.mode = gate.key.mode;
  const headers = gate.rateHeaders;
  const match = matchRoute(method, stripApiPrefix(rawPath));
  if (!match) {
    trace.refusal = { kind: 'unknown_route', method, path: rawPath };
    return { reply: endpointNotFound(), headers };
  }
  trace.route = match.route;
  trace.params = match.params;
  const denied = checkScope(gate.key, match.route);
  if (denied) {
    trace.refusal = { kind: 'out_of_scope', needed: match.route.scope, scopes: gate.key.scopes };
    return { reply: denied, headers };
  }
  if (match.route.liveOnly && gate.key.mode !== 'live') {
    trace.refusal = { kind: 'live_only', route: match.route };
    return { reply: fail(403, LIVE_ONLY_MESSAGE[match.route.operation] ?? MESSAGES.forbidden), headers };
  }
  const ctx: RequestContext = {
    rt,
    route: match.route,
    params: match.params,
    query: safeSearchParams(rawQuery),
    headers: req.headers,
    body,
    key: gate.key,
    merchantId: gate.key.merchant_id,
    mode: gate.key.mode,
    trace,
  };
  const { reply, effect } = await runHandler(ctx);
  return { reply, headers, effect };
}

/** Logs an unexpected failure in one line (never a request's secrets: only the error). */
function logUnexpected(err: unknown): void {
  process.stderr.write(`cardctl mock: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.CARDCTL_DEBUG && err instanceof Error) process.stderr.write(`${err.stack ?? ''}\n`);
}

export async function handleRequest(rt: Runtime, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const log = rt.requestLog;
  const started = log ? performance.now() : 0;
  const { rawPath, rawQuery } = splitUrl(req.url ?? '/');
  // reading the log is not logged: a `mock requests --follow` would fill it with its own reads
  const trace: Trace = { seq: log && !isLogRead(rawPath) ? log.reserve() : 0 };
  const receivedReal = trace.seq ? rt.options.realNow() : 0;
  const receivedSim = trace.seq ? rt.now() : 0;
  let body: Buffer = EMPTY;
  const finish = (reply: Reply | null, outcome?: 'dropped' | 'abandoned'): void => {
    if (trace.seq)
      recordRequest(rt, req, { trace, rawPath, rawQuery, body, reply, outcome, started, receivedReal, receivedSim });
  };
  let reply: Reply = serverError();
  let headers: Record<string, string> = {};
  let close = false;
  let effect: Effect;
  try {
    const read = await readBody(req, BODY_LIMIT_BYTES);
    body = read.body;
    if (read.abandon && !read.tooLarge) {
      res.destroy();
      finish(null, 'abandoned');
      return;
    }
    close = read.abandon;
    if (read.tooLarge) {
      reply = fail(413, `The request body is too large: the limit is ${BODY_LIMIT_BYTES} bytes.`, {
        body: ['too_large'],
      });
      // answered before the gateway, but an API request naming a known key still gets the rate headers (read-only)
      if (isApiPath(rawPath)) headers = knownKeyRateHeaders(rt, req.headers) ?? {};
    } else if (rawPath === '/_mock' || rawPath.startsWith('/_mock/')) {
      // API reads settle what they touch; the control plane (events, wallets, state) sees everything due
      rt.runDue();
      reply = await handleControl(rt, (req.method ?? 'GET').toUpperCase(), rawPath, rawQuery, req.headers, read.body);
    } else if (isApiPath(rawPath)) {
      ({ reply, headers, effect } = await apiReply(rt, req, rawPath, rawQuery, read.body, trace));
    } else {
      reply = endpointNotFound();
    }
  } catch (err) {
    logUnexpected(err);
    reply = serverError();
  }
  // with --state the answer waits until its change is on disk; a change that could not be saved is a 500
  const method = (req.method ?? 'GET').toUpperCase();
  try {
    await rt.commit(method !== 'GET' && method !== 'HEAD');
  } catch (err) {
    process.stderr.write(
      `cardctl mock: could not save the state to ${rt.options.stateFile ?? 'disk'}: ${err instanceof Error ? err.message : String(err)} (answered 500)\n`,
    );
    reply = serverError();
    headers = {};
  }
  if (effect?.drop) {
    // an injected `drop`: done (and saved above), but the connection closes without an answer
    req.socket.destroy();
    finish(reply, 'dropped');
    return;
  }
  if (effect?.delayMs) await sleep(effect.delayMs);
  if (trace.seq && isApiPath(rawPath))
    headers = {
      ...headers,
      ...logHeaders(rt, req, { trace, rawPath, rawQuery, body, reply, receivedReal, receivedSim }),
    };
  try {
    send(res, reply, headers, close);
  } catch (err) {
    logUnexpected(err);
    res.destroy();
    finish(null, 'abandoned');
    return;
  }
  finish(reply);
  if (close) res.on('finish', () => req.socket.destroy());
}
