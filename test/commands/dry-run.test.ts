// `--dry-run` (issue 38): the built CLI against the real mock on port 0, checked as a user would:
// what is printed (method, URL, headers, body, canonical string; never a secret or a signature
// that would be accepted), what the journal and the money rules would decide, the exit code, and
// that nothing happened: the mock's request log holds no new API request, no journal appears in a
// fresh state folder, an existing journal's bytes and operations are unchanged, nothing is asked.
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import {
  activeCard,
  apiRequestsDuring,
  approvedCustomer,
  cardBalance,
  events,
  type MockHandle,
} from '../helpers/api.js';
import { parseFast, type Manifest } from '../../src/cli/fast-path.js';
import { BIN, cleanEnv, makeSandbox, ROOT, type CliResult, type Sandbox } from '../helpers/cli.js';
import { needs } from '../helpers/programs.js';

/** One word for sh -c, single-quoted. */
const shellWord = (w: string): string => `'${w.replace(/'/g, `'\\''`)}'`;
import { filesUnder, journalDb, journalRecords, rewriteJournal } from '../helpers/journal.js';

let mock: MockHandle;
const sandboxes: Sandbox[] = [];
let env: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 38, providerLatencyMs: 0 })) as unknown as MockHandle;
  env = {
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await mock?.close();
  for (const sb of sandboxes) sb.cleanup();
});

function sandbox(): Sandbox {
  const sb = makeSandbox();
  sandboxes.push(sb);
  return sb;
}

const state = (sb: Sandbox): string => join(sb.stateDir, 'cardctl');

/** Runs the command and counts the API requests the mock logged meanwhile. */
async function counted(
  sb: Sandbox,
  args: string[],
  extra: Record<string, string> = {},
): Promise<{ r: CliResult; sent: number }> {
  let r!: CliResult;
  const sent = await apiRequestsDuring(mock, async () => (r = await sb.run(args, { env: { ...env, ...extra } })));
  return { r, sent };
}

const doc = (r: CliResult) => JSON.parse(r.stdout);

/** The secret and the signature that would be accepted for the canonical string shown: in no output. */
function expectNoSecret(r: CliResult, canonical: string, secret = mock.keys.test.secret): void {
  const accepted = createHmac('sha256', secret).update(canonical).digest('base64');
  for (const text of [r.stdout, r.stderr]) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(accepted);
    expect(text).not.toContain(Buffer.from(accepted, 'base64').toString('hex'));
  }
}

describe('--dry-run of a read', () => {
  it('cards get: the GET it would send, a placeholder for its signature; no request, no state written', async () => {
    const sb = sandbox();
    const card = (await activeCard(mock, { amount: 700 })).id as string;
    const { r, sent } = await counted(sb, ['cards', 'get', card, '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    const d = doc(r);
    expect(d).toMatchObject({ dry_run: true, sent: false, money: null, exit_code: 0 });
    expect(d.request).toMatchObject({
      method: 'GET',
      url: `${mock.baseUrl}/cards/${card}`,
      body: null,
      fresh_at_send: ['X-Timestamp', 'X-Nonce', 'X-Signature'],
    });
    expect(d.request.headers).toMatchObject({
      'X-Api-Key': mock.keys.test.keyId,
      'X-Signature': '<signed at send time>',
      Accept: 'application/json',
    });
    // the canonical string is the one the signature would cover: method, path, key, the headers' timestamp and nonce
    expect(d.request.canonical.split('\n')).toEqual([
      'GET',
      `/api/v1/cards/${card}`,
      '',
      mock.keys.test.keyId,
      d.request.headers['X-Timestamp'],
      d.request.headers['X-Nonce'],
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ]);
    expectNoSecret(r, d.request.canonical);
    expect(filesUnder(sb.stateDir)).toEqual([]);
  });

  it('customers list in text: readable, the first page it would ask for; -o json is --json', async () => {
    const sb = sandbox();
    const { r, sent } = await counted(sb, ['customers', 'list', '--per-page', '5', '--dry-run']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    expect(r.stdout).toContain('Dry run: nothing was sent, recorded or asked.');
    expect(r.stdout).toContain(`GET ${mock.baseUrl}/customers?per_page=5`);
    expect(r.stdout).toContain('X-Signature: <signed at send time>');
    expect(r.stdout).toContain('3 QUERY_STRING |per_page=5|');
    const o = await sb.run(['customers', 'list', '--per-page', '5', '--dry-run', '-o', 'json'], { env });
    expect(doc(o).request.url).toBe(`${mock.baseUrl}/customers?per_page=5`);
  });

  it('a usage error still exits 2 before anything is shown', async () => {
    const sb = sandbox();
    const r = await sb.run(['cards', 'get', 'not-an-id', '--dry-run'], { env });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('--dry-run of a money operation', () => {
  it('cards issue in a fresh state folder: would be sent, nothing recorded (no journal.db), exit 0', async () => {
    const sb = sandbox();
    const customer = (await approvedCustomer(mock)).id as string;
    const { r, sent } = await counted(sb, [
      'cards',
      'issue',
      '--customer',
      customer,
      '--amount',
      '5000',
      '--idempotency-key',
      'dry-1',
      '--dry-run',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    const d = doc(r);
    expect(d.request.body).toBe(`{"customer_id":"${customer}","amount_minor":5000}`);
    expect(d.request.headers['Idempotency-Key']).toBe('dry-1');
    expect(d.request.headers['Content-Type']).toBe('application/json');
    expect(d.money).toMatchObject({
      decision: 'send',
      idempotency_key: 'dry-1',
      generated_key: false,
      journal: null,
      replay_of: null,
    });
    expect(d.money.confirmation.by).toBe('not_needed');
    expectNoSecret(r, d.request.canonical);
    expect(existsSync(journalDb(state(sb)))).toBe(false);
    expect(filesUnder(sb.stateDir)).toEqual([]);
  });

  it('after a real send: the same key would replay it (not charged again), another body under it is refused (exit 5); the journal is unchanged', async () => {
    const sb = sandbox();
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const real = await sb.run(['cards', 'recharge', card, '--amount', '250', '--idempotency-key', 'dry-r1'], { env });
    expect(real.code, real.stderr).toBe(0);
    const before = readFileSync(journalDb(state(sb)));
    const ops = journalRecords(state(sb)).filter((x) => x.type === 'op');

    const same = await counted(sb, [
      'cards',
      'recharge',
      card,
      '--amount',
      '250',
      '--idempotency-key',
      'dry-r1',
      '--dry-run',
      '--json',
    ]);
    expect(same.r.code, same.r.stderr).toBe(0);
    expect(same.sent).toBe(0);
    expect(doc(same.r).money).toMatchObject({ decision: 'send', replay_of: { journal_id: ops[0]!.id } });
    expect(doc(same.r).money.why).toContain('not charged again');

    const other = await counted(sb, [
      'cards',
      'recharge',
      card,
      '--amount',
      '999',
      '--idempotency-key',
      'dry-r1',
      '--dry-run',
    ]);
    expect(other.r.code, other.r.stderr).toBe(5);
    expect(other.sent).toBe(0);
    expect(other.r.stdout).toContain('money operation: refused: Idempotency-Key dry-r1 was first sent');
    expect(other.r.stdout).toContain('amount (250 then, 999 now)');
    expect(other.r.stdout).toContain('exit code of this dry run: 5 (as the real run would end)');

    expect(readFileSync(journalDb(state(sb))).equals(before)).toBe(true);
    expect(journalRecords(state(sb)).filter((x) => x.type === 'op')).toEqual(ops);
    expect(await cardBalance(mock, card)).toBe(1250);
  });

  it('a key first sent over 23 h ago: answered from the journal (its outcome), not sent', async () => {
    const sb = sandbox();
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const real = await sb.run(['cards', 'recharge', card, '--amount', '40', '--idempotency-key', 'dry-old'], { env });
    expect(real.code, real.stderr).toBe(0);
    const old = new Date(Date.now() - 30 * 3_600_000).toISOString();
    rewriteJournal(state(sb), (rec) => ({ ...rec, time: old }));
    // an older file journal is taken over (written) when the journal opens: a dry run refuses rather than write it
    const files = filesUnder(state(sb));
    const early = await sb.run(
      ['cards', 'recharge', card, '--amount', '40', '--idempotency-key', 'dry-old', '--dry-run', '--json'],
      { env },
    );
    expect(early.code).toBe(2);
    expect(doc(early).error.code).toBe('journal_not_taken_over');
    expect(filesUnder(state(sb))).toEqual(files);
    expect((await sb.run(['ops', 'list'], { env })).code).toBe(0); // takes the rewritten file over
    const { r, sent } = await counted(sb, [
      'cards',
      'recharge',
      card,
      '--amount',
      '40',
      '--idempotency-key',
      'dry-old',
      '--dry-run',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    expect(doc(r).money).toMatchObject({
      decision: 'answer',
      answer: { from_journal: true, outcome: 'succeeded', why: 'key_forgotten', id: card },
      error: null,
    });
  });

  it('a live key: no prompt, "needs --yes" with the exit code of the real run (2); with --yes it would be sent', async () => {
    const sb = sandbox();
    const live = {
      CARDCTL_API_KEY: mock.keys.live.keyId,
      CARDCTL_API_SECRET: mock.keys.live.secret,
      CARDCTL_MODE: 'live',
    };
    // a real read teaches this machine the key's mode (the live-only route answers it)
    expect((await sb.run(['deposit-addresses', 'list'], { env: { ...env, ...live } })).code).toBe(0);
    const args = ['cards', 'issue', '--customer', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--amount', '100', '--dry-run'];
    const refused = await counted(sb, [...args, '--json'], live);
    expect(refused.r.code, refused.r.stderr).toBe(2);
    expect(refused.sent).toBe(0);
    expect(doc(refused.r).money.confirmation).toMatchObject({ mode: 'live', by: 'refused' });
    expect(doc(refused.r).money.confirmation.error.hint).toContain('--yes');
    expectNoSecret(refused.r, doc(refused.r).request.canonical, mock.keys.live.secret);
    const yes = await counted(sb, [...args, '--yes'], live);
    expect(yes.r.code, yes.r.stderr).toBe(0);
    expect(yes.r.stdout).toContain('confirmation: confirmed by --yes');
    expect(existsSync(journalDb(state(sb)))).toBe(false);
  });
});

describe('--dry-run on a terminal', () => {
  // script(1) runs the command with a terminal for its stdin and stderr: a real run would ask there
  it.runIf(needs('script'))(
    'a live key: "would ask for confirmation", and nothing is asked (no input needed)',
    async () => {
      const sb = sandbox();
      const live = {
        ...env,
        ...sb.env,
        CARDCTL_API_KEY: mock.keys.live.keyId,
        CARDCTL_API_SECRET: mock.keys.live.secret,
        CARDCTL_MODE: 'live',
      };
      expect((await sb.run(['deposit-addresses', 'list'], { env: live })).code).toBe(0); // the key's mode, learned
      const argv = [
        process.execPath,
        BIN,
        'cards',
        'issue',
        '--customer',
        '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        '--amount',
        '100',
        '--dry-run',
      ];
      let r!: { status: number | null; stdout: string };
      const sent = await apiRequestsDuring(mock, async () => {
        r = spawnSync('script', ['-qec', argv.map(shellWord).join(' '), '/dev/null'], {
          env: { ...cleanEnv(), ...live },
          encoding: 'utf8',
          timeout: 20_000,
        });
      });
      expect(r.status, r.stdout).toBe(0);
      expect(r.stdout).toContain('confirmation: would ask for confirmation on the terminal (or pass --yes)');
      expect(r.stdout).not.toContain('[y/N]');
      expect(sent).toBe(0);
    },
  );
});

describe('--dry-run of request, ops replay, webhooks trigger', () => {
  it('request POST with --data: the exact bytes; --jq filters the document', async () => {
    const sb = sandbox();
    const { r, sent } = await counted(sb, [
      'request',
      'POST',
      '/customers',
      '--data',
      '{"type":"individual"}',
      '--dry-run',
      '--jq',
      '.request.body',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    expect(r.stdout).toBe('{"type":"individual"}\n');
  });

  it('ops replay: the journaled bytes and key, a replay the API answers from its memory; nothing sent or recorded', async () => {
    const sb = sandbox();
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    expect(
      (await sb.run(['cards', 'recharge', card, '--amount', '30', '--idempotency-key', 'dry-rp'], { env })).code,
    ).toBe(0);
    const before = readFileSync(journalDb(state(sb)));
    const { r, sent } = await counted(sb, ['ops', 'replay', 'dry-rp', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    expect(doc(r).request).toMatchObject({ method: 'POST', body: '{"amount":30}' });
    expect(doc(r).money).toMatchObject({ decision: 'send', idempotency_key: 'dry-rp' });
    expect(readFileSync(journalDb(state(sb))).equals(before)).toBe(true);
    // in a fresh state folder there is nothing to replay, and no journal is made to say so
    const fresh = sandbox();
    const none = await fresh.run(['ops', 'replay', 'dry-rp', '--dry-run'], { env });
    expect(none.code).toBe(4);
    expect(filesUnder(fresh.stateDir)).toEqual([]);
  });

  it('webhooks trigger: the control call, its token never shown; no event recorded', async () => {
    const sb = sandbox();
    const before = (await events(mock)).length;
    const r = await sb.run(
      ['webhooks', 'trigger', 'card.issued', '--control-url', mock.controlUrl, '--dry-run', '--json'],
      { env: { ...env, CARDCTL_MOCK_TOKEN: mock.controlToken } },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(doc(r).request).toMatchObject({ method: 'POST', url: `${mock.controlUrl}/events`, canonical: null });
    expect(JSON.parse(doc(r).request.body)).toMatchObject({ type: 'card.issued', mode: 'test' });
    expect(r.stdout + r.stderr).not.toContain(mock.controlToken);
    expect((await events(mock)).length).toBe(before);
  });
});

describe('--dry-run of a batch', () => {
  it('a row answered from the journal, one refused, one sent: each row, the totals per card, exit 5; nothing sent or recorded', async () => {
    const sb = sandbox();
    const [a, b] = await Promise.all([activeCard(mock, { amount: 1000 }), activeCard(mock, { amount: 1000 })]);
    const path = join(sb.dir, 'rows.csv');
    const write = (text: string) => writeFileSync(path, text);
    write(`card,amount\n${a.id},11\n`);
    expect((await sb.run(['cards', 'recharge', '--batch', path], { env })).code).toBe(0); // row 1 goes through
    write(`card,amount\n${a.id},11\n${b.id},22\n${a.id},33\n`);
    // the key row 3 would get, taken by a single recharge of another amount: the rules refuse row 3
    const first = doc(await sb.run(['cards', 'recharge', '--batch', path, '--dry-run', '--json'], { env }));
    const key3 = first.rows[2].idempotency_key as string;
    expect((await sb.run(['cards', 'recharge', b.id, '--amount', '5', '--idempotency-key', key3], { env })).code).toBe(
      0,
    );
    const before = readFileSync(journalDb(state(sb)));
    const ops = journalRecords(state(sb)).length;

    const { r, sent } = await counted(sb, ['cards', 'recharge', '--batch', path, '--dry-run', '--json']);
    expect(sent).toBe(0);
    expect(r.code, r.stderr).toBe(5);
    const d = doc(r);
    expect(d.rows.map((x: any) => [x.row, x.decision, x.target, x.amount_minor])).toEqual([
      [1, 'answer', `card ${a.id}`, 11],
      [2, 'send', `card ${b.id}`, 22],
      [3, 'refuse', `card ${a.id}`, 33],
    ]);
    expect(d.rows[0].answer).toMatchObject({ from_journal: true, outcome: 'succeeded' });
    expect(d.rows[1].request.headers['X-Signature']).toBe('<signed at send time>');
    expect(d.rows[2].error.code).toBe('payload_mismatch');
    expect(d.per_target).toEqual([
      { target: `card ${a.id}`, amount_minor: 0, send: 0, answer: 1, refuse: 1, held_back: 0 },
      { target: `card ${b.id}`, amount_minor: 22, send: 1, answer: 0, refuse: 0, held_back: 0 },
    ]);
    expect(d.totals).toEqual({ rows: 3, amount_minor: 22, send: 1, answer: 1, refuse: 1, held_back: 0 });
    expect(d.exit_code).toBe(5);
    expectNoSecret(r, d.rows[1].request.canonical);

    const text = await sb.run(['cards', 'recharge', '--batch', path, '--dry-run'], { env });
    expect(text.stdout).toContain(
      `card ${b.id}: 22 minor units; 1 sent, 0 answered from the journal, 0 refused, 0 held back`,
    );
    expect(text.stdout).toContain(
      'In all: 22 minor units; 1 sent, 1 answered from the journal, 1 refused, 0 held back.',
    );

    expect(readFileSync(journalDb(state(sb))).equals(before)).toBe(true);
    expect(journalRecords(state(sb)).length).toBe(ops);
    expect([await cardBalance(mock, a.id), await cardBalance(mock, b.id)]).toEqual([1011, 1005]);
  });

  it('rows repeating a success under another prefix: held back (exit 2, as the real run); --allow-repeat: sent', async () => {
    const sb = sandbox();
    const card = (await activeCard(mock, { amount: 1000 })).id as string;
    const path = join(sb.dir, 'repeat.csv');
    writeFileSync(path, `card,amount\n${card},7\n`);
    expect((await sb.run(['cards', 'recharge', '--batch', path, '--idempotency-prefix', 'one'], { env })).code).toBe(0);
    const { r, sent } = await counted(sb, [
      'cards',
      'recharge',
      '--batch',
      path,
      '--idempotency-prefix',
      'two',
      '--dry-run',
      '--json',
    ]);
    expect(sent).toBe(0);
    expect(r.code, r.stderr).toBe(2);
    expect(doc(r).rows[0].decision).toBe('held_back');
    expect(doc(r).held_back).toMatchObject({ rows: 1, error: { code: 'repeat_held_back' } });
    const allowed = await sb.run(
      ['cards', 'recharge', '--batch', path, '--idempotency-prefix', 'two', '--allow-repeat', '--dry-run', '--json'],
      { env },
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(doc(allowed).totals).toMatchObject({ send: 1, amount_minor: 7, held_back: 0 });
    expect(await cardBalance(mock, card)).toBe(1007);
  });

  it('in a fresh state folder every row would be sent; no journal is made', async () => {
    const sb = sandbox();
    const customer = (await approvedCustomer(mock)).id as string;
    const path = join(sb.dir, 'issue.csv');
    writeFileSync(path, `customer_id,amount_minor\n${customer},500\n${customer},600\n`);
    const { r, sent } = await counted(sb, ['cards', 'issue', '--batch', path, '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    expect(doc(r).per_target).toEqual([
      { target: `customer ${customer}`, amount_minor: 1100, send: 2, answer: 0, refuse: 0, held_back: 0 },
    ]);
    expect(doc(r).journal).toBeNull();
    expect(filesUnder(sb.stateDir)).toEqual([]);
  });
  it('a long batch: every row and its total, the whole request (headers, canonical string) of the first 100 rows sent', async () => {
    const sb = sandbox();
    const card = (await activeCard(mock, { amount: 10 })).id as string;
    const path = join(sb.dir, 'long.csv');
    const amounts = Array.from({ length: 130 }, (_, i) => i + 1);
    writeFileSync(path, `card,amount\n${amounts.map((a) => `${card},${a}`).join('\n')}\n`);
    const { r, sent } = await counted(sb, ['cards', 'recharge', '--batch', path, '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(sent).toBe(0);
    const d = doc(r);
    expect(d.rows.map((x: any) => x.amount_minor)).toEqual(amounts);
    expect(d.rows.filter((x: any) => x.request !== null)).toHaveLength(100);
    expect(d.rows[100]).toMatchObject({ decision: 'send', request: null, body: '{"amount":101}' });
    expect(d.per_target).toEqual([
      { target: `card ${card}`, amount_minor: (130 * 131) / 2, send: 130, answer: 0, refuse: 0, held_back: 0 },
    ]);
  });
});

describe('--dry-run on both paths', () => {
  it('the fast path and oclif print the same dry run (the fresh values aside)', async () => {
    const sb = sandbox();
    const card = (await activeCard(mock, { amount: 100 })).id as string;
    const args = ['cards', 'recharge', card, '--amount', '5', '--idempotency-key', 'dry-fp', '--dry-run', '--json'];
    const manifest = JSON.parse(readFileSync(join(ROOT, 'oclif.manifest.json'), 'utf8')) as Manifest;
    expect(parseFast(args, manifest)).toMatchObject({ id: 'cards:recharge', flags: { 'dry-run': true } }); // the fast path takes it
    expect(parseFast(['cards', 'recharge', '--batch', 'f.csv', '--dry-run'], manifest)).not.toBeNull();
    expect(parseFast(['webhooks', 'trigger', 'card.issued', '--dry-run'], manifest)).not.toBeNull();
    const fast = await counted(sb, args);
    const slow = await counted(sb, args, { CARDCTL_NO_FAST_PATH: '1' });
    const norm = (r: CliResult) => {
      const d = doc(r);
      delete d.request.headers['X-Timestamp'];
      delete d.request.headers['X-Nonce'];
      delete d.request.canonical;
      return d;
    };
    expect([fast.r.code, slow.r.code]).toEqual([0, 0]);
    expect([fast.sent, slow.sent]).toEqual([0, 0]);
    expect(norm(fast.r)).toEqual(norm(slow.r));
    expect(await cardBalance(mock, card)).toBe(100);
  });
});
