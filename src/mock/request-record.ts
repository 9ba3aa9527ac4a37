// Turns one answered request into a record of the request log, with the diagnosis of a refusal.
// Runs after the answer is sent, in the same turn of the event loop (so a client that reads the
// log after its answer finds the record). A failure here is logged and never reaches the client.
import type { IncomingMessage } from 'node:http';
import type { Reply } from './envelope.js';
import type { Trace } from './refusal.js';
import { LogRecord, requestId, type Diagnosis } from './request-log.js';
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

const NOT_RECORDED = '(a secret: not recorded)';

/** Every secret of this mock: each key's secret (and previous one), each merchant's webhook secret. */
function mockSecrets(rt: Runtime): string[] {
  const out: string[] = [];
  for (const k of Object.values(rt.state.keys)) {
    if (k.secret) out.push(k.secret);
    if (k.previous_secret) out.push(k.previous_secret);
  }
  for (const m of Object.values(rt.state.merchants)) if (m.webhook_secret) out.push(m.webhook_secret);
  return out;
}

/** A header value kept in the log, unless it is some key's secret (sent in the wrong header): never a secret in the log. */
function safeValue(rt: Runtime, value: string | undefined): string | undefined {
  if (value === undefined || value.length < 40) return value; // a UUID nonce (36) is no secret (44): no scan on the usual path
  return mockSecrets(rt).includes(value) ? NOT_RECORDED : value;
}

/** The forms a secret takes in a path, a query or a body: as is, and percent-encoded (either case). */
function secretForms(rt: Runtime): string[] {
  return mockSecrets(rt).flatMap((s) => {
    const encoded = encodeURIComponent(s);
    return encoded === s ? [s] : [s, encoded, encoded.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())];
  });
}

/** The text with every secret form in it replaced; the same string when there is none. */
function withoutSecrets(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) if (out.includes(f)) out = out.split(f).join(NOT_RECORDED);
  return out;
}

/**
 * A secret sent where it does not belong (a query parameter, a path, a body: a client's own
 * mistake) is not kept either: the record's path, query, body text and diagnosis say
 * `(a secret: not recorded)` instead. Texts shorter than a secret are not scanned.
 */
function redactRecord(rt: Runtime, rec: LogRecord): void {
  if (rec.path.length + rec.query.length + (rec.bodyText?.length ?? 0) < 40) return;
  const forms = secretForms(rt);
  const hit = (t: string | null): boolean => t !== null && forms.some((f) => t.includes(f));
  if (!hit(rec.path) && !hit(rec.query) && !hit(rec.bodyText) && !hit(rec.diagnosis ? JSON.stringify(rec.diagnosis) : null)) return;
  rec.path = withoutSecrets(rec.path, forms);
  rec.query = withoutSecrets(rec.query, forms);
  if (rec.bodyText !== null) rec.bodyText = withoutSecrets(rec.bodyText, forms);
  if (rec.diagnosis) rec.diagnosis = JSON.parse(withoutSecrets(JSON.stringify(rec.diagnosis), forms)) as Diagnosis;
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
  if (d) out['X-Cardctl-Mock-Diagnosis'] = withoutSecrets(`${d.id}: ${d.message}`, secretForms(rt)).replace(/[^\x20-\x7e]/g, '?').slice(0, 400);
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
    redactRecord(rt, rec);
    log.add(rec);
  } catch (err) {
    log.forget(a.trace.seq); // not awaited by a follower forever
    process.stderr.write(`cardctl mock: could not record a request in the request log: ${err instanceof Error ? err.message : String(err)}\n`);
  }
}
