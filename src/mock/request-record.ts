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
export const isLogRead = (rawPath: string): boolean =>
  rawPath === '/_mock/requests' || rawPath.startsWith('/_mock/requests/');

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

/**
 * Never a secret in a record (issue 29): every string of it passes once through the mock's
 * redactor (redaction.ts), which replaces each secret the mock holds, in every form a client
 * might send it, wherever it appears: a nonce, an idempotency key, a key id, a path, a query,
 * the body (a secret cut by the truncation too) and the diagnosis (its canonical string).
 */
function redactRecord(rt: Runtime, rec: LogRecord): void {
  const r = rt.redactor;
  rec.path = r.redact(rec.path);
  rec.query = r.redact(rec.query);
  if (rec.bodyText !== null) rec.bodyText = rec.bodyTruncated ? r.redactCut(rec.bodyText) : r.redact(rec.bodyText);
  if (rec.nonce !== undefined) rec.nonce = r.redact(rec.nonce);
  if (rec.idempotencyKey !== undefined) rec.idempotencyKey = r.redact(rec.idempotencyKey);
  if (rec.keyId !== undefined) rec.keyId = r.redact(rec.keyId);
  if (rec.codes.length) rec.codes = rec.codes.map((c) => r.redact(c));
  if (rec.diagnosis) rec.diagnosis = r.redactValue(rec.diagnosis);
}

function codesOf(reply: Reply | null): readonly string[] {
  const errors = (reply?.body as { errors?: Record<string, unknown> } | undefined)?.errors;
  if (!errors || typeof errors !== 'object') return [];
  return Object.values(errors).flatMap((v) =>
    Array.isArray(v) ? v.filter((c): c is string => typeof c === 'string' && /^[a-z][a-z0-9_]*$/.test(c)) : [],
  );
}

/**
 * The headers that point a client at the log (issue 18 item 4): the request's id in it, and for a
 * refusal its diagnosis in one line (printable ASCII, at most 400 characters), which cardctl puts in
 * its hint and --verbose prints with the other headers.
 */
export function logHeaders(
  rt: Runtime,
  req: IncomingMessage,
  a: Omit<Answer, 'started' | 'outcome'> & { reply: Reply },
): Record<string, string> {
  const log = rt.requestLog;
  if (!log || !a.trace.seq) return {};
  const out: Record<string, string> = { 'X-Cardctl-Mock-Request': requestId(a.trace.seq) };
  if (a.reply.status < 400 && !a.trace.fault) return out;
  try {
    const method = (req.method ?? 'GET').toUpperCase();
    a.trace.diagnosis = explain(
      rt,
      log,
      {
        trace: a.trace,
        reply: a.reply,
        method,
        rawPath: a.rawPath,
        body: a.body,
        receivedReal: a.receivedReal,
        receivedSim: a.receivedSim,
        plane: 'api',
      },
      false,
    );
  } catch {
    return out; // the log explains what it can when the request is recorded
  }
  const d = a.trace.diagnosis;
  if (d)
    out['X-Cardctl-Mock-Diagnosis'] = rt.redactor
      .redact(`${d.id}: ${d.message}`)
      .replace(/[^\x20-\x7e]/g, '?')
      .slice(0, 400);
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
      rec.nonce = headerText(req, 'x-nonce');
      rec.idempotencyKey = headerText(req, 'idempotency-key');
    }
    if (a.reply && (a.reply.status >= 400 || a.trace.fault)) {
      const answered = {
        trace: a.trace,
        reply: a.reply,
        method,
        rawPath: a.rawPath,
        body: a.body,
        receivedReal: a.receivedReal,
        receivedSim: a.receivedSim,
        plane,
      };
      rec.diagnosis = a.trace.diagnosis ?? explain(rt, log, answered, a.outcome === 'dropped');
    }
    redactRecord(rt, rec);
    log.add(rec);
  } catch (err) {
    log.forget(a.trace.seq); // not awaited by a follower forever
    process.stderr.write(
      `cardctl mock: could not record a request in the request log: ${err instanceof Error ? err.message : String(err)}\n`,
    );
  }
}
