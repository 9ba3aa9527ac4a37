// `cardctl request` end to end: the built CLI against a loopback server that verifies every
// signature; in this process (test/helpers/in-process.ts), the money operations as a child process.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';
import { startSignedServer, type Reply, type SignedServer } from '../helpers/signed-server.js';
import { journalBytes, journalRecords } from '../helpers/journal.js';

const CARD = '01J0000000000000000000CARD';
const CUSTOMER = '01J00000000000000CUSTOMER1';
const card = { id: CARD, status: 'active', mode: 'test', balance_minor: 500, future_field: { nested: true } };

let srv: SignedServer;
let sb: Sandbox;
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  inProcessRunner(sb)(args, { env: { ...srv.env(), ...env }, input });
/** ... and as a child process: the money operations end to end (keys, the journal, replays, the live confirmation). */
const runChild = (args: string[], env: Record<string, string> = {}, input?: string) =>
  sb.run(args, { env: { ...srv.env(), ...env }, input });

beforeAll(async () => {
  srv = await startSignedServer();
  sb = makeSandbox();
});
afterAll(async () => {
  await srv.close();
  sb.cleanup();
});
beforeEach(() => {
  srv.requests.length = 0;
});

describe('cardctl request', () => {
  it('sends a verified signed request and prints the envelope, unknown fields kept', async () => {
    srv.script({ status: 200, body: { success: true, data: card, extra_top: 1 } });
    const r = await run(['request', 'GET', `/cards/${CARD}`, '--json']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toEqual({ success: true, data: card, extra_top: 1 });
    expect(srv.requests).toHaveLength(1);
    const req = srv.requests[0]!;
    expect(req.verified).toBe(true);
    expect(req.path).toBe(`/api/v1/cards/${CARD}`);
    expect(req.headers['user-agent']).toMatch(/^cardctl\/\d+\.\d+\.\d+/);
    expect(req.headers['idempotency-key']).toBeUndefined();
  });

  it('accepts a full /api/v1 path, query pairs and a raw query, all signed so the server verifies them', async () => {
    const r = await run([
      'request',
      'get',
      `/api/v1/cards/${CARD}/transactions?cursor=ab%2Bc&per_page=5`,
      '--query',
      'name=a b~',
      '--query',
      'tag[]=x',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const req = srv.requests[0]!;
    expect(req.verified).toBe(true);
    expect(req.method).toBe('GET');
    expect(req.path).toBe(`/api/v1/cards/${CARD}/transactions`);
    expect(req.query).toBe('cursor=ab%2Bc&per_page=5&name=a+b%7E&tag%5B%5D=x');
    expect(req.canonical.split('\n')[2]).toBe('cursor=ab%2Bc&name=a+b%7E&per_page=5&tag[]=x');
  });

  it('--include prints the status line and headers before the body, on stdout', async () => {
    srv.script({ status: 200, body: { success: true, data: card }, headers: { 'X-RateLimit-Remaining': '599' } });
    const r = await run(['request', 'GET', `/cards/${CARD}`, '--include']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 200 OK\n/);
    expect(r.stdout).toMatch(/\nx-ratelimit-remaining: 599\n/);
    expect(r.stdout).toMatch(/\n\n\{\n  "success": true/);
  });

  const errorCases: Array<[string, Reply, number, RegExp]> = [
    [
      '401 invalid_signature',
      { status: 401, body: { success: false, message: 'Unauthorized.', errors: { gateway: ['invalid_signature'] } } },
      3,
      /sign diagnose|--verbose/,
    ],
    [
      '403 out_of_scope',
      { status: 403, body: { success: false, message: 'Forbidden.', errors: { gateway: ['out_of_scope'] } } },
      3,
      /scope/,
    ],
    [
      '404',
      { status: 404, body: { success: false, message: 'Resource not found.', errors: {} } },
      4,
      /Check the card id 01J0000000000000000000CARD/,
    ],
    [
      '422 Validation failed.',
      {
        status: 422,
        body: { success: false, message: 'Validation failed.', errors: { amount: ['The amount must be at least 1.'] } },
      },
      2,
      /amount: The amount must be at least 1\./,
    ],
    [
      '422 insufficient_funds',
      {
        status: 422,
        body: {
          success: false,
          message: 'The request could not be completed.',
          errors: { balance: ['insufficient_funds'] },
        },
      },
      5,
      /fund the wallet/,
    ],
    [
      '409 kyc_not_approved',
      { status: 409, body: { success: false, message: 'Conflict.', errors: { customer: ['kyc_not_approved'] } } },
      5,
      /approv/,
    ],
    [
      '429 after the retries',
      {
        status: 429,
        body: { success: false, message: 'Too many requests.', errors: { rate_limit: ['exceeded'] } },
        headers: { 'Retry-After': '7', 'X-RateLimit-Limit': '30' },
      },
      6,
      /Wait 7 s and try again, or lower the request rate \(30 per minute for this key\)/,
    ],
    [
      '503',
      {
        status: 503,
        body: { success: false, message: 'Card issuing is temporarily unavailable. Retry shortly.', errors: {} },
      },
      8,
      /try again shortly/,
    ],
    [
      '500 outside money operations',
      { status: 500, body: { success: false, message: 'Server error.', errors: {} } },
      8,
      /the service failed \(500\).*retry later/,
    ],
  ];
  it.each(errorCases)('%s gives its exit code and says what to do next', async (_name, reply, code, hint) => {
    srv.script(reply);
    const r = await run(['request', 'POST', `/cards/${CARD}/freeze`, '--retries', '0']);
    expect(r.code, r.stderr).toBe(code);
    expect(r.stderr).toMatch(hint);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(srv.requests).toHaveLength(1);
  });

  it('an unreachable server exits 8 with a hint', async () => {
    const r = await run(['request', 'GET', `/cards/${CARD}`, '--retries', '0'], {
      CARDCTL_BASE_URL: 'http://127.0.0.1:9/api/v1',
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/cannot reach .*ECONNREFUSED/);
  });

  it('--json renders an API error as {"error": {...}} on stdout', async () => {
    srv.script({ status: 422, body: { success: false, message: 'x', errors: { card: ['invalid_state'] } } });
    const r = await run(['request', 'POST', `/cards/${CARD}/freeze`, '--json']);
    expect(r.code).toBe(5);
    const out = JSON.parse(r.stdout);
    expect(out.error).toMatchObject({ status: 422, code: 'invalid_state', errors: { card: ['invalid_state'] } });
  });

  it('a 4xx other than 409 in_flight and 429 is not retried', async () => {
    srv.script({ status: 422, body: { success: false, message: 'x', errors: { card: ['invalid_state'] } } });
    const r = await run(['request', 'POST', `/cards/${CARD}/recharge`, '--data', '{"amount":5}']);
    expect(r.code).toBe(5);
    expect(srv.requests).toHaveLength(1);
  });

  it('retries 503, 409 in_flight and 429 (honouring Retry-After) with the same key and body, fresh nonce and signature', async () => {
    srv.script(
      { status: 503, body: { success: false, message: 'busy', errors: {} } },
      { status: 409, body: { success: false, message: 'Conflict.', errors: { idempotency: ['in_flight'] } } },
      {
        status: 429,
        body: { success: false, message: 'Too many requests.', errors: { rate_limit: ['exceeded'] } },
        headers: { 'Retry-After': '1' },
      },
      { status: 200, body: { success: true, data: card } },
    );
    const r = await run([
      'request',
      'POST',
      `/cards/${CARD}/recharge`,
      '--data',
      '{"amount":500}',
      '--idempotency-key',
      'key-retry-1',
      '--verbose',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(srv.requests).toHaveLength(4);
    expect(srv.requests.every((q) => q.verified)).toBe(true);
    expect(new Set(srv.requests.map((q) => q.headers['idempotency-key']))).toEqual(new Set(['key-retry-1']));
    expect(new Set(srv.requests.map((q) => q.bodySha256)).size).toBe(1);
    expect(new Set(srv.requests.map((q) => q.headers['x-nonce'])).size).toBe(4);
    expect(new Set(srv.requests.map((q) => q.headers['x-signature'])).size).toBe(4);
    expect(r.stderr).toMatch(/\* retry 1 of 3 in \d+ ms: 503/);
    expect(r.stderr).toMatch(/\* retry 2 of 3 in \d+ ms: 409 in_flight/);
    expect(r.stderr).toMatch(/\* retry 3 of 3 in 1\d{3} ms: 429 \(Retry-After 1 s\)/);
  });

  it('--verbose shows the canonical string field by field and the signature, never the secret', async () => {
    const r = await run(['request', 'POST', `/cards/${CARD}/freeze`, '--data', '{"a":"x\\ty "}', '-v']);
    expect(r.code).toBe(0);
    const req = srv.requests[0]!;
    expect(r.stderr).toContain(`1 METHOD       |POST|`);
    expect(r.stderr).toContain(`2 PATH         |/api/v1/cards/${CARD}/freeze|`);
    expect(r.stderr).toContain(`3 QUERY_STRING ||`);
    expect(r.stderr).toContain(`6 X-Nonce      |${req.headers['x-nonce']}|`);
    expect(r.stderr).toContain(`7 BODY_SHA256  |${req.bodySha256}|`);
    expect(r.stderr).toContain(`X-Signature: ${req.headers['x-signature']}`);
    expect(r.stderr).toMatch(/< 200 OK \(\d+ ms\)/);
    expect(r.stdout + r.stderr).not.toContain(srv.secret);
  });

  it('a GET that gets no answer in time exits 8', async () => {
    srv.script({ delayMs: 3_000, status: 200, body: { success: true, data: card } });
    const r = await run(['request', 'GET', `/cards/${CARD}`, '--retries', '0'], { CARDCTL_TIMEOUT_MS: '300' });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/no answer from .* in time/);
  });

  it('a 202 outside money operations is a success (POST /customers answers 202 Customer)', async () => {
    srv.script({ status: 202, body: { success: true, data: { id: CUSTOMER, kyc_status: 'unsubmitted' } } });
    const r = await run(['request', 'POST', '/customers', '--data', '{"first_name":"Ada"}']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).data.id).toBe(CUSTOMER);
  });

  it('says how far the clock is from the server on timestamp_out_of_window', async () => {
    srv.script({
      status: 401,
      date: new Date(Date.now() - 412_000),
      body: { success: false, message: 'Unauthorized.', errors: { gateway: ['timestamp_out_of_window'] } },
    });
    const r = await run(['request', 'GET', `/cards/${CARD}`]);
    expect(r.code).toBe(3);
    // the Date header is fixed when scripted; the CLI's start-up on a loaded machine adds seconds
    const ahead = Number(/clock is (\d+) s ahead of the server: fix the clock/.exec(r.stderr)?.[1]);
    expect(ahead).toBeGreaterThanOrEqual(412);
    expect(ahead).toBeLessThan(472);
  });

  it('refuses a body that is not JSON before sending anything', async () => {
    const r = await run(['request', 'POST', '/customers', '--data', '{first_name: x}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(srv.requests).toHaveLength(0);
  });

  it('--data @FILE and --data - send the bytes unchanged', async () => {
    const file = join(sb.dir, 'body.json');
    const text = '{\n  "first_name": "Ada",\n  "email": "a@b.c"\n}\n';
    writeFileSync(file, text);
    expect((await run(['request', 'POST', '/customers', '--data', `@${file}`])).code).toBe(0);
    expect((await run(['request', 'POST', '/customers', '--data', '-'], {}, text)).code).toBe(0);
    expect(srv.requests.map((q) => q.body.toString('utf8'))).toEqual([text, text]);
    expect(srv.requests[0]!.headers['content-type']).toBe('application/json');
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('money operations', () => {
  const journal = (): Array<Record<string, unknown>> =>
    journalRecords(join(sb.stateDir, 'cardctl')) as Array<Record<string, unknown>>;

  it('always sends an Idempotency-Key, generated and printed on stderr when not given', async () => {
    const r = await runChild(['request', 'POST', `/cards/${CARD}/terminate`]);
    expect(r.code).toBe(0);
    const key = srv.requests[0]!.headers['idempotency-key'] as string;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.stderr).toContain(`--idempotency-key ${key}`);
    expect(r.stdout).not.toContain(key);
  });

  it('inline JSON is serialized deterministically: reordered input gives identical bytes in schema order', async () => {
    const a = `{"amount_minor": 1000, "customer_id": "${CUSTOMER}"}`;
    const b = `{ "customer_id":"${CUSTOMER}",\n "amount_minor":1000 }`;
    expect((await runChild(['request', 'POST', '/cards', '--data', a, '--idempotency-key', 'det-1'])).code).toBe(0);
    expect((await runChild(['request', 'POST', '/cards', '--data', b, '--idempotency-key', 'det-1'])).code).toBe(0);
    const [x, y] = srv.requests.map((q) => q.body.toString('utf8'));
    expect(x).toBe(`{"customer_id":"${CUSTOMER}","amount_minor":1000}`);
    expect(y).toBe(x);
  });

  it('202 exits 7 with the key to replay, prints the answer, and leaves the journal entry unresolved', async () => {
    srv.script({
      status: 202,
      body: { success: true, message: 'The request is being processed.', data: { status: 'pending' } },
    });
    const r = await runChild([
      'request',
      'POST',
      '/cards',
      '--data',
      `{"customer_id":"${CUSTOMER}","amount_minor":1}`,
      '--idempotency-key',
      'k-202',
    ]);
    expect(r.code).toBe(7);
    expect(r.stderr).toMatch(/--idempotency-key k-202/);
    expect(JSON.parse(r.stdout).data).toEqual({ status: 'pending' });
    expect(srv.requests).toHaveLength(1); // never retried as a failure
    const records = journal();
    const op = records.find((e) => e.type === 'op' && e.idempotency_key === 'k-202')!;
    expect(op).toMatchObject({ method: 'POST', path: '/api/v1/cards', mode: 'test' });
    expect(records.find((e) => e.type === 'outcome' && e.id === op.id)).toMatchObject({
      status: 202,
      outcome: 'unknown',
    });
  });

  it('500 on a money operation is retried, then exits 7 with the key and is journaled as unknown', async () => {
    srv.script(
      ...Array.from({ length: 2 }, () => ({
        status: 500,
        body: { success: false, message: 'Server error.', errors: {} },
      })),
    );
    const r = await runChild([
      'request',
      'POST',
      `/cards/${CARD}/recharge`,
      '--data',
      '{"amount":9}',
      '--idempotency-key',
      'k-500',
      '--retries',
      '1',
      '--json',
    ]);
    expect(r.code).toBe(7);
    expect(JSON.parse(r.stdout).error).toMatchObject({ status: 500, idempotency_key: 'k-500' });
    expect(srv.requests).toHaveLength(2);
    const list = await runChild(['ops', 'list', '--unresolved', '--all', '--json']);
    expect(JSON.parse(list.stdout).data.map((e: { idempotency_key: string }) => e.idempotency_key)).toContain('k-500');
  });

  it('journals before sending: a dropped connection leaves it unknown, and `ops replay` resolves it with the same bytes and key', async () => {
    srv.script({ drop: true }, { drop: true });
    const r = await runChild([
      'request',
      'POST',
      `/cards/${CARD}/recharge`,
      '--data',
      '{"amount":77}',
      '--idempotency-key',
      'k-drop',
      '--retries',
      '1',
    ]);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/k-drop/);
    const unresolved = JSON.parse((await runChild(['ops', 'list', '--unresolved', '--all', '--json'])).stdout)
      .data as Array<{ id: string; idempotency_key: string; body: string }>;
    const op = unresolved.find((e) => e.idempotency_key === 'k-drop')!;
    expect(op.body).toBe('{"amount":77}');
    const raw = journalBytes(join(sb.stateDir, 'cardctl'));
    expect(raw).not.toContain(srv.secret);
    expect(raw).not.toMatch(/signature/i);

    srv.requests.length = 0;
    srv.script({ status: 200, body: { success: true, data: card } });
    const replay = await runChild(['ops', 'replay', op.id.slice(0, 12)]);
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).data.id).toBe(CARD);
    expect(srv.requests[0]!.headers['idempotency-key']).toBe('k-drop');
    expect(srv.requests[0]!.body.toString('utf8')).toBe('{"amount":77}');
    const after = JSON.parse((await runChild(['ops', 'list', '--unresolved', '--all', '--json'])).stdout)
      .data as Array<{
      id: string;
    }>;
    expect(after.map((e) => e.id)).not.toContain(op.id);
    const shown = JSON.parse((await runChild(['ops', 'show', op.id, '--json'])).stdout);
    expect(shown).toMatchObject({ outcome: 'resolved', status: 200, resource_id: CARD });
    const table = await runChild(['ops', 'list']);
    expect(table.stdout).toMatch(/^ID\s+TIME\s+MODE\s+OPERATION/);
    expect(table.stdout).toContain(op.id);
    const people = await runChild(['ops', 'show', op.id]);
    expect(people.stdout).toMatch(/idempotency_key\s+k-drop/);
  });

  it('a live money operation without --yes is refused when nobody can confirm; with --yes it is sent', async () => {
    const live = await startSignedServer({ keyId: '01HZZZZZZZZZZZZZZZZZZZZ7VE', mode: 'live' });
    try {
      const refused = await sb.run(['request', 'POST', `/cards/${CARD}/recharge`, '--data', '{"amount":5}'], {
        env: live.env(),
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/LIVE money operation.*\n.*--yes/);
      expect(live.requests).toHaveLength(0);
      const ok = await sb.run(['request', 'POST', `/cards/${CARD}/recharge`, '--data', '{"amount":5}', '--yes'], {
        env: live.env(),
      });
      expect(ok.code).toBe(0);
      expect(live.requests).toHaveLength(1);
    } finally {
      await live.close();
    }
  });

  it('a money operation that cannot be journaled is not sent', async () => {
    const blocker = join(sb.dir, 'not-a-folder');
    writeFileSync(blocker, 'x');
    const r = await runChild(['request', 'POST', `/cards/${CARD}/recharge`, '--data', '{"amount":5}'], {
      CARDCTL_STATE_DIR: join(blocker, 'state'),
    });
    expect(r.code).toBe(2); // a state folder that cannot be written is the user's to fix (test/commands/state-folder.test.ts)
    expect(r.stderr).toMatch(/cannot write the operations journal .*not sent/);
    expect(r.stderr).toMatch(/CARDCTL_STATE_DIR/);
    expect(srv.requests).toHaveLength(0);
  });

  it('ops show of an unknown id exits 4 and points to ops list', async () => {
    const r = await run(['ops', 'show', 'op_nope']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/cardctl ops list/);
  });
});

describe('a request too large for the server', () => {
  it('a 100,000-character path: exit 2 saying its size, the path not echoed', async () => {
    // the real mock (node's HTTP server answers 431 to a request line and headers over 16 KiB)
    const { startMock } = await import('../../src/mock/index.js');
    const mock = (await startMock({ port: 0, seed: 29 })) as unknown as {
      baseUrl: string;
      keys: { test: { keyId: string; secret: string } };
      close(): Promise<void>;
    };
    try {
      const long = 'A'.repeat(100_000);
      const env = {
        CARDCTL_BASE_URL: mock.baseUrl,
        CARDCTL_API_KEY: mock.keys.test.keyId,
        CARDCTL_API_SECRET: mock.keys.test.secret,
      };
      for (const json of [false, true]) {
        const r = await inProcessRunner(sb)(['request', 'GET', `/cards/${long}`, ...(json ? ['--json'] : [])], { env });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stdout + r.stderr).toMatch(/request too large: the path is 100014 characters/);
        expect(r.stdout + r.stderr).not.toContain('A'.repeat(200));
        expect(r.stdout + r.stderr).not.toMatch(/unexpected answer/);
      }
    } finally {
      await mock.close();
    }
  });
});
