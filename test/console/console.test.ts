// The mock's web console (issue 37) in a real browser: `cardctl mock start --console` (the built
// CLI, port 0), the login code from its stderr, real requests signed by the CLI (one good, three
// with a signing mistake each), and what the page shows: the refusals with their named mistakes,
// the canonical strings side by side, a card's balance after a recharge from the CLI, a KYC
// verdict forced from the page and read back with `cardctl customers get`, a snapshot restored
// from the page. Then the guards: no cookie, a wrong Host, a cross-origin POST, a request full of
// markup and control characters shown as text, no secret in any answer, and axe-core.
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect } from 'node:net';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { EVENT_TYPES } from '../../src/contract/resources.js';
import { FAULT_KINDS } from '../../src/mock/faults.js';
import { makeSandbox, type CliResult } from '../helpers/cli.js';
import { startMockProcess, type MockProcess } from '../helpers/mock-process.js';
import { needs } from '../helpers/programs.js';
import { launchBrowser, type Browser } from './browser.js';

const HAS_BROWSER = needs('chromium');
const sandbox = makeSandbox();
let mock: MockProcess | undefined;
/** a webhook receiver that refuses every delivery (500): the deliveries are retried */
let receiver: Server | undefined;
let browser: Browser | undefined;
let page: Page;
let origin = '';
let env: Record<string, string> = {};
/** every body the console answered the page, to look for secrets in */
const seen: string[] = [];

const cli = (args: string[]): Promise<CliResult> => sandbox.run(args, { env });

/**
 * An element's text as the DOM holds it (textContent): the console hides nothing with CSS, so it
 * is the text a person reads there, without innerText's layout work (Biome's useDomNodeTextContent).
 */
const textOf = async (l: Locator): Promise<string> => (await l.textContent()) ?? '';
/** A table's text laid out as innerText lays it out, from its cells' textContent: a tab between cells, a line a row. */
async function tableText(table: Locator): Promise<string> {
  const rows: string[] = [];
  for (const row of await table.locator('tr').all())
    rows.push((await row.locator('th, td').allTextContents()).join('\t'));
  return rows.join('\n');
}
const json = (r: CliResult) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};

async function loginUrl(m: MockProcess): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const found = /console: (http:\/\/\S+\/_console\/login\?code=\S+)/.exec(m.stderr());
    if (found) return found[1]!;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no console address on stderr: ${m.stderr()}`);
}

/** One request as the CLI signed it (`cardctl sign --json`), sent with what `change` alters. */
async function sendSigned(sign: string[], send: { method: string; path: string; body?: string }): Promise<number> {
  const s = json(await cli(['sign', ...sign, '--json']));
  const res = await fetch(`${origin}${send.path}`, {
    method: send.method,
    headers: { ...s.headers, ...(send.body ? { 'Content-Type': 'application/json' } : {}) },
    body: send.body,
  });
  await res.arrayBuffer();
  return res.status;
}

/** A raw request to the mock's port with any headers (a Host of our choosing too). */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers }, (res) => {
      let text = '';
      res.on('data', (d: Buffer) => (text += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Bytes written as they are (node's client refuses control characters in a header). */
function rawSocket(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const u = new URL(origin);
    const socket = connect(Number(u.port), u.hostname, () => socket.end(text));
    let got = '';
    socket.on('data', (d: Buffer) => (got += d.toString()));
    socket.on('end', () => resolve(got));
    socket.on('error', reject);
  });
}

async function cookieHeader(): Promise<string> {
  const cookies = await browser!.context.cookies(`${origin}/_console/`);
  return cookies.map((c) => `${c.name}=${c.value}`).join('; ');
}

beforeAll(async () => {
  if (!HAS_BROWSER) return;
  mock = await startMockProcess(sandbox, ['--console', '--seed', '37']);
  origin = new URL(mock.banner.base_url).origin;
  env = {
    CARDCTL_API_KEY: mock.banner.keys.test.key_id,
    CARDCTL_API_SECRET: mock.banner.keys.test.secret,
    CARDCTL_BASE_URL: mock.banner.base_url,
  };
  browser = await launchBrowser();
  page = await browser.context.newPage();
  page.on('response', async (res) => {
    if (!res.url().startsWith(origin)) return;
    try {
      seen.push(await res.text());
    } catch {
      /* a redirect or an event stream has no body to read */
    }
  });
  await page.goto(await loginUrl(mock));
}, 60_000);

afterAll(async () => {
  await new Promise((r) => (receiver ? receiver.close(r) : r(null)));
  await browser?.close();
  await mock?.stop();
  sandbox.cleanup();
});

describe.runIf(HAS_BROWSER)('the console in a browser', () => {
  it('logs in with the one-time code: an HttpOnly SameSite=Strict cookie, the code gone from the address bar', async () => {
    expect(page.url()).toBe(`${origin}/_console/`);
    const cookies = await browser!.context.cookies(`${origin}/_console/`);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/_console' });
    expect(cookies[0]!.value).not.toContain(mock!.banner.control_token);
    await expect(page.getByRole('heading', { name: 'Requests' }).isVisible()).resolves.toBe(true);
    // the code works once: a second browser profile cannot use it again
    const again = await raw('GET', new URL(await loginUrl(mock!)).pathname + new URL(await loginUrl(mock!)).search, {
      Host: new URL(origin).host,
    });
    expect(again.status).toBe(401);
  });

  it('`cardctl mock console` prints a new login address that opens the console', async () => {
    const r = json(await cli(['mock', 'console', '--json']));
    expect(r.login_url).toMatch(new RegExp(`^${origin}/_console/login\\?code=`));
    expect(r.login_url).not.toContain(mock!.banner.control_token);
    const p2 = await browser!.context.newPage();
    await p2.goto(r.login_url);
    expect(p2.url()).toBe(`${origin}/_console/`);
    await p2.close();
  });

  it('shows the log live: a good request and three signing mistakes, each named, with both canonical strings', async () => {
    await page.goto(`${origin}/_console/#/requests`);
    expect(json(await cli(['customers', 'list', '--json'])).data).toBeDefined();
    const compact = '{"first_name":"Ada"}';
    const pretty = JSON.stringify(JSON.parse(compact), null, 2);
    expect(
      await sendSigned(['--method', 'POST', '--path', '/api/v1/customers', '--data', pretty], {
        method: 'POST',
        path: '/api/v1/customers',
        body: compact,
      }),
    ).toBe(401);
    expect(
      await sendSigned(['--method', 'POST', '--path', '/api/v1/customers', '--data', `${compact}\n`], {
        method: 'POST',
        path: '/api/v1/customers',
        body: compact,
      }),
    ).toBe(401);
    expect(
      await sendSigned(['--method', 'GET', '--path', '/api/v1/customers', '--timestamp', String(Date.now())], {
        method: 'GET',
        path: '/api/v1/customers',
      }),
    ).toBe(401);
    // the live stream refreshes the list: no reload
    const rows = page.locator('table.requests tbody tr');
    const apiRows = rows.filter({ hasText: '/api/v1/' });
    await expect.poll(() => apiRows.count(), { timeout: 10_000 }).toBe(4);
    const text = await tableText(page.locator('table.requests'));
    expect(text).toMatch(/GET\s+\/api\/v1\/customers\s+200/);
    expect(text).toContain('body_pretty_printed');
    expect(text).toContain('body_trailing_newline_added');
    expect(text).toContain('timestamp_out_of_window');

    await page.getByLabel('Refused only').check();
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => rows.count()).toBe(3);

    await rows.filter({ hasText: 'body_pretty_printed' }).getByRole('link').click();
    const diagnosis = page.getByRole('region', { name: 'Diagnosis' });
    await diagnosis.waitFor();
    const d = await textOf(diagnosis);
    expect(d).toContain('body_pretty_printed');
    expect(d).toMatch(/Fix: /);
    const table = page.locator('table.canonical');
    expect(await table.locator('th').allInnerTexts()).toEqual([
      'field',
      'received (what the client signed)',
      'expected (what the mock built)',
    ]);
    // only the body hash differs, and it is marked on both sides
    const differing = table.locator('tr.differs');
    expect(await differing.count()).toBe(1);
    expect(await textOf(differing)).toContain('BODY_SHA256');
    expect(await differing.locator('mark').count()).toBe(2);
    expect(await textOf(table)).toContain('/api/v1/customers');
  });

  it('a card balance after a recharge from the CLI', async () => {
    const customer = json(await cli(['customers', 'create', '--from', 'examples/customer.json', '--json']));
    json(await cli(['customers', 'get', customer.id, '--json'])); // test mode: approved on the next read
    const card = json(await cli(['cards', 'issue', '--customer', customer.id, '--amount', '5000', '--json']));
    json(await cli(['cards', 'recharge', card.id, '--amount', '1234', '--json']));
    await page.goto(`${origin}/_console/#/state`);
    const row = page.locator('tr', { hasText: card.id });
    await row.first().waitFor();
    expect(await textOf(row.first())).toContain('62.34 USD');
    await row.first().getByRole('link', { name: card.id }).click();
    await page.locator('#card-balance').waitFor();
    expect(await textOf(page.locator('#card-balance'))).toBe('62.34 USD');
  });

  it('a KYC verdict forced from the page, read back with `cardctl customers get`', async () => {
    const customer = json(await cli(['customers', 'create', '--from', 'examples/customer.json', '--json']));
    await page.goto(`${origin}/_console/#/customer/${customer.id}`);
    await page.getByLabel('Verdict', { exact: true }).selectOption('rejected');
    await page.getByLabel('Reason (rejected)').fill('document_expired');
    await page.getByRole('button', { name: 'Force verdict' }).click();
    await page.getByText('KYC rejected.').waitFor();
    const read = json(await cli(['customers', 'get', customer.id, '--json']));
    expect(read.kyc_status).toBe('rejected');
    expect(read.kyc_failure_reason).toBe('document_expired');
    // a refused control shows the control plane's own message
    await page.getByLabel('Reason (rejected)').fill('not a label!');
    await page.getByRole('button', { name: 'Force verdict' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await textOf(alert)).toContain('reason: The reason must be a short label');
  });

  it("the controls offer the control plane's own event types and fault kinds", async () => {
    await page.goto(`${origin}/_console/#/controls`);
    const options = (label: string) =>
      page
        .getByLabel(label, { exact: true })
        .locator('option')
        .evaluateAll((os) => os.map((o) => o.textContent));
    await page.getByLabel('Kind', { exact: true }).waitFor();
    expect(await options('Type')).toEqual([...EVENT_TYPES]);
    expect(await options('Kind')).toEqual([...FAULT_KINDS]);
  });

  it('a snapshot saved and restored from the page', async () => {
    await page.goto(`${origin}/_console/#/controls`);
    await page.getByLabel('Name', { exact: true }).fill('before-extra');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Restore snapshot before-extra' }).waitFor();
    const extra = json(await cli(['customers', 'create', '--from', 'examples/customer.json', '--json']));
    expect((await cli(['customers', 'get', extra.id])).code).toBe(0);
    await page.getByRole('button', { name: 'Restore snapshot before-extra' }).click();
    await page.getByText('Restored before-extra.').waitFor();
    const gone = await cli(['customers', 'get', extra.id]);
    expect(gone.code).toBe(4); // not found: the state is the snapshot's
  });

  it('pages through the log: 100 a page, Older and Newest', async () => {
    const host = new URL(origin).host;
    for (let i = 0; i < 120; i++) await raw('GET', `/api/v1/probe/${i}`, { Host: host });
    await page.goto(`${origin}/_console/#/requests`);
    await page.getByLabel('Route (path prefix)').fill('/api/v1/probe/');
    await page.getByLabel('Refused only').uncheck();
    await page.getByRole('button', { name: 'Filter' }).click();
    const rows = page.locator('table.requests tbody tr');
    await expect.poll(() => rows.count()).toBe(100);
    expect(await textOf(rows.first())).toContain('/api/v1/probe/119');
    await page.getByRole('button', { name: 'Older →' }).click();
    await expect.poll(() => rows.count()).toBe(20);
    expect(await textOf(rows.first())).toContain('/api/v1/probe/19');
    expect(await page.getByRole('button', { name: 'Older →' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: '← Newest' }).click();
    await expect.poll(() => rows.count()).toBe(100);
    await page.getByLabel('Route (path prefix)').fill('');
    await page.getByRole('button', { name: 'Filter' }).click();
  });

  it("shows a webhook delivery being retried: its attempts, next retry and the receiver's answer", async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500).end());
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', () => r()));
    const port = (receiver.address() as { port: number }).port;
    json(await cli(['mock', 'webhook-endpoints', 'add', `http://127.0.0.1:${port}/hooks`, '--json']));
    json(await cli(['mock', 'events', 'emit', 'card.issued', '--json']));
    await expect
      .poll(
        async () => {
          await page.goto(`${origin}/_console/#/controls`);
          await page.goto(`${origin}/_console/#/state`);
          const table = page.locator('table', { hasText: 'Webhook deliveries' });
          await table.waitFor();
          return tableText(table);
        },
        { timeout: 15_000, interval: 500 },
      )
      .toMatch(/card\.issued\s+\S+\s+pending\s+1\s+\d{4}-\d\d-\d\dT\S+\s+500/);
  });

  it('the diagnosis box reads a curl command line ("Copy as cURL") and names the mistake', async () => {
    const compact = '{"first_name":"Ada"}';
    const pretty = JSON.stringify(JSON.parse(compact), null, 2);
    const s = json(await cli(['sign', '--method', 'POST', '--path', '/api/v1/customers', '--data', pretty, '--json']));
    // the request as the merchant sent it: the compact body (in bash's $'...' quoting, an escape in it)
    // under the signature of the pretty-printed one
    const curl = (s.curl as string).replace(/--data-binary '[\s\S]*'$/, () => `--data-raw $'{"first_name":"Ad\\x61"}'`);
    expect(curl).toContain('--data-raw');
    await page.goto(`${origin}/_console/#/diagnose`);
    await page.getByLabel(/Failing request/).fill(curl);
    await page.getByRole('button', { name: 'Diagnose' }).click();
    await page.getByText('Read as a curl command line: 1 request.').waitFor();
    const d = await textOf(page.getByRole('region', { name: 'Diagnosis' }));
    expect(d).toContain('body_pretty_printed');
    expect(d).toMatch(/BODY_SHA256 \(differs\)/);
    expect(d).not.toContain(s.signature);
  });

  it('the diagnosis box reads a HAR file: every API request of it, one line each', async () => {
    const good = json(await cli(['sign', '--method', 'GET', '--path', '/api/v1/customers', '--json']));
    const pretty = JSON.stringify({ first_name: 'Ada' }, null, 2);
    const bad = json(
      await cli(['sign', '--method', 'POST', '--path', '/api/v1/customers', '--data', pretty, '--json']),
    );
    const entry = (method: string, headers: Record<string, string>, body?: string) => ({
      request: {
        method,
        url: `${origin}/api/v1/customers`,
        headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
        ...(body ? { postData: { mimeType: 'application/json', text: body } } : {}),
      },
    });
    const har = JSON.stringify({
      log: {
        version: '1.2',
        entries: [
          { request: { method: 'GET', url: `${origin}/favicon.ico`, headers: [] } },
          entry('GET', good.headers),
          entry('POST', { ...bad.headers, 'Content-Type': 'application/json' }, '{"first_name":"Ada"}'),
        ],
      },
    });
    await page.goto(`${origin}/_console/#/diagnose`);
    await page.getByLabel(/Failing request/).fill(har);
    await page.getByRole('button', { name: 'Diagnose' }).click();
    await page.getByText('Read as a HAR file: 2 requests.').waitFor();
    const lines = page.locator('table', { hasText: 'Every API request of the file' }).locator('tbody tr');
    expect(await lines.count()).toBe(2);
    expect(await textOf(lines.nth(0))).toMatch(/GET \/api\/v1\/customers.*valid/);
    expect(await textOf(lines.nth(1))).toMatch(/POST \/api\/v1\/customers.*body_pretty_printed/);
  });

  it('refuses a request without the cookie, under another Host, and a cross-origin change', async () => {
    const host = new URL(origin).host;
    const cookie = await cookieHeader();
    expect((await raw('GET', '/_console/api/control/state', { Host: host })).status).toBe(401);
    expect((await raw('GET', '/_console/api/control/state', { Host: host, Cookie: cookie })).status).toBe(200);
    const rebound = await raw('GET', '/_console/api/control/state', {
      Host: `attacker.example:${new URL(origin).port}`,
      Cookie: cookie,
    });
    expect(rebound.status).toBe(403);
    expect(rebound.text).toContain("only under this mock's own address");
    const post = (headers: Record<string, string>) =>
      raw(
        'POST',
        '/_console/api/control/clock/advance',
        { Host: host, Cookie: cookie, 'Content-Type': 'application/json', ...headers },
        '{"seconds":1}',
      );
    expect((await post({ Origin: 'http://attacker.example' })).status).toBe(403);
    expect((await post({})).status).toBe(403); // no Origin at all
    expect((await post({ Origin: origin })).status).toBe(200);
    // the control token does not open the console either, and the console offers no call that answers a secret
    expect(
      (
        await raw('GET', '/_console/api/control/state', {
          Host: host,
          Authorization: `Bearer ${mock!.banner.control_token}`,
        })
      ).status,
    ).toBe(401);
    expect(
      (
        await raw(
          'POST',
          '/_console/api/control/keys',
          { Host: host, Cookie: cookie, Origin: origin, 'Content-Type': 'application/json' },
          '{"mode":"test"}',
        )
      ).status,
    ).toBe(404);
    const page0 = await raw('GET', '/_console/', { Host: host, Cookie: cookie });
    expect(page0.text).not.toMatch(/<script>|\son\w+=/); // no inline script in the page itself
  });

  it('shows markup and control characters sent in a request as text', async () => {
    const evil = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
    // node's parser refuses control characters in a header: they come in the body and the query
    const body = `{"first_name":"${evil.replace(/"/g, '\\"')}\u0002\u001b[31m\u200b"}`;
    const answer = await rawSocket(
      [
        `POST /api/v1/customers?q=${encodeURIComponent(`${evil}\u0007`)} HTTP/1.1`,
        `Host: ${new URL(origin).host}`,
        `X-Api-Key: ${mock!.banner.keys.test.key_id}`,
        `X-Nonce: ${evil}\t`,
        `X-Timestamp: ${Math.floor(Date.now() / 1000)}`,
        'X-Signature: AAAA',
        `Idempotency-Key: ${evil}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n'),
    );
    expect(answer).toMatch(/^HTTP\/1.1 401/);
    await page.goto(`${origin}/_console/#/requests`);
    const row = page.locator('table.requests tbody tr', { hasText: 'q=%3Cscript' }).first();
    await row.waitFor();
    await row.getByRole('link').click();
    await page.getByRole('region', { name: 'The body' }).waitFor();
    expect(await textOf(page.locator('main'))).toContain('<script>window.__pwned=1</script>');
    expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('main script, main img').count()).toBe(0);
  });

  it('never shows a secret: no key secret, webhook secret or control token in any answer of the console', async () => {
    const secrets = [
      mock!.banner.keys.test.secret,
      mock!.banner.keys.live.secret,
      mock!.banner.webhook_secret,
      mock!.banner.control_token,
    ];
    // the canary: a secret sent as a nonce is in the log, redacted
    await raw('GET', '/api/v1/customers', {
      Host: new URL(origin).host,
      'X-Api-Key': mock!.banner.keys.test.key_id,
      'X-Nonce': secrets[0]!,
      'X-Timestamp': '1',
      'X-Signature': 'x',
    });
    for (const view of ['#/requests', '#/state', '#/controls', '#/diagnose']) {
      await page.goto(`${origin}/_console/${view}`);
      await page.waitForLoadState('networkidle');
    }
    const cookie = await cookieHeader();
    const host = new URL(origin).host;
    for (const sub of ['requests?limit=1000', 'merchants', 'wallets', 'webhook-endpoints', 'events', 'state']) {
      seen.push((await raw('GET', `/_console/api/control/${sub}`, { Host: host, Cookie: cookie })).text);
    }
    const all = seen.join('\n') + (await page.content());
    expect(all).toContain('(a secret: not recorded)');
    for (const s of secrets) expect(all).not.toContain(s);
  });

  it('axe-core finds no serious or critical violation on each view', async () => {
    const require = createRequire(import.meta.url);
    const axe = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
    for (const view of ['#/requests', '#/state', '#/controls', '#/diagnose']) {
      await page.goto(`${origin}/_console/${view}`);
      await page.waitForLoadState('networkidle');
      await page.evaluate(axe);
      const violations = await page.evaluate(async () => {
        const r = await (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] });
        return r.violations
          .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
          .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
      });
      expect(violations, view).toEqual([]);
    }
  });
});
