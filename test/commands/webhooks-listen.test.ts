// `cardctl webhooks listen` and `webhooks trigger` through the built CLI, against the embedded
// mock started in-process: real deliveries from the mock, real signatures, real sockets.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { signWebhook } from '../../src/signing/index.js';
import {
  approvedCustomer,
  ctl,
  issueCard,
  nowSeconds,
  rawRequest,
  rawSocket,
  type MockHandle,
} from '../helpers/api.js';
import { BIN, ROOT, makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;

const children: ChildProcessWithoutNullStreams[] = [];
const servers: http.Server[] = [];

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 67, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    ...sb.env,
    CARDCTL_MOCK_URL: mock.controlUrl,
    CARDCTL_MOCK_TOKEN: mock.controlToken,
    CARDCTL_WEBHOOK_SECRET: mock.webhookSecret,
  };
});

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
  await mock?.close();
  sb?.cleanup();
});

/** The environment of the developer's shell without CARDCTL_* variables, plus `extra`. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('CARDCTL_')) out[k] = v;
  return { ...out, NO_COLOR: '1', ...extra };
}

/** Bounded wait for something the child does on its own; the bound only turns a hang into a message. */
async function until<T>(get: () => T | undefined, what: () => string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface Listener {
  child: ChildProcessWithoutNullStreams;
  /** parsed stdout lines so far */
  lines: any[];
  stderr: () => string;
  exited: Promise<number>;
  /** the {"listening"} line */
  ready: Promise<{ listening: string; endpoint_id: string | null; forward_to: string | null }>;
  /** waits for the n-th delivery line (1-based) */
  delivery: (n: number) => Promise<any>;
}

function listen(args: string[], extraEnv: Record<string, string> = env): Listener {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--json', ...args], {
    cwd: ROOT,
    env: childEnv(extraEnv),
  });
  children.push(child);
  const lines: any[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  let code: number | undefined;
  const exited = new Promise<number>((resolve) =>
    child.on('close', (c, signal) => {
      code = c ?? (signal ? 128 : 1);
      resolve(code);
    }),
  );
  const describe = (what: string) => () =>
    `${what}; exit ${code ?? '(running)'}; stdout ${JSON.stringify(lines)}; stderr ${stderr}`;
  const ready = until(() => lines[0], describe('the listening line'));
  const delivery = (n: number) => until(() => lines[n], describe(`delivery line ${n}`));
  return { child, lines, stderr: () => stderr, exited, ready, delivery };
}

/** `webhooks listen` without --json: the lines people read (stdout), its URL from the stderr banner. */
function listenText(args: string[], extraEnv: Record<string, string> = env) {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', ...args], { cwd: ROOT, env: childEnv(extraEnv) });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  let code: number | undefined;
  const exited = new Promise<number>((resolve) =>
    child.on('close', (c, signal) => {
      code = c ?? (signal ? 128 : 1);
      resolve(code);
    }),
  );
  const state = () => `exit ${code ?? '(running)'}; stdout ${stdout}; stderr ${stderr}`;
  const port = until(
    () => /Listening on http:\/\/127\.0\.0\.1:(\d+)\/webhooks;/.exec(stderr)?.[1],
    () => `the listening line; ${state()}`,
  ).then(Number);
  return {
    child,
    exited,
    port,
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () => stdout.split('\n').filter(Boolean),
  };
}

/** A forward target that answers every POST with `status` and `body`, recording what it got. */
async function forwardTarget(status: number, body: string, contentType: string) {
  const got: Array<{ headers: http.IncomingHttpHeaders; body: Buffer }> = [];
  const target = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(status, { 'Content-Type': contentType });
      res.end(body);
    });
  });
  servers.push(target);
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  return { got, url: `http://127.0.0.1:${(target.address() as { port: number }).port}/app/hooks` };
}

/** A port that was free a moment ago. */
async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

function deliveryHeaders(
  body: Buffer | string,
  secret: string,
  deliveryId: string,
  event = 'card.issued',
): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'X-Service-Event': event,
    'X-Service-Delivery': deliveryId,
    'X-Service-Signature': signWebhook(secret, body, nowSeconds()),
  };
}

const portOf = (url: string): number => Number(new URL(url).port);

describe('webhooks listen --mock', () => {
  it('registers itself on the mock, verifies and prints each real delivery as NDJSON, and exits 0 after --max-events', async () => {
    // created before the listener exists, so its KYC events are not delivered to it
    const customer = await approvedCustomer(mock);
    const l = listen(['--mock', '--max-events', '2']);
    const ready = await l.ready;
    expect(ready.listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    expect(ready.endpoint_id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    const endpoints = await ctl<Array<{ id: string; url: string; enabled: boolean }>>(
      mock,
      'GET',
      '/webhook-endpoints',
    );
    expect(endpoints).toContainEqual(
      expect.objectContaining({ id: ready.endpoint_id, url: ready.listening, enabled: true }),
    );
    expect(l.stderr()).toContain(`webhook endpoint ${ready.endpoint_id}`);
    expect(l.stderr()).toContain('verifying with the webhook secret from CARDCTL_WEBHOOK_SECRET');
    expect(l.stderr()).not.toContain(mock.webhookSecret);

    // 1: `webhooks trigger`
    const trig = await sb.run(['webhooks', 'trigger', 'card.issued', '--json'], { env });
    expect(trig.code, trig.stderr).toBe(0);
    const event = JSON.parse(trig.stdout);
    expect(event).toMatchObject({ type: 'card.issued', mode: 'test', merchant_id: mock.merchantId });
    expect(trig.stderr).toContain('Delivering to 1 enabled endpoint');
    const first = await l.delivery(1);
    const deliveries = await ctl<
      Array<{
        id: string;
        event_id: string;
        endpoint_id: string;
        state: string;
        attempts: Array<{ status: number | null }>;
      }>
    >(mock, 'GET', '/webhook-deliveries');
    const sent = deliveries.find((d) => d.event_id === event.id && d.endpoint_id === ready.endpoint_id)!;
    expect(sent).toBeDefined();
    expect(first).toEqual({
      received_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      delivery_id: sent.id,
      event: 'card.issued',
      valid: true,
      reason: 'ok',
      type: 'card.issued',
      occurred_at: event.occurred_at,
      data: event.data,
      status: 200,
    });

    // 2: a real API action: issuing a card records card.issued with the new card's id
    const issued = await issueCard(mock, { customerId: customer.id, amount: 1000 });
    expect(issued.status, issued.raw.toString('utf8')).toBe(201);
    const second = await l.delivery(2);
    expect(second).toMatchObject({
      valid: true,
      reason: 'ok',
      type: 'card.issued',
      event: 'card.issued',
      data: { card_id: issued.body.data.id },
      status: 200,
    });
    expect(second.delivery_id).not.toBe(first.delivery_id);

    expect(await l.exited, l.stderr()).toBe(0);
    expect(l.lines).toHaveLength(3);
    // the mock records each attempt once it has read the answer
    let after: Array<{ id: string; state: string; attempts: Array<{ status: number | null }> }> = [];
    const ids = [first.delivery_id, second.delivery_id];
    const done = () => ids.every((id) => after.find((d) => d.id === id)?.state !== 'pending');
    for (let i = 0; i < 200 && (i === 0 || !done()); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 25));
      after = await ctl(mock, 'GET', '/webhook-deliveries');
    }
    for (const id of ids) {
      expect(after.find((d) => d.id === id)).toMatchObject({
        state: 'succeeded',
        attempts: [expect.objectContaining({ status: 200 })],
      });
    }
    // it registered itself, so it removed itself: the mock does not keep retrying a closed port
    expect(l.stderr()).toContain(`Removed webhook endpoint ${ready.endpoint_id} from the mock.`);
    const left = await ctl<Array<{ id: string }>>(mock, 'GET', '/webhook-endpoints');
    expect(left.map((e) => e.id)).not.toContain(ready.endpoint_id);
  });
});

describe('webhooks listen: verification', () => {
  it('answers 405 to a non-POST (not counted), 400 to a delivery signed with another secret, prints it invalid, and --max-events 1 exits 3', async () => {
    const l = listen(['--max-events', '1']);
    const { listening } = await l.ready;
    const port = portOf(listening);
    const get = await rawRequest({ method: 'GET', path: '/webhooks', port });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');

    const body =
      '{"type":"card.issued","occurred_at":"2026-11-22T10:00:00Z","data":{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM"}}';
    const headers = deliveryHeaders(body, 'whsec_not_the_endpoint_secret_0123456789', '01JD2QA1B2C3D4E5F6G7H8J9DL');
    const res = await rawRequest({ method: 'POST', path: '/webhooks', port, headers, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ received: false, reason: 'signature_mismatch' });
    const line = await l.delivery(1);
    expect(line).toMatchObject({
      delivery_id: '01JD2QA1B2C3D4E5F6G7H8J9DL',
      event: 'card.issued',
      valid: false,
      reason: 'signature_mismatch',
      type: null,
      occurred_at: null,
      data: null,
      status: 400,
    });
    expect(await l.exited, l.stderr()).toBe(3);
    expect(l.stderr()).toContain('signature_mismatch means');
    expect(l.stderr()).toContain('ignored GET /webhooks');
  });

  it('SIGTERM stops it cleanly with exit 0', async () => {
    const l = listen([]);
    await l.ready;
    l.child.kill('SIGTERM');
    expect(await l.exited, l.stderr()).toBe(0);
  });
});

describe('webhooks listen --forward-to', () => {
  it("forwards exactly the raw bytes and the four delivery headers, and answers the sender with the target's status", async () => {
    const got: Array<{ method: string; headers: http.IncomingHttpHeaders; body: Buffer }> = [];
    const target = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        got.push({ method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks) });
        res.writeHead(202, { 'Content-Type': 'application/json' });
        res.end('{"queued":true}');
      });
    });
    servers.push(target);
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const targetUrl = `http://127.0.0.1:${(target.address() as { port: number }).port}/app/hooks`;

    const l = listen(['--forward-to', targetUrl, '--max-events', '1']);
    const ready = await l.ready;
    expect(ready.forward_to).toBe(targetUrl);
    // not compact JSON, with non-ASCII text: any re-serialization would change the bytes
    const body = Buffer.from(
      '{ "type": "card.issued",\n  "occurred_at": "2026-11-22T10:00:00Z", "data": {"card_id": "01JD2QA1B2C3D4E5F6G7H8J9KM", "note": "caf\u00e9"} }\n',
      'utf8',
    );
    const headers = deliveryHeaders(body, mock.webhookSecret, '01JD2QA1B2C3D4E5F6G7H8J9FW');
    const res = await rawRequest({ method: 'POST', path: '/webhooks', port: portOf(ready.listening), headers, body });
    expect(res.status).toBe(202);
    expect(res.raw.toString('utf8')).toBe('{"queued":true}');

    expect(got).toHaveLength(1);
    expect(got[0]!.method).toBe('POST');
    expect(got[0]!.body.equals(body)).toBe(true);
    expect(got[0]!.headers).toMatchObject({
      'content-type': headers['Content-Type'],
      'x-service-event': headers['X-Service-Event'],
      'x-service-delivery': headers['X-Service-Delivery'],
      'x-service-signature': headers['X-Service-Signature'],
    });
    const line = await l.delivery(1);
    expect(line).toMatchObject({
      delivery_id: '01JD2QA1B2C3D4E5F6G7H8J9FW',
      valid: true,
      type: 'card.issued',
      data: { card_id: '01JD2QA1B2C3D4E5F6G7H8J9KM', note: 'café' },
      status: 202,
      forwarded_status: 202,
    });
    expect(await l.exited, l.stderr()).toBe(0);
    expect(l.stderr()).toContain(`forwarding verified deliveries to ${targetUrl}`);
    // with --json and every delivery verified, stderr has no closing count
    expect(l.stderr()).not.toContain('Stopped after');
  });

  it('answers 502 when the target is unreachable and prints the failure', async () => {
    // a port that was free a moment ago: nothing listens there
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const freePort = (probe.address() as { port: number }).port;
    await new Promise<void>((r) => probe.close(() => r()));

    const l = listen(['--forward-to', `http://127.0.0.1:${freePort}/hooks`, '--max-events', '1']);
    const { listening } = await l.ready;
    const body =
      '{"type":"deposit.credited","occurred_at":"2026-11-22T10:00:00Z","data":{"deposit_id":"01JD2QA1B2C3D4E5F6G7H8J9KM","credited_amount_minor":500}}';
    const res = await rawRequest({
      method: 'POST',
      path: '/webhooks',
      port: portOf(listening),
      headers: deliveryHeaders(body, mock.webhookSecret, '01JD2QA1B2C3D4E5F6G7H8J9GX', 'deposit.credited'),
      body,
    });
    expect(res.status).toBe(502);
    const line = await l.delivery(1);
    expect(line).toMatchObject({
      valid: true,
      type: 'deposit.credited',
      status: 502,
      forwarded_status: null,
      forward_error: 'ECONNREFUSED',
    });
    expect(await l.exited, l.stderr()).toBe(0);
  });
});

describe('webhooks listen: lines for people (no --json)', () => {
  it('prints one line per delivery with its verdict and data, a hint once per reason, 413 for a body over the limit, 400 to bytes that are not HTTP, and counts the failures when it stops', async () => {
    const l = listenText(['--max-events', '7']);
    const port = await l.port;
    expect(l.stderr()).toContain(
      'verifying with the webhook secret from CARDCTL_WEBHOOK_SECRET (tolerance 300 s); stopping after 7 deliveries.',
    );
    const secret = mock.webhookSecret;
    const post = (body: Buffer | string, headers: Record<string, string>) =>
      rawRequest({ method: 'POST', path: '/webhooks', port, headers, body });

    // not HTTP: answered 400 by the server itself, not a delivery
    const garbage = await rawSocket(port, Buffer.from('NOT HTTP AT ALL\r\n\r\n'));
    expect(garbage.toString('latin1')).toMatch(/^HTTP\/1\.1 400 Bad Request/);

    // 1: valid, with scalar, null and object data
    const valid =
      '{"type":"card.issued","occurred_at":"2026-11-22T10:00:00Z","data":{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM","note":null,"limits":{"daily":5}}}';
    const r1 = await post(valid, deliveryHeaders(valid, secret, '01JD2QA1B2C3D4E5F6G7H8J9A1'));
    expect([r1.status, r1.body]).toEqual([200, { received: true }]);
    // 2: signed but not JSON: still verified, shown without fields
    const r2 = await post('not json', deliveryHeaders('not json', secret, '01JD2QA1B2C3D4E5F6G7H8J9A2', 'card.frozen'));
    expect(r2.status).toBe(200);
    // 3 and 4: signed with another secret, twice: one hint
    const other = 'whsec_not_the_endpoint_secret_0123456789';
    for (const id of ['01JD2QA1B2C3D4E5F6G7H8J9A3', '01JD2QA1B2C3D4E5F6G7H8J9A4']) {
      const r = await post(valid, deliveryHeaders(valid, other, id));
      expect([r.status, r.body]).toEqual([400, { received: false, reason: 'signature_mismatch' }]);
    }
    // 5: no headers at all
    const r5 = await post(valid, { 'Content-Type': 'application/json' });
    expect([r5.status, r5.body]).toEqual([400, { received: false, reason: 'malformed_header' }]);
    // 6: signed 400 s ago, beyond --tolerance 300
    const r6 = await post(valid, {
      ...deliveryHeaders(valid, secret, '01JD2QA1B2C3D4E5F6G7H8J9A6'),
      'X-Service-Signature': signWebhook(secret, valid, nowSeconds() - 400),
    });
    expect([r6.status, r6.body]).toEqual([400, { received: false, reason: 'timestamp_out_of_tolerance' }]);
    // 7: over the 6 MiB limit
    const big = Buffer.alloc(7 * 1024 * 1024, 0x20);
    const r7 = await post(big, deliveryHeaders(big, secret, '01JD2QA1B2C3D4E5F6G7H8J9A7'));
    expect([r7.status, r7.body]).toEqual([413, { received: false, reason: 'body_too_large' }]);

    expect(await l.exited, l.stderr()).toBe(3);
    const at = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ';
    const expected = [
      'card.issued  01JD2QA1B2C3D4E5F6G7H8J9A1  valid  card_id=01JD2QA1B2C3D4E5F6G7H8J9KM  note=-  limits={"daily":5}  -> 200',
      'card.frozen  01JD2QA1B2C3D4E5F6G7H8J9A2  valid  -> 200',
      'card.issued  01JD2QA1B2C3D4E5F6G7H8J9A3  INVALID (signature_mismatch)  -> 400',
      'card.issued  01JD2QA1B2C3D4E5F6G7H8J9A4  INVALID (signature_mismatch)  -> 400',
      '(no event header)  (no delivery id)  INVALID (malformed_header)  -> 400',
      'card.issued  01JD2QA1B2C3D4E5F6G7H8J9A6  INVALID (timestamp_out_of_tolerance)  -> 400',
      'card.issued  01JD2QA1B2C3D4E5F6G7H8J9A7  INVALID (body_too_large)  -> 413',
    ];
    expect(l.lines()).toHaveLength(expected.length);
    l.lines().forEach((line, i) =>
      expect(line).toMatch(new RegExp(`^${at}  ${expected[i]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)),
    );
    const err = l.stderr();
    expect(err.split('signature_mismatch means').length - 1).toBe(1);
    expect(err).toContain('malformed_header means');
    expect(err).toContain('timestamp_out_of_tolerance means');
    expect(err).toContain(`larger than ${6 * 1024 * 1024} bytes; answered 413`);
    expect(err).toContain('Stopped after 7 deliveries, 5 failed verification.');
    expect(err).not.toContain(secret);
  });

  it("--forward-to: relays the target's status and body, forwards nothing unverified, and says when the target cannot be reached", async () => {
    const target = await forwardTarget(500, 'boom', 'text/plain');
    const l = listenText(['--forward-to', target.url, '--max-events', '2']);
    const port = await l.port;
    expect(l.stderr()).toContain(`; forwarding verified deliveries to ${target.url}; stopping after 2 deliveries.`);
    const body =
      '{"type":"card.issued","occurred_at":"2026-11-22T10:00:00Z","data":{"card_id":"01JD2QA1B2C3D4E5F6G7H8J9KM"}}';
    const ok = await rawRequest({
      method: 'POST',
      path: '/webhooks',
      port,
      headers: deliveryHeaders(body, mock.webhookSecret, '01JD2QA1B2C3D4E5F6G7H8J9B1'),
      body,
    });
    expect(ok.status).toBe(500);
    expect(ok.headers['content-type']).toBe('text/plain');
    expect(ok.raw.toString('utf8')).toBe('boom');
    const bad = await rawRequest({
      method: 'POST',
      path: '/webhooks',
      port,
      headers: deliveryHeaders(body, 'whsec_not_the_endpoint_secret_0123456789', '01JD2QA1B2C3D4E5F6G7H8J9B2'),
      body,
    });
    expect(bad.status).toBe(400);
    expect(await l.exited, l.stderr()).toBe(3);
    expect(target.got).toHaveLength(1);
    expect(l.lines()[0]).toMatch(
      /  card\.issued  01JD2QA1B2C3D4E5F6G7H8J9B1  valid  card_id=01JD2QA1B2C3D4E5F6G7H8J9KM  -> forwarded: 500$/,
    );
    expect(l.lines()[1]).toMatch(/  01JD2QA1B2C3D4E5F6G7H8J9B2  INVALID \(signature_mismatch\)  -> 400$/);
    expect(l.stderr()).toContain('Stopped after 2 deliveries, 1 failed verification.');

    const gone = listenText(['--forward-to', `http://127.0.0.1:${await freePort()}/hooks`, '--max-events', '1']);
    const res = await rawRequest({
      method: 'POST',
      path: '/webhooks',
      port: await gone.port,
      headers: deliveryHeaders(body, mock.webhookSecret, '01JD2QA1B2C3D4E5F6G7H8J9B3'),
      body,
    });
    expect([res.status, res.body]).toEqual([502, { received: false, reason: 'forward_failed', error: 'ECONNREFUSED' }]);
    expect(await gone.exited, gone.stderr()).toBe(0);
    expect(gone.lines()[0]).toMatch(
      /  01JD2QA1B2C3D4E5F6G7H8J9B3  valid  card_id=01JD2QA1B2C3D4E5F6G7H8J9KM  -> forward failed: ECONNREFUSED, answered 502$/,
    );
    expect(gone.stderr()).toContain('Stopped after 1 delivery.');
  });
});

describe('webhooks listen: stopping', () => {
  it('SIGINT removes the endpoint it registered on the mock; when the mock is gone by then, it says how to remove it', async () => {
    const l = listen(['--mock']);
    const { endpoint_id } = await l.ready;
    l.child.kill('SIGINT');
    expect(await l.exited, l.stderr()).toBe(0);
    expect(l.stderr()).toContain(`Removed webhook endpoint ${endpoint_id} from the mock.`);
    expect((await ctl<Array<{ id: string }>>(mock, 'GET', '/webhook-endpoints')).map((e) => e.id)).not.toContain(
      endpoint_id,
    );

    const other = (await startMock({ port: 0, seed: 68, providerLatencyMs: 0 })) as unknown as MockHandle;
    let closed = false;
    try {
      const l2 = listen(['--mock'], {
        ...sb.env,
        CARDCTL_MOCK_URL: other.controlUrl,
        CARDCTL_MOCK_TOKEN: other.controlToken,
        CARDCTL_WEBHOOK_SECRET: other.webhookSecret,
      });
      const ready = await l2.ready;
      await other.close();
      closed = true;
      l2.child.kill('SIGTERM');
      expect(await l2.exited, l2.stderr()).toBe(0);
      expect(l2.stderr()).toContain(`Endpoint ${ready.endpoint_id} stays registered on the mock (`);
      expect(l2.stderr()).toContain(`remove it with \`cardctl mock webhook-endpoints remove ${ready.endpoint_id}\``);
      expect(l2.stderr()).not.toContain(other.webhookSecret);
    } finally {
      if (!closed) await other.close();
    }
  });
});

describe('webhooks listen: Ctrl-C with connections open', () => {
  it('SIGINT closes the keep-alive and half-sent connections it holds, exits 0, and its port is closed', async () => {
    const l = listen([]);
    const { listening: url } = await l.ready;
    const port = portOf(url);
    // a sender that keeps its connection open after a delivery (keep-alive), and one halfway through sending one
    const keepAlive = new http.Agent({ keepAlive: true });
    try {
      const body = '{"type":"card.issued","data":{}}';
      await new Promise<void>((resolve, reject) => {
        const req = http.request(
          url,
          { method: 'POST', agent: keepAlive, headers: deliveryHeaders(body, mock.webhookSecret, 'dlv_keepalive') },
          (res) => res.resume().on('end', resolve),
        );
        req.on('error', reject);
        req.end(body);
      });
      await l.delivery(1);
      const held = [...Object.values(keepAlive.freeSockets).flat()];
      expect(held).toHaveLength(1); // the idle keep-alive connection is still open
      const net = await import('node:net');
      const half = net.connect(port, '127.0.0.1');
      await new Promise<void>((r) => half.on('connect', () => r()));
      half.write('POST /webhooks HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"type":');
      const closed = (s: import('node:net').Socket) =>
        new Promise<void>((r) => (s.destroyed ? r() : s.once('close', () => r())));
      const bothClosed = Promise.all([closed(held[0]!), closed(half)]);
      half.on('error', () => {});

      l.child.kill('SIGINT');
      expect(await l.exited, l.stderr()).toBe(0);
      await bothClosed; // the listener closed them: it did not wait for the senders to go away
      const refused = await new Promise<string>((r) =>
        net
          .connect(port, '127.0.0.1')
          .on('connect', function (this: import('node:net').Socket) {
            this.destroy();
            r('connected');
          })
          .on('error', (e: NodeJS.ErrnoException) => r(e.code ?? 'error')),
      );
      expect(refused).toBe('ECONNREFUSED');
    } finally {
      keepAlive.destroy();
    }
  });
});

describe('errors', () => {
  it('webhooks trigger not.a.type exits 2 and lists the valid types; nothing is recorded', async () => {
    const before = (await ctl<unknown[]>(mock, 'GET', '/events')).length;
    const r = await sb.run(['webhooks', 'trigger', 'not.a.type'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown event type "not.a.type"');
    for (const type of ['customer.kyc.pending', 'card.issued', 'deposit.credited', 'withdrawal.cancelled'])
      expect(r.stderr).toContain(type);
    const j = await sb.run(['webhooks', 'trigger', 'card.issue', '--json'], { env });
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout).error).toMatchObject({
      code: 'unknown_event_type',
      hint: expect.stringContaining('Did you mean card.issued?'),
    });
    const bad = await sb.run(['webhooks', 'trigger', 'card.issued', '--data', '[1]'], { env });
    expect(bad.code).toBe(2);
    expect((await ctl<unknown[]>(mock, 'GET', '/events')).length).toBe(before);
  });

  it('without a running mock, trigger and listen --mock exit 8; without a webhook secret, listen exits 2 and says what to do', async () => {
    const noMock = { ...sb.env, CARDCTL_WEBHOOK_SECRET: mock.webhookSecret };
    const trig = await sb.run(['webhooks', 'trigger', 'card.issued'], { env: noMock });
    expect(trig.code).toBe(8);
    expect(trig.stderr).toContain('no running mock found');
    const l = await sb.run(['webhooks', 'listen', '--mock'], { env: noMock });
    expect(l.code).toBe(8);
    expect(l.stderr).toContain('no running mock found');
    const noSecret = await sb.run(['webhooks', 'listen', '--mock'], {
      env: { ...sb.env, CARDCTL_MOCK_URL: mock.controlUrl, CARDCTL_MOCK_TOKEN: mock.controlToken },
    });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stderr).toContain('no webhook secret');
    expect(noSecret.stderr).toContain('--profile mock-test');
    const badHost = await sb.run(['webhooks', 'listen', '--host', '0.0.0.0'], { env });
    expect(badHost.code).toBe(2);
  });

  it('a port in use exits 8; --forward-to this listener itself exits 2; both say what to do', async () => {
    const busy = http.createServer();
    servers.push(busy);
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const busyPort = (busy.address() as { port: number }).port;
    const inUse = await sb.run(['webhooks', 'listen', '--port', String(busyPort)], { env });
    expect(inUse.code, inUse.stderr).toBe(8);
    expect(inUse.stderr).toContain(`port ${busyPort} on 127.0.0.1 is already in use`);
    expect(inUse.stderr).toContain('--port 0');

    const port = await freePort();
    const self = await sb.run(
      ['webhooks', 'listen', '--port', String(port), '--forward-to', `http://localhost:${port}/hooks`],
      { env },
    );
    expect(self.code, self.stderr).toBe(2);
    expect(self.stderr).toContain('points at this listener itself');
    expect(self.stderr).toContain('Forward to your application, on another port.');
  });
});
