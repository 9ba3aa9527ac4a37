// `cardctl webhooks listen` and `webhooks trigger`: a loopback receiver that verifies each
// delivery over its raw bytes with the endpoint secret (src/signing), prints one line per
// delivery, optionally forwards it unchanged to the user's app, and optionally registers itself
// on a running mock; and a trigger that asks the mock to record (and so deliver) an event.
// Lives outside src/commands because oclif treats every file there as a command.
// The secret is never printed; a body is parsed only after its signature matched.
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { CardctlError, usageError } from '../errors.js';
import { verifyWebhook, type WebhookVerdict } from '../signing/index.js';
import { isLoopbackHost } from '../mock/webhooks.js'; // the mock's rule for loopback endpoints, one copy

export const LISTEN_PATH = '/webhooks';
/** Largest delivery body read (the mock's own request limit). */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;
/** Spec "Delivery behavior": 15 s total, the same budget for the forward. */
export const FORWARD_TIMEOUT_MS = 15_000;
/** Largest forward answer body relayed to the sender. */
const MAX_RELAY_BYTES = 1024 * 1024;

const DELIVERY_HEADERS = ['Content-Type', 'X-Service-Event', 'X-Service-Delivery', 'X-Service-Signature'] as const;

export interface ListenOptions {
  port: number;
  host: string;
  forwardTo?: string;
  /** register the listener as a webhook endpoint of the running mock */
  mock: boolean;
  controlUrl?: string;
  /** stop after this many deliveries */
  maxEvents?: number;
  json: boolean;
  profile?: string;
  tolerance: number;
}

export interface ListenIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /** injected for tests; the real clock otherwise (Unix ms) */
  now?: () => number;
}

export type ListenReason = WebhookVerdict | 'body_too_large';

/** One NDJSON line (--json) per delivery. */
export interface DeliveryLine {
  received_at: string;
  delivery_id: string | null;
  /** the X-Service-Event header as sent */
  event: string | null;
  valid: boolean;
  reason: ListenReason;
  /** from the body, only once the signature matched; null otherwise */
  type: string | null;
  occurred_at: string | null;
  data: Record<string, unknown> | null;
  /** the status this listener answered the sender with */
  status: number;
  /** with --forward-to, for a verified delivery: the target's status (null when unreachable) */
  forwarded_status?: number | null;
  forward_error?: string;
}

// ---------------------------------------------------------------------------------------
// Inputs

function checkOptions(opts: ListenOptions): URL | undefined {
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw usageError(`--port must be 0 to 65535, not ${opts.port}.`, '0 picks a free port.');
  if (!isLoopbackHost(opts.host)) {
    throw usageError(`--host ${opts.host} is not a loopback address: the listener only binds to loopback.`, 'Use 127.0.0.1, ::1 or localhost.');
  }
  if (opts.maxEvents !== undefined && (!Number.isInteger(opts.maxEvents) || opts.maxEvents < 1)) throw usageError('--max-events must be a whole number, at least 1.');
  if (!Number.isInteger(opts.tolerance) || opts.tolerance < 0) throw usageError('--tolerance must be a whole number of seconds.', 'For example --tolerance 300.');
  if (opts.forwardTo === undefined) return undefined;
  let target: URL;
  try {
    target = new URL(opts.forwardTo);
  } catch {
    throw usageError(`--forward-to ${opts.forwardTo} is not an absolute URL.`, 'For example --forward-to http://localhost:3000/webhooks.');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw usageError(`--forward-to must be an http or https URL, not ${target.protocol}.`);
  if (target.username || target.password) throw usageError('--forward-to must not carry a user name or password.');
  return target;
}

interface SecretInfo {
  secret: string;
  /** for people: "CARDCTL_WEBHOOK_SECRET" or "profile NAME" (never the secret) */
  from: string;
}

async function loadSecret(opts: ListenOptions, env: NodeJS.ProcessEnv): Promise<SecretInfo> {
  const { resolveWebhookSecret } = await import('../profiles/resolve.js');
  try {
    const r = await resolveWebhookSecret({ profile: opts.profile, env });
    return { secret: r.secret, from: r.source === 'env' ? 'CARDCTL_WEBHOOK_SECRET' : `profile ${r.profile}` };
  } catch (err) {
    // The control plane does not hand out the mock's webhook secret (GET /_mock/webhook-endpoints
    // and the mock's record carry none), so with --mock say where it is.
    if (opts.mock && err instanceof CardctlError && err.code === 'no_webhook_secret') {
      throw new CardctlError(`${err.message.replace(/\.$/, '')}: the listener needs the mock's webhook secret to verify its deliveries.`, {
        kind: 'usage',
        code: 'no_webhook_secret',
        hint:
          'Start the mock with `cardctl mock start --save-profiles` and pass --profile mock-test (it holds the webhook secret), ' +
          'or set CARDCTL_WEBHOOK_SECRET to the webhook_secret of its `--json` banner.',
      });
    }
    throw err;
  }
}

// ---------------------------------------------------------------------------------------
// Forwarding

interface ForwardResult {
  status: number | null;
  error?: string;
  body?: Buffer;
  contentType?: string;
}

/** POSTs the raw body with the four delivery headers, unchanged; never throws. */
export function forwardDelivery(target: URL, body: Buffer, headers: Record<string, string>, timeoutMs = FORWARD_TIMEOUT_MS): { result: Promise<ForwardResult>; abort: () => void } {
  let req: http.ClientRequest | undefined;
  const result = new Promise<ForwardResult>((resolve) => {
    let settled = false;
    const finish = (r: ForwardResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      finish({ status: null, error: `no answer within ${timeoutMs / 1000} s` });
      req?.destroy();
    }, timeoutMs);
    const lib = target.protocol === 'https:' ? https : http;
    try {
      req = lib.request(
        target,
        { method: 'POST', agent: false, headers: { ...headers, 'Content-Length': String(body.length), Connection: 'close' } },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (c: Buffer) => {
            size += c.length;
            if (size <= MAX_RELAY_BYTES) chunks.push(c);
          });
          res.on('end', () => finish({ status: res.statusCode ?? 502, body: Buffer.concat(chunks), contentType: res.headers['content-type'] }));
          res.on('error', () => finish({ status: res.statusCode ?? null, body: Buffer.concat(chunks) }));
        },
      );
    } catch (err) {
      finish({ status: null, error: (err as Error).message });
      return;
    }
    req.on('error', (err: NodeJS.ErrnoException) => finish({ status: null, error: err.code ?? err.message }));
    req.end(body);
  });
  return { result, abort: () => req?.destroy() };
}

// ---------------------------------------------------------------------------------------
// Rendering

const scalarText = (v: unknown): string => (v === null || v === undefined ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** One line for people: time, event type, delivery id, verdict, data, forward status. */
export function formatDeliveryLine(line: DeliveryLine): string {
  const parts = [line.received_at, line.type ?? line.event ?? '(no event header)', line.delivery_id ?? '(no delivery id)'];
  if (line.valid) {
    parts.push('valid');
    for (const [k, v] of Object.entries(line.data ?? {})) parts.push(`${k}=${scalarText(v)}`);
  } else {
    parts.push(`INVALID (${line.reason})`);
  }
  if (line.forwarded_status !== undefined) {
    parts.push(line.forwarded_status === null ? `-> forward failed: ${line.forward_error ?? 'unreachable'}, answered ${line.status}` : `-> forwarded: ${line.forwarded_status}`);
  } else {
    parts.push(`-> ${line.status}`);
  }
  return parts.join('  ');
}

function reasonHint(reason: ListenReason, secretFrom: string): string {
  switch (reason) {
    case 'signature_mismatch':
      return `hint: signature_mismatch means the delivery was not signed with the secret from ${secretFrom}, or its body was changed on the way. Answered 400, so the sender retries.`;
    case 'malformed_header':
      return 'hint: malformed_header means X-Service-Signature is missing or not "t=<unix seconds>, v1=<hex>". Answered 400.';
    case 'timestamp_out_of_tolerance':
      return 'hint: timestamp_out_of_tolerance means the signature matches but t is too far from this clock: a replayed delivery or a wrong clock (raise --tolerance to accept it). Answered 400.';
    default:
      return `hint: the body is larger than ${MAX_BODY_BYTES} bytes; answered 413.`;
  }
}

// ---------------------------------------------------------------------------------------
// The listener

const header = (req: http.IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
};

function send(res: http.ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}): void {
  if (res.headersSent) return;
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(text ? { 'Content-Type': 'application/json' } : {}), 'Content-Length': String(Buffer.byteLength(text)), ...extra });
  res.end(text);
}

/** Reads the raw body; null when it is over the limit (the rest is drained). */
function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Runs the listener until --max-events deliveries were handled, or SIGINT/SIGTERM.
 * Resolves with the exit code: 0, or 3 when --max-events was reached and a delivery failed
 * verification. Errors before listening (no secret, no mock, port in use) are thrown.
 */
export async function runListen(opts: ListenOptions, io: ListenIO): Promise<number> {
  const forwardTarget = checkOptions(opts);
  const now = io.now ?? Date.now;
  const { secret, from: secretFrom } = await loadSecret(opts, io.env);
  // the mock of the profile in use (-p, else CARDCTL_PROFILE), whose webhook secret verifies: a newer mock signs with another
  const control = opts.mock ? await (await import('./mock/control-client.js')).resolveControl({ controlUrl: opts.controlUrl, profile: opts.profile, envProfile: true }, io.env) : undefined;

  let handled = 0;
  let failed = 0;
  let closing = false;
  const hinted = new Set<ListenReason>();
  const forwards = new Set<() => void>();
  let stop: (code: number) => void = () => {};
  const stopped = new Promise<number>((resolve) => (stop = resolve));

  const out = (line: DeliveryLine): void => {
    if (opts.json) io.stdout.write(JSON.stringify(line) + '\n');
    else io.stdout.write(formatDeliveryLine(line) + '\n');
    if (!line.valid && !hinted.has(line.reason)) {
      hinted.add(line.reason);
      io.stderr.write(reasonHint(line.reason, secretFrom) + '\n');
    }
  };

  /** Counts one delivery; once the last was answered, stops. */
  const counted = (res: http.ServerResponse, valid: boolean): void => {
    handled += 1;
    if (!valid) failed += 1;
    if (opts.maxEvents !== undefined && handled >= opts.maxEvents) {
      closing = true;
      const done = () => stop(failed > 0 ? 3 : 0);
      if (res.writableFinished) done();
      else res.once('close', done);
    }
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (closing) {
      req.resume();
      return send(res, 503, { received: false, reason: 'listener_stopping' }, { Connection: 'close' });
    }
    if (req.method !== 'POST') {
      req.resume();
      io.stderr.write(`ignored ${req.method} ${req.url}: only POST deliveries are handled (answered 405).\n`);
      return send(res, 405, { received: false, reason: 'method_not_allowed' }, { Allow: 'POST' });
    }
    const base: Pick<DeliveryLine, 'received_at' | 'delivery_id' | 'event'> = {
      received_at: new Date(now()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      delivery_id: header(req, 'X-Service-Delivery') ?? null,
      event: header(req, 'X-Service-Event') ?? null,
    };
    const body = await readBody(req);
    if (body === null) {
      const line: DeliveryLine = { ...base, valid: false, reason: 'body_too_large', type: null, occurred_at: null, data: null, status: 413 };
      send(res, 413, { received: false, reason: line.reason });
      out(line);
      return counted(res, false);
    }
    // The signature over the raw bytes first; nothing in the body is read before it matches.
    const verdict = verifyWebhook({ secret, header: header(req, 'X-Service-Signature') ?? '', body, now: Math.floor(now() / 1000), tolerance: opts.tolerance });
    if (!verdict.valid) {
      const line: DeliveryLine = { ...base, valid: false, reason: verdict.reason, type: null, occurred_at: null, data: null, status: 400 };
      send(res, 400, { received: false, reason: verdict.reason });
      out(line);
      return counted(res, false);
    }
    let parsed: Record<string, unknown> = {};
    try {
      const v: unknown = JSON.parse(body.toString('utf8'));
      if (v && typeof v === 'object' && !Array.isArray(v)) parsed = v as Record<string, unknown>;
    } catch {
      // signed but not JSON: still a verified delivery, shown without fields
    }
    const line: DeliveryLine = {
      ...base,
      valid: true,
      reason: 'ok',
      type: typeof parsed.type === 'string' ? parsed.type : null,
      occurred_at: typeof parsed.occurred_at === 'string' ? parsed.occurred_at : null,
      data: parsed.data && typeof parsed.data === 'object' && !Array.isArray(parsed.data) ? (parsed.data as Record<string, unknown>) : null,
      status: 200,
    };
    if (!forwardTarget) {
      send(res, 200, { received: true });
      out(line);
      return counted(res, true);
    }
    const headers: Record<string, string> = {};
    for (const name of DELIVERY_HEADERS) {
      const v = header(req, name);
      if (v !== undefined) headers[name] = v;
    }
    const fwd = forwardDelivery(forwardTarget, body, headers);
    forwards.add(fwd.abort);
    const r = await fwd.result;
    forwards.delete(fwd.abort);
    if (r.status === null) {
      line.status = 502;
      line.forwarded_status = null;
      line.forward_error = r.error ?? 'unreachable';
      send(res, 502, { received: false, reason: 'forward_failed', error: line.forward_error });
    } else {
      line.status = r.status;
      line.forwarded_status = r.status;
      if (!res.headersSent) {
        const relay = r.body ?? Buffer.alloc(0);
        res.writeHead(r.status, { ...(r.contentType && relay.length ? { 'Content-Type': r.contentType } : {}), 'Content-Length': String(relay.length) });
        res.end(relay);
      }
    }
    out(line);
    counted(res, true);
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      io.stderr.write(`error while handling a delivery: ${(err as Error).message}\n`);
      send(res, 500, { received: false, reason: 'listener_error' });
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });

  const closeServer = async (): Promise<void> => {
    closing = true;
    for (const abort of forwards) abort();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port, opts.host.replace(/^\[|\]$/g, ''), () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CardctlError(`port ${opts.port} on ${opts.host} is already in use.`, { kind: 'unavailable', hint: 'Pick another port, or --port 0 for a free one.' });
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES') throw usageError(`cannot listen on ${opts.host}:${opts.port} (${code}).`, 'Use 127.0.0.1 and a port above 1023, or --port 0.');
    throw err;
  }

  const address = server.address() as AddressInfo;
  const hostPart = net.isIPv6(address.address) ? `[${address.address}]` : address.address;
  const url = `http://${hostPart}:${address.port}${LISTEN_PATH}`;

  let endpointId: string | null = null;
  try {
    if (forwardTarget && isLoopbackHost(forwardTarget.hostname) && Number(forwardTarget.port || (forwardTarget.protocol === 'https:' ? 443 : 80)) === address.port) {
      throw usageError(`--forward-to ${opts.forwardTo} points at this listener itself.`, 'Forward to your application, on another port.');
    }
    if (control) {
      const { callControl } = await import('./mock/control-client.js');
      const ep = (await callControl(control, 'POST', '/webhook-endpoints', { url })) as { id?: string; merchant_id?: string };
      endpointId = ep.id ?? null;
      io.stderr.write(`Registered ${url} on the mock at ${control.url} as webhook endpoint ${endpointId} (merchant ${ep.merchant_id ?? '?'}).\n`);
    }
  } catch (err) {
    await closeServer();
    throw err;
  }

  // Installed once listening; they stay installed (as in `mock start`): a second delivery of
  // the signal (conf's exit hook re-raises it) must not kill the process mid-close.
  const onSignal = (): void => stop(0);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  io.stderr.write(
    `Listening on ${url}; verifying with the webhook secret from ${secretFrom} (tolerance ${opts.tolerance} s)` +
      (forwardTarget ? `; forwarding verified deliveries to ${forwardTarget.href}` : '') +
      (opts.maxEvents !== undefined ? `; stopping after ${opts.maxEvents} deliver${opts.maxEvents === 1 ? 'y' : 'ies'}` : '; Ctrl-C to stop') +
      '.\n',
  );
  if (opts.json) io.stdout.write(JSON.stringify({ listening: url, endpoint_id: endpointId, forward_to: forwardTarget?.href ?? null }) + '\n');

  const code = await stopped;
  await closeServer();
  if (endpointId && control) {
    // it registered itself: it removes itself, so the mock does not keep retrying a closed port
    const { callControl } = await import('./mock/control-client.js');
    try {
      await callControl(control, 'DELETE', `/webhook-endpoints/${encodeURIComponent(endpointId)}`);
      io.stderr.write(`Removed webhook endpoint ${endpointId} from the mock.\n`);
    } catch (err) {
      io.stderr.write(`Endpoint ${endpointId} stays registered on the mock (${(err as Error).message.replace(/\.$/, '')}): remove it with \`cardctl mock webhook-endpoints remove ${endpointId}\`.\n`);
    }
  }
  if (!opts.json || failed > 0) io.stderr.write(`Stopped after ${handled} deliver${handled === 1 ? 'y' : 'ies'}${failed > 0 ? `, ${failed} failed verification` : ''}.\n`);
  return code;
}

// ---------------------------------------------------------------------------------------
// `cardctl webhooks trigger`

export interface TriggerOptions {
  type: string;
  data?: string;
  /** --mode; default: the mode of the profile that found the mock (-p, CARDCTL_PROFILE), else test */
  mode?: 'test' | 'live';
  merchant?: string;
  controlUrl?: string;
  /** -p: the mock this profile (saved by `mock start --save-profiles`) points at */
  profile?: string;
  env?: NodeJS.ProcessEnv;
}

export interface TriggerResult {
  event: Record<string, unknown>;
  /** enabled endpoints of the event's merchant, when the mock said; for the note */
  enabledEndpoints?: number;
}

export async function runTrigger(opts: TriggerOptions): Promise<TriggerResult> {
  const { EVENT_TYPES } = await import('../contract/resources.js');
  const types: readonly string[] = EVENT_TYPES;
  if (!types.includes(opts.type)) {
    const typed = opts.type.toLowerCase();
    const family = typed.split('.')[0] ?? '';
    const prefixed = types.filter((t) => typed.length > 0 && t.startsWith(typed));
    const near = prefixed.length > 0 ? prefixed : types.filter((t) => t.startsWith(family + '.'));
    throw new CardctlError(`unknown event type "${opts.type}".`, {
      kind: 'usage',
      code: 'unknown_event_type',
      hint: `${near.length > 0 ? `Did you mean ${near.join(', ')}? ` : ''}The event types are: ${types.join(', ')}.`,
    });
  }
  let data: unknown;
  if (opts.data !== undefined) {
    try {
      data = JSON.parse(opts.data);
    } catch {
      data = undefined;
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) {
      throw usageError('--data must be a JSON object.', `For example --data '{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM"}' (without --data the mock makes sample data).`);
    }
  }
  const { resolveControl, callControl } = await import('./mock/control-client.js');
  const target = await resolveControl({ controlUrl: opts.controlUrl, profile: opts.profile, envProfile: true }, opts.env ?? process.env);
  // `-p mock-live` means live: the event is in the mode of the key the profile holds
  const mode = opts.mode ?? target.profile?.mode ?? 'test';
  const event = (await callControl(target, 'POST', '/events', { type: opts.type, data, mode, merchant_id: opts.merchant })) as Record<string, unknown>;
  // The deliveries the mock queued for this event, one per enabled endpoint when it was recorded
  // (the log keeps them, even if a listener got it and removed its endpoint meanwhile).
  let enabledEndpoints: number | undefined;
  try {
    const deliveries = (await callControl(target, 'GET', `/webhook-deliveries?event_id=${encodeURIComponent(String(event.id))}`)) as Array<{ event_id?: string }>;
    enabledEndpoints = deliveries.filter((d) => d.event_id === event.id).length; // a mock without the filter sends all
  } catch {
    // only for the note
  }
  return { event, enabledEndpoints };
}

export function triggerNote(r: TriggerResult): string | undefined {
  if (r.enabledEndpoints === undefined) return undefined;
  if (r.enabledEndpoints === 0) {
    return `note: merchant ${String(r.event.merchant_id)} has no enabled webhook endpoint, so nothing is delivered: run \`cardctl webhooks listen --mock\` first.`;
  }
  return `Delivering to ${r.enabledEndpoints} enabled endpoint${r.enabledEndpoints === 1 ? '' : 's'} (\`cardctl mock webhook-deliveries\` shows the attempts).`;
}
