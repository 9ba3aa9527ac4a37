// Turns one answered request into a record of the request log, with the diagnosis of a refusal.
// Runs after the answer is sent, in the same turn of the event loop (so a client that reads the
// log after its answer finds the record). A failure here is logged and never reaches the client.
import type { IncomingMessage } from 'node:http';
import type { Reply } from './envelope.js';
import type { Trace } from './refusal.js';
import { LogRecord, requestId } from './request-log.js';
import type { Runtime } from './runtime.js';
import { explain } from './diagnosis/index.js';

/** `GET /_mock/requests...`: reading the log, itself never logged. */
export const isLogRead = (rawPath: string): boolean => rawPath === '/_mock/requests' || rawPath.startsWith('/_mock/requests/');

export interface Answer {
  trace: Trace;
  rawPath: string;
  rawQuery: string;
  body: Buffer;
  reply: Reply | null;
  outcome?: 'dropped' | 'abandoned';
  started: number;
  receivedReal: number;
  receivedSim: number;
}

function headerText(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  const s = Array.isArray(v) ? v.join(', ') : v;
  return s === undefined || s === '' ? undefined : s;
}

/** A header value kept in the log, unless it is some key's secret (sent in the wrong header): never a secret in the log. */
function safeValue(rt: Runtime, value: string | undefined): string | undefined {
  if (value === undefined || value.length < 40) return value; // a UUID nonce (36) is no secret (44): no scan on the usual path
  for (const k of Object.values(rt.state.keys)) if (k.secret === value || k.previous_secret === value) return '(a secret: not recorded)';
  for (const m of Object.values(rt.state.merchants)) if (m.webhook_secret === value) return '(a secret: not recorded)';
  return value;
}

function codesOf(reply: Reply | null): readonly string[] {
  const errors = (reply?.body as { errors?: Record<string, unknown> } | undefined)?.errors;
  if (!errors || typeof errors !== 'object') return [];
  return Object.values(errors).flatMap((v) => (Array.isArray(v) ? v.filter((c): c is string => typeof c === 'string' && /^[a-z][a-z0-9_]*$/.test(c)) : []));
}

/**
 * The headers that point a client at the log (issue 18 item 4): the request's id in it, and for a
 * refusal its diagnosis in one line (printable ASCII, at most 400 characters), which cardctl puts in
 * its hint and --verbose prints with the other headers.
 */
export function logHeaders(rt: Runtime, req: IncomingMessage, a: Omit<Answer, 'started' | 'outcome'> & { reply: Reply }): Record<string, string> {
  const log = rt.requestLog;
  if (!log || !a.trace.seq) return {};
  const out: Record<string, string> = { 'X-Cardctl-Mock-Request': requestId(a.trace.seq) };
  if (a.reply.status < 400 && !a.trace.fault) return out;
  try {
    const method = (req.method ?? 'GET').toUpperCase();
    a.trace.diagnosis = explain(rt, log, { trace: a.trace, reply: a.reply, method, rawPath: a.rawPath, body: a.body, receivedReal: a.receivedReal, receivedSim: a.receivedSim, plane: 'api' }, false);
  } catch {
    return out; // the log explains what it can when the request is recorded
  }
  const d = a.trace.diagnosis;
  if (d) out['X-Cardctl-Mock-Diagnosis'] = `${d.id}: ${d.message}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 400);
  return out;
}

export function recordRequest(rt: Runtime, req: IncomingMessage, a: Answer): void {
  const log = rt.requestLog;
  if (!log) return;
  try {
    const method = (req.method ?? 'GET').toUpperCase();
    const plane: 'api' | 'control' = a.rawPath === '/_mock' || a.rawPath.startsWith('/_mock/') ? 'control' : 'api';
    const rec = new LogRecord(a.trace.seq);
    rec.plane = plane;
    rec.method = method;
    rec.path = a.rawPath;
    rec.query = a.rawQuery;
    rec.status = a.reply && a.outcome !== 'abandoned' ? a.reply.status : null;
    if (a.reply && a.reply.status >= 400) rec.codes = codesOf(a.reply);
    rec.receivedReal = a.receivedReal;
    rec.receivedSim = a.receivedSim;
    rec.durationMs = performance.now() - a.started;
    rec.keyId = a.trace.keyId;
    rec.mode = a.trace.mode;
    rec.sourceAddress = req.socket.remoteAddress;
    rec.outcome = a.outcome;
    rec.setBody(a.body);
    if (plane === 'api') {
      rec.nonce = safeValue(rt, headerText(req, 'x-nonce'));
      rec.idempotencyKey = safeValue(rt, headerText(req, 'idempotency-key'));
    }
    if (a.reply && (a.reply.status >= 400 || a.trace.fault)) {
      const answered = { trace: a.trace, reply: a.reply, method, rawPath: a.rawPath, body: a.body, receivedReal: a.receivedReal, receivedSim: a.receivedSim, plane };
      rec.diagnosis = a.trace.diagnosis ?? explain(rt, log, answered, a.outcome === 'dropped');
    }
    log.add(rec);
  } catch (err) {
    process.stderr.write(`cardctl mock: could not record a request in the request log: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}
