// The tour itself: one section per capability, one `r.step` per command a reader should learn.
// Each step checks the value it promises (same card on replay, wallet moved once, ...) against
// the mock's own books (its control plane), not only against the CLI's output.
//
// Adding a step: one more `await r.step({...})` where it belongs. Steps use the dedicated
// commands (`customers`, `cards`, `deposit-addresses`, `deposits`, `doctor`, `webhooks`); the
// generic `request` appears once, to show that any call can be sent signed. Checks read the
// `key  value` block (keyValues), a table (tableRows) or `--json`. A command that must run while
// others do (a waiting issue, a webhook listener) is `r.start(...)` then `r.wait(...)`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CUSTOMER, CUSTOMER_INVALID } from './fixtures.js';
import { bodyJson, expect, keyValues, tableRows, type CliRun, type Runner } from './runner.js';

export interface WalletRow {
  merchant_id: string;
  mode: 'test' | 'live';
  balance_minor: number;
  cards_balance_minor: number;
  fees_collected_minor: number;
  reserved_minor: number;
  initial_balance_minor: number;
  deposits_credited_minor: number;
}

export interface TourMock {
  baseUrl: string;
  merchantId: string;
  keys: { test: { keyId: string; secret: string }; live: { keyId: string; secret: string } };
  webhookSecret: string;
  products: Array<{ id: string; default: boolean; issue_fee_minor: number }>;
}

export interface TourContext {
  r: Runner;
  mock: TourMock;
  /** the scratch folder the children run in (data files live here) */
  files: string;
  /** a control-plane call of the mock, answered `data` */
  control: (method: string, path: string, body?: unknown) => Promise<any>;
}

interface Card {
  id: string;
  status: string;
  mode: string;
  balance_minor: number;
}

interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  state: string;
  attempts: Array<{ status: number | null }>;
}

/** The card a `cards ...` command printed (its `key  value` block). */
function card(run: { stdout: string }): Card {
  const f = keyValues(run.stdout);
  return { id: f.id ?? '', status: f.status ?? '', mode: f.mode ?? '', balance_minor: Number(f.balance_minor) };
}

/** The NDJSON lines of `webhooks listen --json` after its `{"listening"}` line. */
function deliveries(run: CliRun): Array<{ delivery_id: string; valid: boolean; reason: string; type: string | null; data: Record<string, unknown> | null }> {
  return run.stdout
    .split('\n')
    .filter((l) => l.startsWith('{') && !l.startsWith('{"listening"'))
    .map((l) => JSON.parse(l));
}

export async function runTour(ctx: TourContext): Promise<void> {
  const { r, mock } = ctx;
  const write = (name: string, text: string): void => writeFileSync(join(ctx.files, name), text);
  const wallet = async (mode: 'test' | 'live'): Promise<WalletRow> => {
    const rows = (await ctx.control('GET', '/wallets')) as WalletRow[];
    const row = rows.find((w) => w.merchant_id === mock.merchantId && w.mode === mode);
    if (!row) throw new Error(`the mock has no ${mode} wallet`);
    return row;
  };
  const counts = async (): Promise<{ customers: number; cards: number }> => (await ctx.control('GET', '/state')) as { customers: number; cards: number };
  const fee = mock.products.find((p) => p.default)?.issue_fee_minor ?? 0;

  // ---------------------------------------------------------------------------------------
  r.section('Profiles: a test key and a live key, and a health check');
  await r.step({
    name: 'profiles: add test',
    title: 'Save the test key. Secrets come from stdin (or a hidden prompt), never from a flag',
    argv: ['profiles', 'add', 'test', '--key-id', mock.keys.test.keyId, '--mode', 'test', '--base-url', mock.baseUrl, '--secret-stdin', '--webhook-secret-stdin'],
    display: `printf '%s\\n%s\\n' "$TEST_SECRET" "$WEBHOOK_SECRET" | cardctl profiles add test --key-id ${mock.keys.test.keyId} --mode test --base-url ${mock.baseUrl} --secret-stdin --webhook-secret-stdin`,
    input: `${mock.keys.test.secret}\n${mock.webhookSecret}\n`,
  });
  await r.step({
    name: 'profiles: add live',
    title: 'Save the live key',
    argv: ['profiles', 'add', 'live', '--key-id', mock.keys.live.keyId, '--mode', 'live', '--base-url', mock.baseUrl, '--secret-stdin'],
    display: `printf '%s\\n' "$LIVE_SECRET" | cardctl profiles add live --key-id ${mock.keys.live.keyId} --mode live --base-url ${mock.baseUrl} --secret-stdin`,
    input: `${mock.keys.live.secret}\n`,
  });
  await r.step({
    name: 'profiles: list',
    title: 'List the profiles (the first one became the default)',
    argv: ['profiles', 'list'],
    check: ({ stdout }) => expect(/\btest\b/.test(stdout) && /\blive\b/.test(stdout), 'both profiles should be listed'),
  });
  await r.step({
    name: 'profiles: show',
    title: 'Show one: the secret appears only as a fingerprint',
    argv: ['profiles', 'show', 'test'],
    check: ({ stdout }) => expect(stdout.includes('sha256:'), 'the secret should show as a fingerprint'),
  });
  await r.step({
    name: 'doctor',
    title: 'Check what a call needs: credentials, journal, reach, clock, key, mode, scopes (exit 0: nothing failed)',
    argv: ['doctor'],
    check: ({ stdout }) => {
      const lines = stdout.split('\n').filter((l) => /^\S \S/.test(l));
      expect(lines.length >= 7, `${lines.length} checks reported, expected 7`);
      expect(!lines.some((l) => l.startsWith('✗')), 'a check failed');
      expect(/^✓ mode\s+a test key\b/m.test(stdout), 'the mode check should report a test key');
      expect(stdout.includes(mock.keys.test.keyId), 'the key id should be named');
      return 'every check passed, a test key';
    },
  });

  await r.step({
    name: 'doctor: proxy rules',
    title: 'Proxies follow curl\'s rules: HTTPS_PROXY/HTTP_PROXY/NO_PROXY (either case); doctor and --verbose say which is in use (here NO_PROXY exempts the local mock)',
    argv: ['doctor'],
    env: { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: 'localhost,127.0.0.1' },
    grep: '^. (network|reach) ',
    check: ({ stdout }) => {
      expect(/^✓ network\s+proxy: none \(NO_PROXY matches 127\.0\.0\.1\)/m.test(stdout), 'doctor should say NO_PROXY exempts the mock');
      expect(/^✓ reach\s/m.test(stdout), 'the mock should be reached directly');
      return 'NO_PROXY honoured, the mock reached directly';
    },
  });

  // ---------------------------------------------------------------------------------------
  r.section('Customers: any API call with `request`, and the dedicated commands');
  write('customer.json', JSON.stringify(CUSTOMER, null, 2) + '\n');
  write('customer-invalid.json', JSON.stringify(CUSTOMER_INVALID, null, 2) + '\n');
  let customerId = '';
  await r.step({
    name: 'customers: create',
    title: 'Any API call, signed, with `request`: create a customer from a file; --include shows the status line and headers',
    argv: ['request', 'POST', '/customers', '--data', '@customer.json', '--include'],
    maxLines: 16,
    check: (run) => {
      expect(/^HTTP\/1\.1 202\b/.test(run.stdout), 'the API should answer 202 Accepted');
      customerId = bodyJson<{ data: { id: string } }>(run.stdout).data.id;
      expect(/^[0-9A-Z]{26}$/.test(customerId ?? ''), 'the answer should carry the customer id');
      return `customer ${customerId}`;
    },
  });
  await r.step({
    name: 'customers: get',
    title: 'Read it back with `customers get`: in test mode the KYC verdict is approved at once',
    argv: ['customers', 'get', customerId],
    grep: '^(id|kyc_status|kyc_resolved_at) ',
    check: (run) => {
      const c = keyValues(run.stdout);
      expect(c.id === customerId, `customer ${c.id}, expected ${customerId}`);
      expect(c.kyc_status === 'approved', `kyc_status is ${c.kyc_status}, expected approved`);
      return 'kyc_status approved';
    },
  });
  const before422 = await counts();
  await r.step({
    name: 'customers: validation error',
    title: 'A body with mistakes: refused before sending (nothing was sent), each field named with the API\'s message, exit 2',
    argv: ['customers', 'create', '--from', 'customer-invalid.json'],
    expectExit: 2,
    check: async (run) => {
      expect(/^\s+email: /m.test(run.stderr) && /^\s+phone_number: /m.test(run.stderr), 'the refusal should name email and phone_number');
      expect((await counts()).customers === before422.customers, 'a customer was created on the mock');
      return 'email and phone_number refused, nothing sent';
    },
  });

  // ---------------------------------------------------------------------------------------
  r.section('Cards: issue, replay, recharge, freeze, terminate');
  let cardId = '';
  let before = await wallet('test');
  const issue = ['cards', 'issue', '--customer', customerId, '--amount', '5000'];
  await r.step({
    name: 'cards: issue',
    title: 'Issue a card with an idempotency key (charges 5000 + the product fee)',
    argv: [...issue, '--idempotency-key', 'demo-issue-1'],
    check: async (run) => {
      const c = card(run);
      cardId = c.id;
      expect(/^[0-9A-Z]{26}$/.test(cardId), 'the answer should carry the card id');
      expect(c.status === 'active', `card status ${c.status}, expected active`);
      const after = await wallet('test');
      expect(before.balance_minor - after.balance_minor === 5000 + fee, `the wallet moved ${before.balance_minor - after.balance_minor}, expected ${5000 + fee}`);
      before = after;
      return `card ${cardId}, wallet charged ${5000 + fee}`;
    },
  });
  await r.step({
    name: 'cards: issue replay',
    title: 'The same command again (a retry after a timeout, say): the SAME card, no second charge',
    argv: [...issue, '--idempotency-key', 'demo-issue-1'],
    grep: '^(id|status|balance_minor) ',
    check: async (run) => {
      expect(card(run).id === cardId, `the replay answered card ${card(run).id}, expected ${cardId}`);
      const after = await wallet('test');
      expect(after.balance_minor === before.balance_minor, 'the replay charged the wallet again');
      expect((await counts()).cards === 1, 'the replay created another card');
      return 'same card, wallet unchanged';
    },
  });
  await r.step({
    name: 'cards: recharge',
    title: 'Recharge it (a key is generated and printed on stderr, to replay if needed)',
    argv: ['cards', 'recharge', cardId, '--amount', '2500'],
    grep: '^balance_minor ',
    check: (run) => {
      expect(card(run).balance_minor === 7500, `card balance ${card(run).balance_minor}, expected 7500`);
      expect(/Idempotency-Key: \S+/.test(run.stderr), 'the generated idempotency key should be printed');
      return 'card balance 7500';
    },
  });
  for (const [action, status] of [
    ['freeze', 'frozen'],
    ['unfreeze', 'active'],
  ] as const) {
    await r.step({
      name: `cards: ${action}`,
      title: action === 'freeze' ? 'Freeze it (no money moves)' : 'Unfreeze it',
      argv: ['cards', action, cardId],
      grep: '^(status|balance_minor) ',
      check: (run) => {
        expect(card(run).status === status, `card status ${card(run).status}, expected ${status}`);
        expect(card(run).balance_minor === 7500, 'the balance should be kept');
        return `status ${status}`;
      },
    });
  }
  await r.step({
    name: 'cards: terminate too early',
    title: 'Terminate it now: refused, a card under an hour old cannot be terminated (exit 5)',
    argv: ['cards', 'terminate', cardId, '--reason', 'no_longer_needed'],
    expectExit: 5,
    check: (run) => {
      expect(/^\s+card: termination_blocked$/m.test(run.stderr), 'expected card: termination_blocked');
      return 'termination_blocked';
    },
  });
  await r.step({
    name: 'mock: clock advance',
    title: "Move the mock's simulated clock one hour forward",
    argv: ['mock', 'clock', 'advance', '3600'],
  });
  await r.step({
    name: 'mock: transaction capture',
    title: 'The issuer reports activity on the card (through the mock control plane)',
    argv: ['mock', 'transactions', 'add', cardId, '--type', 'capture', '--amount', '1250'],
  });
  await r.step({
    name: 'mock: transaction authorization',
    title: 'And a pending authorization',
    argv: ['mock', 'transactions', 'add', cardId, '--type', 'authorization', '--amount', '300', '--status', 'pending'],
  });
  await r.step({
    name: 'cards: transactions',
    title: 'List the card transactions, newest first (--per-page, --cursor and --all page through them)',
    argv: ['cards', 'transactions', cardId, '--per-page', '5'],
    check: (run) => {
      const rows = tableRows(run.stdout);
      expect(rows.length === 2, `${rows.length} transactions listed, expected 2`);
      expect(rows[0]?.TYPE === 'authorization' && rows[1]?.TYPE === 'capture', 'expected the authorization, then the capture');
      return '2 transactions';
    },
  });
  before = await wallet('test');
  await r.step({
    name: 'cards: terminate',
    title: 'Terminate it now: the remaining balance goes back to the wallet',
    argv: ['cards', 'terminate', cardId, '--reason', 'no_longer_needed'],
    grep: '^(status|balance_minor) ',
    check: async (run) => {
      expect(card(run).status === 'terminated', `card status ${card(run).status}, expected terminated`);
      const after = await wallet('test');
      expect(after.balance_minor - before.balance_minor === 7500, `the wallet got back ${after.balance_minor - before.balance_minor}, expected 7500`);
      return 'terminated, 7500 refunded';
    },
  });

  // Bulk: rows checked first, a key per row; a refused row says what to do for its customer's state
  write('customer-rejected.json', JSON.stringify({ ...CUSTOMER, first_name: 'Mallory', last_name: 'Reject', email: 'mallory@example.com' }, null, 2) + '\n');
  let rejectedId = '';
  await r.step({
    name: 'customers: rejected',
    title: 'Another customer, whose verification is rejected (the mock rejects a last_name of Reject)',
    argv: ['customers', 'create', '--from', 'customer-rejected.json'],
    grep: '^(id|last_name) ',
    check: (run) => {
      rejectedId = keyValues(run.stdout).id ?? '';
      expect(/^[0-9A-Z]{26}$/.test(rejectedId), 'the answer should carry the customer id');
      return `customer ${rejectedId}`;
    },
  });
  write('cards.csv', `customer_id,amount_minor\n${customerId},1000\n${rejectedId},1000\n`);
  before = await wallet('test');
  await r.step({
    name: 'cards: batch',
    title: "Issue cards in bulk from a CSV (every row checked first, one idempotency key per row); a refused row says what to do for its customer's state, as the single command does (exit 5)",
    argv: ['cards', 'issue', '--batch', 'cards.csv'],
    expectExit: 5,
    check: async (run) => {
      const rows = tableRows(run.stdout);
      expect(rows[0]?.STATUS === 'ok' && rows[1]?.STATUS === 'error', `rows answered ${rows.map((x) => x.STATUS).join(', ')}, expected ok, error`);
      expect(
        rows[1]?.DETAIL?.includes(`Customer ${rejectedId}'s verification was rejected (identity_mismatch)`) && rows[1].DETAIL.includes(`cardctl customers kyc ${rejectedId}`),
        'the refused row should say the verification was rejected, and how to resubmit',
      );
      const after = await wallet('test');
      expect(before.balance_minor - after.balance_minor === 1000 + fee, `the wallet moved ${before.balance_minor - after.balance_minor}, expected ${1000 + fee} (row 1 only)`);
      return 'row 1 issued; row 2 refused, rejected (identity_mismatch): fix and resubmit, waiting will not help';
    },
  });

  // ---------------------------------------------------------------------------------------
  r.section('Live mode: deposits fund the live wallet');
  await r.step({
    name: 'live: deposit address',
    title: 'A deposit address, with the live profile (live keys only)',
    argv: ['deposit-addresses', 'create', '--network', 'trc20', '--profile', 'live'],
    check: (run) => {
      const a = keyValues(run.stdout);
      expect(a.network === 'trc20' && (a.address ?? '').length > 0, 'the answer should carry a trc20 address');
      return `address ${a.address}`;
    },
  });
  await r.step({
    name: 'live: test key refused',
    title: 'The same with the test key: 403, exit 3',
    argv: ['deposit-addresses', 'create', '--network', 'trc20'],
    expectExit: 3,
  });
  let live = await wallet('live');
  await r.step({
    name: 'mock: deposit',
    title: 'A deposit of 250 USDT arrives (through the mock control plane)',
    argv: ['mock', 'deposits', 'add', '--network', 'trc20', '--asset-amount', '250'],
    check: async () => {
      const after = await wallet('live');
      expect(after.balance_minor - live.balance_minor === 25000, `the live wallet moved ${after.balance_minor - live.balance_minor}, expected 25000`);
      live = after;
      return 'live wallet credited 25000';
    },
  });
  await r.step({
    name: 'live: deposits list',
    title: 'List the deposits',
    argv: ['deposits', 'list', '--profile', 'live'],
    check: (run) => {
      const rows = tableRows(run.stdout);
      expect(rows.length === 1 && rows[0]?.STATUS === 'credited', 'expected one credited deposit');
      return '1 credited deposit';
    },
  });
  const liveIssue = [...issue, '--profile', 'live'];
  await r.step({
    name: 'live: money needs --yes',
    title: 'A live money operation without a terminal to confirm on: refused before sending (exit 2)',
    argv: liveIssue,
    expectExit: 2,
    check: async () => {
      expect((await wallet('live')).balance_minor === live.balance_minor, 'the live wallet moved');
      return 'nothing sent';
    },
  });
  await r.step({
    name: 'live: issue with --yes',
    title: 'Confirmed with --yes: a live card, paid from the deposit',
    argv: [...liveIssue, '--yes'],
    grep: '^(id|status|mode) ',
    check: async (run) => {
      expect(card(run).mode === 'live', `card mode ${card(run).mode}, expected live`);
      const after = await wallet('live');
      expect(live.balance_minor - after.balance_minor === 5000 + fee, 'the live wallet should pay the load and the fee');
      return `live card ${card(run).id}`;
    },
  });

  // ---------------------------------------------------------------------------------------
  r.section('When the outcome is unknown: --wait, the journal and ops replay');
  await r.step({
    name: 'mock: fault async_202',
    title: 'Make the next issue answer 202: the card is still being provisioned',
    argv: ['mock', 'faults', 'add', '--operation', 'issue', '--kind', 'async_202', '--count', '1'],
  });
  before = await wallet('test');
  let card2 = '';
  const pending = /pending \(card ([0-9A-Z]{26})\)/;
  const waiting = await r.start({
    name: 'cards: issue --wait',
    title: 'Issue another card with --wait: on a 202 it replays the same key until the card is active or failed',
    argv: [...issue, '--idempotency-key', 'demo-issue-2', '--wait', '--wait-timeout', '20'],
    ready: ({ stderr }) => pending.test(stderr),
    readyNote: ({ stderr }) => `card ${(card2 = pending.exec(stderr)?.[1] ?? '')} pending`,
    check: async (run) => {
      const c = card(run);
      expect(c.id === card2, `the wait answered card ${c.id}, expected ${card2}`);
      expect(c.status === 'active', `card status ${c.status}, expected active`);
      const after = await wallet('test');
      expect(before.balance_minor - after.balance_minor === 5000 + fee, `the wallet moved ${before.balance_minor - after.balance_minor}, expected ${5000 + fee} (once)`);
      expect(after.reserved_minor === 0, 'money is still reserved for the card');
      before = after;
      return `card ${card2} active, charged once`;
    },
  });
  await r.step({
    name: 'mock: provision',
    title: 'Meanwhile, the issuer finishes provisioning it (through the mock control plane)',
    argv: ['mock', 'provision', card2, '--outcome', 'active'],
    grep: '^(id|status) ',
  });
  await r.wait(waiting, { name: 'cards: issue --wait, done', title: 'The waiting command sees the card active and prints it' });
  await r.step({
    name: 'mock: fault 500_after_commit',
    title: 'Make the next recharge succeed but answer 500 (the worst case: money moved, answer lost)',
    argv: ['mock', 'faults', 'add', '--operation', 'recharge', '--kind', '500_after_commit', '--count', '1'],
  });
  r.say('--retries 0 shows the raw outcome; by default cardctl would replay the same key itself.');
  await r.step({
    name: 'cards: recharge, answer lost',
    title: 'Recharge: exit 7, "outcome unknown", with the key to replay',
    argv: ['cards', 'recharge', card2, '--amount', '1000', '--idempotency-key', 'demo-recharge-1', '--retries', '0'],
    expectExit: 7,
    check: async (run) => {
      expect(run.stderr.includes('demo-recharge-1'), 'the idempotency key should be printed');
      const after = await wallet('test');
      expect(before.balance_minor - after.balance_minor === 1000, 'the recharge should have moved 1000 despite the 500');
      before = after;
      return 'the wallet did move 1000';
    },
  });
  await r.step({
    name: 'ops: list unresolved',
    title: 'The journal knows which money operations have an unknown outcome',
    argv: ['ops', 'list', '--unresolved'],
    check: ({ stdout }) => expect(stdout.includes('demo-recharge-1'), 'the recharge should be listed as unresolved'),
  });
  await r.step({
    name: 'ops: replay',
    title: 'Replay it: the same bytes with the same key; the API answers the original outcome',
    argv: ['ops', 'replay', 'demo-recharge-1'],
    grep: '"(id|balance_minor)"',
    check: async (run) => {
      const c = bodyJson<{ data: Card }>(run.stdout).data;
      expect(c.balance_minor === 6000, `card balance ${c.balance_minor}, expected 6000 (5000 + 1000 once)`);
      const after = await wallet('test');
      expect(after.balance_minor === before.balance_minor, 'the replay charged the wallet again');
      return 'card balance 6000, charged once';
    },
  });
  await r.step({
    name: 'mock: fault on a read',
    title: 'Faults reach every operation: make the next customers.get answer 500',
    argv: ['mock', 'faults', 'add', '--operation', 'customers.get', '--kind', '500', '--count', '1'],
  });
  await r.step({
    name: 'customers: get, service failed',
    title: 'A 500 on a call that moves no money: exit 8, "the service failed: retry later" (nothing to replay)',
    argv: ['customers', 'get', customerId, '--retries', '0'],
    expectExit: 8,
    check: ({ stderr }) => {
      expect(stderr.includes('the service failed (500)'), 'the error should say the service failed');
      return 'retry later';
    },
  });
  await r.step({
    name: 'typo: did you mean',
    title: 'A typo gets a suggestion (only command words are repeated, never an argument)',
    argv: ['card', 'get', card2],
    expectExit: 2,
    check: ({ stderr }) => {
      expect(stderr.includes('Did you mean `cardctl cards get …`?'), 'the error should suggest cards get');
      expect(!stderr.includes(card2), 'the argument should not be repeated');
      return 'cardctl cards get';
    },
  });
  await r.step({
    name: 'mock: fault 500_after_commit, again',
    title: 'Once more, a recharge that succeeds but answers 500',
    argv: ['mock', 'faults', 'add', '--operation', 'recharge', '--kind', '500_after_commit', '--count', '1'],
  });
  await r.step({
    name: 'cards: recharge, answer lost again',
    title: 'Recharge 500: exit 7, outcome unknown',
    argv: ['cards', 'recharge', card2, '--amount', '500', '--idempotency-key', 'demo-recharge-2', '--retries', '0'],
    expectExit: 7,
    check: async () => {
      const after = await wallet('test');
      expect(before.balance_minor - after.balance_minor === 500, 'the recharge should have moved 500 despite the 500');
      before = after;
      return 'the wallet did move 500';
    },
  });
  r.say('When a replay is not possible (the service or the mock is gone, or the key is past the API\'s 24 hours), learn the outcome elsewhere and record it.');
  await r.step({
    name: 'cards: get, to learn the outcome',
    title: 'The card shows the 500: the recharge went through',
    argv: ['cards', 'get', card2, '--json'],
    grep: '"balance_minor"',
    check: (run) => {
      const c = bodyJson<Card>(run.stdout);
      expect(c.balance_minor === 6500, `card balance ${c.balance_minor}, expected 6500`);
      return 'card balance 6500';
    },
  });
  await r.step({
    name: 'ops: resolve',
    title: 'Record what you learned: appended to the journal, nothing deleted',
    argv: ['ops', 'resolve', 'demo-recharge-2', '--outcome', 'succeeded', '--note', 'cards get shows the 500'],
    grep: '^(id|outcome|resolution) ',
    check: ({ stderr }) => expect(stderr.includes('Recorded: '), 'ops resolve should say what it recorded'),
  });
  await r.step({
    name: 'ops: nothing unresolved',
    title: 'Nothing left unresolved (the --wait issue resolved itself; the last recharge was resolved by hand)',
    argv: ['ops', 'list', '--unresolved'],
    check: ({ stdout }) => expect(!stdout.includes('demo-recharge-1') && !stdout.includes('demo-issue-2') && !stdout.includes('demo-recharge-2'), 'an operation is still unresolved'),
  });
  r.say('One key, two shells: while one cardctl process sends a key, another one refuses it instead of sending it too.');
  await r.step({
    name: 'mock: fault slow',
    title: 'Make the next recharge answer 3 s late (done at once, answered late)',
    argv: ['mock', 'faults', 'add', '--operation', 'recharge', '--kind', 'slow', '--ms', '3000', '--count', '1'],
  });
  before = await wallet('test');
  const slow = await r.start({
    name: 'cards: recharge, answered late',
    title: 'A recharge in one shell, waiting for its answer (--verbose shows the attempt going out)',
    argv: ['cards', 'recharge', card2, '--amount', '100', '--idempotency-key', 'demo-recharge-3', '--verbose'],
    maxLines: 3,
    ready: ({ stderr }) => stderr.includes('> attempt 1 of'),
    check: async (run) => {
      expect(card(run).balance_minor === 6600, `card balance ${card(run).balance_minor}, expected 6600`);
      const after = await wallet('test');
      expect(before.balance_minor - after.balance_minor === 100, `the wallet moved ${before.balance_minor - after.balance_minor}, expected 100 (once)`);
      before = after;
      return 'recharged once';
    },
  });
  await r.step({
    name: 'cards: recharge, same key in a second shell',
    title: 'The same command in a second shell meanwhile: refused at once, nothing sent (exit 9, key_in_use)',
    argv: ['cards', 'recharge', card2, '--amount', '100', '--idempotency-key', 'demo-recharge-3'],
    expectExit: 9,
    check: ({ stderr }) => {
      expect(stderr.includes('another cardctl process (pid '), 'the refusal should name the process sending the key');
      return 'another cardctl process is sending it';
    },
  });
  await r.wait(slow, { name: 'cards: recharge, answered late, done', title: 'The first shell gets its answer: the card recharged once' });

  // ---------------------------------------------------------------------------------------
  r.section('Signatures: sign and diagnose');
  // A client that pretty-prints the body it signs but sends it compact: the classic mistake.
  const body = { customer_id: customerId, amount_minor: 5000 };
  write('pretty.json', JSON.stringify(body, null, 2));
  const ts = String(Math.floor(Date.now() / 1000));
  const nonce = '6f1c2d3e-4b5a-4c7d-9e8f-0a1b2c3d4e5f';
  let signature = '';
  await r.step({
    name: 'sign: json',
    title: 'Sign a request locally: canonical string, body hash, signature, headers, curl',
    argv: ['sign', '--method', 'POST', '--path', '/cards', '--data', '@pretty.json', '--timestamp', ts, '--nonce', nonce, '--json'],
    maxLines: 12,
    check: (run) => {
      signature = bodyJson<{ signature: string }>(run.stdout).signature;
      expect(/^[A-Za-z0-9+/]{43}=$/.test(signature ?? ''), 'expected a base64 signature');
      return 'signature computed';
    },
  });
  const compact = JSON.stringify(body);
  write(
    'failing.http',
    [
      'POST /api/v1/cards HTTP/1.1',
      `Host: ${new URL(mock.baseUrl).host}`,
      'Content-Type: application/json',
      `X-Api-Key: ${mock.keys.test.keyId}`,
      `X-Timestamp: ${ts}`,
      `X-Nonce: ${nonce}`,
      `X-Signature: ${signature}`,
      `Content-Length: ${Buffer.byteLength(compact)}`,
      '',
      compact,
    ].join('\r\n'),
  );
  r.say('failing.http: that signature, on a request whose body was sent compact (as a proxy dump shows it).');
  await r.step({
    name: 'sign: diagnose',
    title: 'Diagnose it: cardctl recomputes the signature and names the mistake (exit 3)',
    argv: ['sign', 'diagnose', '--request', 'failing.http'],
    expectExit: 3,
    maxLines: 4,
    check: ({ stdout }) => {
      expect(stdout.includes('pretty-printed'), 'the diagnosis should name the pretty-printed body');
      return 'mistake named: pretty-printed body';
    },
  });

  // ---------------------------------------------------------------------------------------
  r.section('Webhooks: sign, verify, and a live listener');
  const events = (await ctx.control('GET', '/events')) as Array<{ type: string; occurred_at: string; data: unknown }>;
  const issued = events.find((e) => e.type === 'card.issued');
  const event = issued ? { type: issued.type, occurred_at: issued.occurred_at, data: issued.data } : { type: 'card.issued', occurred_at: new Date().toISOString(), data: { card_id: cardId } };
  write('event.json', JSON.stringify(event));
  write('event-reparsed.json', JSON.stringify(event, null, 2));
  r.say('event.json: the card.issued event of the first card, exactly as a webhook delivers it.');
  let header = '';
  await r.step({
    name: 'webhooks: sign',
    title: "Sign a webhook payload with the profile's webhook secret",
    argv: ['webhooks', 'sign', '--payload', 'event.json'],
    check: ({ stdout }) => {
      header = stdout.trim();
      expect(/^t=\d+, v1=[0-9a-f]{64}$/.test(header), 'expected a "t=..., v1=..." header');
      return 'X-Service-Signature value';
    },
  });
  await r.step({
    name: 'webhooks: verify',
    title: 'Verify it against the raw payload',
    argv: ['webhooks', 'verify', '--header', header, '--payload', 'event.json'],
  });
  r.say('event-reparsed.json: the same event after a body parser and JSON.stringify(event, null, 2).');
  await r.step({
    name: 'webhooks: verify tampered',
    title: 'Verify a re-serialized payload: refused, with the usual cause (exit 3)',
    argv: ['webhooks', 'verify', '--header', header, '--payload', 'event-reparsed.json'],
    expectExit: 3,
    check: ({ stderr }) => expect(/raw body/i.test(stderr), 'the hint should point at the raw body'),
  });
  await r.step({
    name: 'mock: webhook endpoint refused',
    title: 'Endpoint URLs follow the spec: an address that is not globally reachable (here 10.0.0.1 as an IPv4-mapped IPv6 literal) is refused, naming its block (exit 2); loopback is the one exception',
    argv: ['mock', 'webhook-endpoints', 'add', 'https://[::ffff:10.0.0.1]/hooks'],
    expectExit: 2,
    check: ({ stderr }) => expect(/::ffff:0:0\/96.*not globally reachable/.test(stderr), 'the refusal should name the block'),
  });
  let eventId = '';
  const listener = await r.start({
    name: 'webhooks: listen',
    title: 'A local receiver, registered on the mock as a webhook endpoint; it verifies each delivery with the webhook secret',
    argv: ['webhooks', 'listen', '--mock', '--max-events', '1', '--json'],
    ready: ({ stdout }) => /^\{"listening"/m.test(stdout),
    readyNote: ({ stdout }) => `listening on ${(JSON.parse(stdout.split('\n')[0]!) as { listening: string }).listening}`,
    check: async (run) => {
      const got = deliveries(run);
      expect(got.length === 1, `${got.length} deliveries printed, expected 1`);
      const d = got[0]!;
      expect(d.valid && d.reason === 'ok', `the delivery failed verification (${d.reason})`);
      expect(d.type === 'card.issued' && d.data?.card_id === cardId, 'expected the card.issued event of the first card');
      const log = (await ctx.control('GET', '/webhook-deliveries')) as Delivery[];
      const sent = log.find((x) => x.id === d.delivery_id);
      expect(sent?.event_id === eventId, 'the mock has no delivery of the triggered event with that id');
      expect(sent.state === 'succeeded' && sent.attempts.at(-1)?.status === 200, `the mock's delivery is ${sent.state}, expected succeeded with 200`);
      return `delivery ${d.delivery_id} verified; the mock logged it as answered 200`;
    },
  });
  await r.step({
    name: 'webhooks: trigger',
    title: 'Ask the mock to emit card.issued for the first card (delivered to every endpoint)',
    argv: ['webhooks', 'trigger', 'card.issued', '--data', JSON.stringify({ card_id: cardId })],
    check: async (run) => {
      const e = keyValues(run.stdout);
      eventId = e.id ?? '';
      const recorded = ((await ctx.control('GET', '/events')) as Array<{ id: string; type: string }>).find((x) => x.id === eventId);
      expect(recorded?.type === 'card.issued', 'the mock should have recorded the card.issued event');
      return `event ${eventId}`;
    },
  });
  await r.wait(listener, { name: 'webhooks: listen, delivery', title: 'The receiver got one delivery, verified it, and stopped (--max-events 1)' });
  await r.step({
    name: 'mock: webhook-deliveries',
    title: "The mock's delivery log, narrowed to that event (--event, --endpoint, --state pending|succeeded|dead): each attempt with its status",
    argv: ['mock', 'webhook-deliveries', '--event', eventId, '--json'],
    maxLines: 24,
    check: ({ stdout }) => {
      const log = JSON.parse(stdout) as Delivery[];
      expect(log.length >= 1 && log.every((d) => d.event_id === eventId), `expected only the deliveries of event ${eventId}`);
      expect(log.some((d) => d.state === 'succeeded'), 'expected the delivery the receiver verified, succeeded');
      return `${log.length} deliver${log.length === 1 ? 'y' : 'ies'} of event ${eventId}, ${log.filter((d) => d.state === 'succeeded').length} succeeded`;
    },
  });

  // A profile picks its mock (and the trigger's mode): `-p test` for the listener, `-p live` for a live event
  let liveEventId = '';
  const profileListener = await r.start({
    name: 'webhooks: listen -p',
    title: "A receiver on the mock a profile points at (-p, or CARDCTL_PROFILE): the mock that signs with that profile's webhook secret, even while newer mocks run",
    argv: ['webhooks', 'listen', '--mock', '-p', 'test', '--max-events', '1', '--json'],
    ready: ({ stdout }) => /^\{"listening"/m.test(stdout),
    readyNote: ({ stdout }) => `listening on ${(JSON.parse(stdout.split('\n')[0]!) as { listening: string }).listening}`,
    check: async (run) => {
      const got = deliveries(run);
      expect(got.length === 1 && got[0]!.valid, 'expected one verified delivery');
      const log = (await ctx.control('GET', '/webhook-deliveries')) as Delivery[];
      expect(log.find((x) => x.id === got[0]!.delivery_id)?.event_id === liveEventId, 'the delivery should be of the live event');
      return `live event ${liveEventId} delivered and verified`;
    },
  });
  await r.step({
    name: 'webhooks: trigger -p live',
    title: "Trigger with the live profile: the event is in the mode of the profile's key (live); --mode overrides",
    argv: ['webhooks', 'trigger', 'card.issued', '-p', 'live'],
    grep: '^(id|mode|type) ',
    check: async (run) => {
      const e = keyValues(run.stdout);
      liveEventId = e.id ?? '';
      expect(e.mode === 'live', `the event is in ${e.mode} mode, expected live`);
      const recorded = ((await ctx.control('GET', '/events')) as Array<{ id: string; mode: string }>).find((x) => x.id === liveEventId);
      expect(recorded?.mode === 'live', 'the mock should have recorded a live event');
      return `live event ${liveEventId}`;
    },
  });
  await r.wait(profileListener, { name: 'webhooks: listen -p, delivery', title: 'The receiver got the live event, verified it, and removed itself' });

  // A receiver to grade: `webhooks listen` verifies over the raw bytes, so it should pass every case.
  let receiverUrl = '';
  const receiver = await r.start({
    name: 'webhooks: receiver to grade',
    title: 'Start a receiver to grade (here `webhooks listen`, which verifies each delivery with the webhook secret)',
    argv: ['webhooks', 'listen', '--json'],
    maxLines: 2,
    ready: ({ stdout }) => /^\{"listening"/m.test(stdout),
    readyNote: ({ stdout }) => `listening on ${(receiverUrl = (JSON.parse(stdout.split('\n')[0]!) as { listening: string }).listening)}`,
    check: (run) => {
      const got = deliveries(run);
      expect(got.filter((d) => !d.valid).length === 9, `the receiver refused ${got.filter((d) => !d.valid).length} deliveries, expected the 9 forgeries`);
      return `${got.length} deliveries received, ${got.filter((d) => d.valid).length} verified`;
    },
  });
  await r.step({
    name: 'webhooks: test',
    title: 'Grade it: every event type must be accepted, every forged, stale or re-serialized delivery refused (exit 0: all as expected)',
    argv: ['webhooks', 'test', receiverUrl],
    maxLines: 30,
    check: ({ stdout }) => {
      expect(/^✓ 24 cases: 23 passed, 0 failed, 1 info/m.test(stdout), 'expected 23 cases passed and 1 information');
      return '23 passed, the duplicate delivery reported as information';
    },
  });
  await r.stop(receiver, { name: 'webhooks: receiver stopped', title: 'Stop the receiver (Ctrl-C): it logged every delivery, and refused exactly the forgeries' });

  // ---------------------------------------------------------------------------------------
  r.section('CI: a smoke test of the whole integration, with a JUnit report');
  await r.step({
    name: 'smoke',
    title: 'Smoke-test the integration with the test key: setup, signing, customers, cards, funding; one case each, at most 30 requests (exit 0: all passed)',
    argv: ['smoke', '--junit', 'smoke.xml'],
    maxLines: 30,
    check: ({ stdout }) => {
      expect(/^✓ 22 cases: 22 passed, 0 failed/m.test(stdout), 'expected 22 cases passed');
      const created = /^created: customer ([0-9A-Z]{26}), card ([0-9A-Z]{26}) \(frozen\)/m.exec(stdout);
      expect(created !== null, 'the smoke test should name the customer and the frozen card it created');
      const xml = readFileSync(join(ctx.files, 'smoke.xml'), 'utf8');
      expect(/<testsuite name="cardctl smoke" tests="22" failures="0"/.test(xml), 'smoke.xml should hold the 22 cases, none failed');
      return `22 passed; card ${created![2]} left frozen; smoke.xml written`;
    },
  });

  // ---------------------------------------------------------------------------------------
  r.section('Snapshots: a test suite resets the mock between tests in milliseconds');
  const saved = await counts();
  await r.step({
    name: 'mock: snapshot save',
    title: 'Save the whole mock state under a name (a suite does this once, after preparing its data)',
    argv: ['mock', 'snapshot', 'save', 'tour'],
  });
  await r.step({
    name: 'mock: reset',
    title: 'A test changes everything (here: back to the seeded start, no customer, no card)',
    argv: ['mock', 'reset'],
    grep: '^(customers|cards) ',
    check: async () => {
      const now = await counts();
      expect(now.customers === 0 && now.cards === 0, `${now.customers} customers and ${now.cards} cards after the reset, expected none`);
      return 'no customer, no card';
    },
  });
  await r.step({
    name: 'mock: snapshot restore',
    title: 'Restore the snapshot before the next test: every customer, card and balance is back',
    argv: ['mock', 'snapshot', 'restore', 'tour'],
    check: async () => {
      const now = await counts();
      expect(now.customers === saved.customers && now.cards === saved.cards, `${now.customers} customers and ${now.cards} cards, expected ${saved.customers} and ${saved.cards}`);
      return `${now.customers} customers and ${now.cards} cards back`;
    },
  });

  // ---------------------------------------------------------------------------------------
  r.section('The books, and shell completion');
  await r.step({
    name: 'mock: wallets',
    title: "The mock's wallets: every minor unit accounted for",
    argv: ['mock', 'wallets'],
    check: async () => {
      const rows = (await ctx.control('GET', '/wallets')) as WalletRow[];
      for (const w of rows) {
        const held = w.balance_minor + w.cards_balance_minor + w.fees_collected_minor + w.reserved_minor;
        expect(held === w.initial_balance_minor + w.deposits_credited_minor, `the ${w.mode} wallet does not balance`);
      }
      return 'money conserved in every wallet';
    },
  });
  await r.step({
    name: 'completion: bash',
    title: 'Shell completion (bash, zsh, fish)',
    argv: ['completion', 'bash'],
    display: 'cardctl completion bash | head -5',
    maxLines: 5,
    quietTrim: true,
    check: ({ stdout }) => expect(/\bcomplete\b/.test(stdout), 'expected a bash completion script'),
  });
}
