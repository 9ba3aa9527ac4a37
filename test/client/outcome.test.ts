// When is the outcome of a write known? The built CLI against a loopback server that verifies
// signatures and scripts 5xx answers, refusals and dropped connections; the journal is read
// back through `cardctl ops`, as a person would.
import { createHash } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { startSignedServer, type SignedServer } from '../helpers/signed-server.js';
import { journalBytes } from '../helpers/journal.js';

const CARD = '01J0000000000000000000CARD';
const card = { id: CARD, status: 'active', mode: 'test', balance_minor: 500 };
const OTHER_KEY_ID = '01HZZZZZZZZZZZZZZZZZZZZKE2';
const OTHER_SECRET = 'b3RoZXItc2VjcmV0LW90aGVyLXNlY3JldC14eHh4eHg=';
const ok = { status: 200, body: { success: true, data: card } };
const serverError = { status: 500, body: { success: false, message: 'Server error.', errors: {} } };

let srv: SignedServer;
let sb: Sandbox;
const run = (args: string[], env: Record<string, string> = {}, input?: string) =>
  sb.run(args, { env: { ...srv.env(), ...env }, input });
const recharge = (key: string, amount: number, ...more: string[]) => [
  'request',
  'POST',
  `/cards/${CARD}/recharge`,
  '--data',
  `{"amount":${amount}}`,
  '--idempotency-key',
  key,
  ...more,
];

interface Entry {
  id: string;
  idempotency_key: string;
  outcome: string;
  status: number | null;
  key_id?: string;
  resolved_by?: string;
}
const entries = async (): Promise<Entry[]> =>
  JSON.parse((await run(['ops', 'list', '--all', '--json'])).stdout).data as Entry[];
const entryOf = async (key: string): Promise<Entry> =>
  (await entries()).filter((e) => e.idempotency_key === key).at(-1)!;
const show = async (idOrKey: string): Promise<Entry> =>
  JSON.parse((await run(['ops', 'show', idOrKey, '--json'])).stdout) as Entry;

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

describe('money operations: any 5xx but 503 may have gone through', () => {
  it.each([502, 504])(
    '%i (from a proxy) is retried with the same key and bytes, then exits 7 and stays unknown',
    async (status) => {
      const reply = { status, body: `<html>${status}</html>` };
      srv.script(reply, reply);
      const r = await run(recharge(`k-${status}`, 12, '--retries', '1'));
      expect(r.code, r.stderr).toBe(7);
      // an HTML page is not the API's answer: who sent it is unknown, so is the outcome
      expect(r.stderr).toContain(
        `an intermediary answered ${status} application/json whose body is not JSON, not the API`,
      );
      expect(r.stderr).toContain('it may have been charged');
      expect(srv.requests).toHaveLength(2);
      expect(new Set(srv.requests.map((q) => q.headers['idempotency-key']))).toEqual(new Set([`k-${status}`]));
      expect(new Set(srv.requests.map((q) => q.bodySha256)).size).toBe(1);
      const entry = await entryOf(`k-${status}`);
      expect(entry).toMatchObject({ outcome: 'unknown', status: null }); // the journal's status is the API's alone
      // the hint names the exact command
      expect(r.stderr).toContain(`cardctl ops replay ${entry.id}`);
    },
  );
});

describe('the journal says "resolved" only when an answer reveals the outcome', () => {
  // A replay that reaches nothing (503, 429, refused) says nothing about the operation: it stays
  // unknown and the command says so (exit 7), as a 503 after a dropped attempt does within one command.
  it('failed replays (503, 429, 401, connection refused) leave an unknown operation unknown, and exit 7 (401: 3); an answer resolves it', async () => {
    // its own server, so that it can be shut down for the "connection refused" replay
    const gone = await startSignedServer();
    const env = gone.env();
    gone.script({ drop: true });
    expect((await run(recharge('k-replays', 31, '--retries', '0'), env)).code).toBe(7);
    const { id } = await entryOf('k-replays');
    expect(id).toBeTruthy();

    gone.script({ status: 503, body: { success: false, message: 'busy', errors: {} } });
    expect((await run(['ops', 'replay', id, '--retries', '0'], env)).code).toBe(7);
    expect(await show(id)).toMatchObject({ outcome: 'unknown', status: 503 });

    gone.script({
      status: 429,
      body: { success: false, message: 'Too many requests.', errors: { rate_limit: ['exceeded'] } },
    });
    expect((await run(['ops', 'replay', id, '--retries', '0'], env)).code).toBe(7);
    expect((await show(id)).outcome).toBe('unknown');

    const wrongSecret = await run(['ops', 'replay', id, '--retries', '0'], {
      ...env,
      CARDCTL_API_SECRET: OTHER_SECRET,
    });
    expect(wrongSecret.code).toBe(3);
    expect(await show(id)).toMatchObject({ outcome: 'unknown', status: 401 });

    await gone.close();
    const refused = await run(['ops', 'replay', id, '--retries', '0'], env);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toMatch(/ECONNREFUSED.*An earlier attempt may have gone through/);
    expect(await show(id)).toMatchObject({ outcome: 'unknown', status: null });
    const unresolved = JSON.parse((await run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout)
      .data as Entry[];
    expect(unresolved.map((e) => e.id)).toContain(id);
  });

  it('a first send: 503 after a dropped attempt is unknown; a 503 that nothing could have processed is not', async () => {
    srv.script({ drop: true }, { status: 503, body: { success: false, message: 'busy', errors: {} } });
    const afterDrop = await run(recharge('k-drop-503', 41, '--retries', '1'));
    expect(afterDrop.code).toBe(7);
    expect(await entryOf('k-drop-503')).toMatchObject({ outcome: 'unknown', status: 503 });

    srv.script({ status: 503, body: { success: false, message: 'busy', errors: {} } });
    const only503 = await run(recharge('k-only-503', 42, '--retries', '0'));
    expect(only503.code).toBe(8);
    expect(await entryOf('k-only-503')).toMatchObject({ outcome: 'resolved', status: 503 });
  });
});

describe('resending with the same --idempotency-key (the hint) resolves the earlier send', () => {
  it('the newer answer resolves the older entry; `ops show KEY` shows the newest; other bytes do not count', async () => {
    srv.script(serverError);
    const first = await run(recharge('k-resend', 51, '--retries', '0'));
    expect(first.code).toBe(7);
    const firstId = /cardctl ops replay (op_\w+)/.exec(first.stderr)?.[1];
    expect(firstId).toBe((await entryOf('k-resend')).id);
    expect(first.stderr).toContain('--idempotency-key k-resend');

    // the same key with other bytes is another request: refused before it is sent (one key is one
    // operation), and it says nothing about the first
    srv.requests.length = 0;
    const other = await run(recharge('k-resend', 52, '--retries', '0'));
    expect(other.code).toBe(5);
    expect(other.stderr).toContain('amount (51 then, 52 now)');
    expect(srv.requests).toHaveLength(0);
    expect((await show(firstId!)).outcome).toBe('unknown');

    srv.script(ok);
    expect((await run(recharge('k-resend', 51))).code).toBe(0);
    const sends = (await entries()).filter((e) => e.idempotency_key === 'k-resend');
    expect(sends).toHaveLength(2);
    const newest = sends[0]!; // ops list is newest first
    expect(await show(firstId!)).toMatchObject({ outcome: 'resolved', status: 200, resolved_by: newest.id });
    expect(await show('k-resend')).toMatchObject({ id: newest.id, outcome: 'resolved', status: 200 });
    const unresolved = JSON.parse((await run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout)
      .data as Entry[];
    expect(unresolved.map((e) => e.idempotency_key)).not.toContain('k-resend');
  });
});

describe('ops replay checks the API key id', () => {
  it('refuses a replay under another key id, naming the profile that recorded it; the right profile replays', async () => {
    const add = (name: string, keyId: string, secret: string) =>
      sb.run(
        ['profiles', 'add', name, '--key-id', keyId, '--mode', 'test', '--base-url', srv.baseUrl, '--secret-stdin'],
        { input: `${secret}\n` },
      );
    expect((await add('alpha', srv.keyId, srv.secret)).code).toBe(0);
    expect((await add('beta', OTHER_KEY_ID, OTHER_SECRET)).code).toBe(0);
    srv.script({ drop: true });
    const sent = await sb.run(recharge('k-keyid', 61, '--retries', '0', '--profile', 'alpha'));
    expect(sent.code, sent.stderr).toBe(7);
    const entry = await entryOf('k-keyid');
    expect(entry.key_id).toBe(srv.keyId);
    expect(journalBytes(join(sb.stateDir, 'cardctl'))).not.toContain(srv.secret);

    srv.requests.length = 0;
    const refused = await sb.run(['ops', 'replay', entry.id, '--profile', 'beta']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`sent with API key ${srv.keyId} (profile "alpha")`);
    expect(refused.stderr).toContain(OTHER_KEY_ID);
    expect(refused.stderr).toContain('--profile alpha');
    expect(srv.requests).toHaveLength(0);

    srv.script(ok);
    const replayed = await sb.run(['ops', 'replay', entry.id]); // the recording profile by default
    expect(replayed.code, replayed.stderr).toBe(0);
    expect((await show(entry.id)).outcome).toBe('resolved');
  });

  it('an entry recorded before key ids were kept is replayed with a warning', async () => {
    const id = 'op_oldentry0000000001';
    const body = Buffer.from('{"amount":71}');
    const old = {
      type: 'op',
      id,
      time: new Date().toISOString(),
      profile: null,
      source: 'env',
      mode: 'test',
      base_url: srv.baseUrl,
      method: 'POST',
      path: `/api/v1/cards/${CARD}/recharge`,
      query: '',
      idempotency_key: 'k-old',
      body_b64: body.toString('base64'),
      body_sha256: createHash('sha256').update(body).digest('hex'),
    };
    // written as older versions wrote it: the next command takes it over into the journal it has
    appendFileSync(join(sb.stateDir, 'cardctl', 'operations.ndjson'), `${JSON.stringify(old)}\n`);
    srv.script(ok);
    const r = await run(['ops', 'replay', id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Warning: op_oldentry0000000001 was recorded without its API key id/);
    expect(srv.requests[0]!.body.toString('utf8')).toBe('{"amount":71}');
  });
});

describe('a dropped connection on a write that is not a money operation', () => {
  it('exits 7 and says the request may have been processed, without resending it', async () => {
    srv.script({ drop: true });
    const r = await run(['request', 'POST', '/customers', '--data', '{"first_name":"Ada"}']);
    expect(r.code, r.stderr).toBe(7);
    expect(r.stderr).toMatch(/may have been processed/);
    expect(r.stderr).toMatch(/Check before resending \(e\.g\. GET/);
    expect(r.stderr).not.toMatch(/cannot reach/);
    expect(srv.requests).toHaveLength(1);
  });

  it('connection refused (nothing sent) stays exit 8, as does a GET that was dropped', async () => {
    const refused = await run(['request', 'POST', '/customers', '--data', '{}', '--retries', '0'], {
      CARDCTL_BASE_URL: 'http://127.0.0.1:9/api/v1',
    });
    expect(refused.code).toBe(8);
    expect(refused.stderr).toMatch(/cannot reach .*ECONNREFUSED/);
    srv.script({ drop: true });
    expect((await run(['request', 'GET', `/cards/${CARD}`, '--retries', '0'])).code).toBe(8);
  });
});

describe('inline --data on a money route', () => {
  it('refuses a number that would be sent as another value, and sends nothing', async () => {
    const r = await run([
      'request',
      'POST',
      `/cards/${CARD}/recharge`,
      '--data',
      '{"amount":9007199254740993}',
      '--idempotency-key',
      'k-big',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/9007199254740993 .*would be sent as 9007199254740992/);
    expect(r.stderr).toMatch(/--data @FILE/);
    expect(srv.requests).toHaveLength(0);
    expect((await entries()).map((e) => e.idempotency_key)).not.toContain('k-big');
  });

  it('accepts the same value written differently (1.0e2 is 100)', async () => {
    const r = await run(['request', 'POST', `/cards/${CARD}/recharge`, '--data', '{"amount":1.0e2}']);
    expect(r.code, r.stderr).toBe(0);
    expect(srv.requests[0]!.body.toString('utf8')).toBe('{"amount":100}');
  });
});
