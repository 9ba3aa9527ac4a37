// Proxies and CA files (PRODUCT.md, "Network"), end to end: the built CLI, a real proxy on
// loopback, the mock behind it, and a host name that resolves nowhere (api.cardctl.invalid), so
// only a request that went through the proxy can succeed. For https the mock sits behind TLS
// with a certificate from a CA this test makes with openssl.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noProxyMatches, parseProxyUrl, proxyFor } from '../../src/client/proxy.js';
import { startMock } from '../../src/mock/index.js';
import { activeCard, approvedCustomer, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { makePki, startProxy, startTlsFront, type TestPki, type TestProxy } from '../helpers/proxy.js';

const HOST = 'api.cardctl.invalid';
let mock: MockHandle;
let sb: Sandbox;
let pki: TestPki;
let proxy: TestProxy;
let refusing: TestProxy;
let front: { port: number; close(): Promise<void> };
let card = '';
let customer = '';
let pkiDir = '';
let keys: Record<string, string>;

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 5, providerLatencyMs: 0 })) as unknown as MockHandle;
  customer = (await approvedCustomer(mock)).id;
  card = (await activeCard(mock, { customerId: customer })).id;
  pkiDir = mkdtempSync(join(tmpdir(), 'cardctl-pki-'));
  pki = makePki(pkiDir, HOST);
  front = await startTlsFront(pki, mock.port);
  const routes = {
    [HOST]: { host: '127.0.0.1', port: mock.port },
    [`${HOST}:80`]: { host: '127.0.0.1', port: mock.port },
    [`${HOST}:443`]: { host: '127.0.0.1', port: front.port },
  };
  proxy = await startProxy(routes);
  refusing = await startProxy(routes, { refuseConnect: true });
  sb = makeSandbox();
  keys = { CARDCTL_API_KEY: mock.keys.test.keyId, CARDCTL_API_SECRET: mock.keys.test.secret, CARDCTL_MODE: 'test' };
});
afterAll(async () => {
  await proxy?.close();
  await refusing?.close();
  await front?.close();
  await mock?.close();
  sb?.cleanup();
  if (pkiDir) rmSync(pkiDir, { recursive: true, force: true });
});

const http = (extra: Record<string, string>) => ({ ...keys, CARDCTL_BASE_URL: `http://${HOST}/api/v1`, ...extra });
const https = (extra: Record<string, string>) => ({ ...keys, CARDCTL_BASE_URL: `https://${HOST}/api/v1`, ...extra });

describe('through a proxy', () => {
  it('an http target goes through HTTP_PROXY in absolute-form', async () => {
    const before = proxy.requests.length;
    const r = await sb.run(['cards', 'get', card, '--json'], { env: http({ HTTP_PROXY: proxy.url }) });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(card);
    expect(proxy.requests.slice(before)).toContain(`GET http://${HOST}/api/v1/cards/${card}`);
  });

  it('an https target goes through a CONNECT tunnel: the proxy never sees the signing headers, and the CA file is trusted', async () => {
    const start = proxy.received().length;
    const before = proxy.requests.length;
    const r = await sb.run(['customers', 'list', '--per-page', '1', '--json'], {
      env: https({ https_proxy: proxy.url, CARDCTL_CA_FILE: pki.caFile }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).data[0].id).toBe(customer);
    expect(proxy.requests.slice(before)).toEqual([`CONNECT ${HOST}:443`]);
    const seen = proxy.received().slice(start);
    expect(seen).toContain(`CONNECT ${HOST}:443`);
    expect(seen.toLowerCase()).not.toContain('x-signature');
    expect(seen).not.toContain(mock.keys.test.keyId);
  });

  it('a money operation goes through the tunnel too (journal, key), with --ca-file', async () => {
    const r = await sb.run(['cards', 'recharge', card, '--amount', '100', '--json', '--ca-file', pki.caFile], {
      env: https({ HTTPS_PROXY: proxy.url }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).id).toBe(card);
    expect(r.stderr).toMatch(/Idempotency-Key: /);
  });

  it('without the CA file the server certificate is refused', async () => {
    const r = await sb.run(['cards', 'get', card, '--retries', '0'], { env: https({ HTTPS_PROXY: proxy.url }) });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/certificate is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/);
    expect(r.stderr).toContain('--ca-file');
  });

  it("the profile's ca_file is trusted, and doctor and --verbose show the proxy in use", async () => {
    const add = await sb.run(
      [
        'profiles',
        'add',
        'viaproxy',
        '--key-id',
        mock.keys.test.keyId,
        '--mode',
        'test',
        '--base-url',
        `https://${HOST}/api/v1`,
        '--ca-file',
        pki.caFile,
        '--secret-stdin',
      ],
      { input: `${mock.keys.test.secret}\n` },
    );
    expect(add.code, add.stderr).toBe(0);
    const env = { HTTPS_PROXY: `http://alice:pr0xy-pw@127.0.0.1:${proxy.port}` };
    const got = await sb.run(['cards', 'get', card, '-p', 'viaproxy', '-v'], { env });
    expect(got.code, got.stderr).toBe(0);
    expect(got.stderr).toContain(
      `* proxy: http://127.0.0.1:${proxy.port} (with credentials) (from HTTPS_PROXY, CONNECT tunnel)`,
    );
    const doc = await sb.run(['doctor', '-p', 'viaproxy', '--json'], { env });
    expect(doc.code, doc.stdout).toBe(0);
    const network = JSON.parse(doc.stdout).checks.find((c: { name: string }) => c.name === 'network');
    expect(network.detail).toContain(`proxy: http://127.0.0.1:${proxy.port} (with credentials) (from HTTPS_PROXY`);
    expect(network.detail).toContain(pki.caFile);
    expect(doc.stdout + doc.stderr + got.stdout + got.stderr).not.toContain('pr0xy-pw');
  });

  it('NO_PROXY exempts the host (leading dot, either case): the name then resolves nowhere', async () => {
    const proxied = await sb.run(['cards', 'get', card, '--retries', '0'], {
      env: http({ http_proxy: proxy.url, NO_PROXY: 'example.com' }),
    });
    expect(proxied.code, proxied.stderr).toBe(0);
    const r = await sb.run(['cards', 'get', card, '--retries', '0'], {
      env: http({ http_proxy: proxy.url, NO_PROXY: 'example.com, .cardctl.invalid' }),
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });
});

describe('a proxy that fails', () => {
  it('a proxy that is down gives exit 8 naming the proxy, never its password', async () => {
    const port = await closedPort();
    const r = await sb.run(['cards', 'get', card, '--retries', '0'], {
      env: https({ HTTPS_PROXY: `http://bob:s3cr3t-pw@127.0.0.1:${port}`, CARDCTL_CA_FILE: pki.caFile }),
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain(`proxy http://127.0.0.1:${port}`);
    expect(r.stderr).not.toContain('s3cr3t-pw');
    const j = await sb.run(['cards', 'get', card, '--retries', '0', '--json'], {
      env: http({ HTTP_PROXY: `http://bob:s3cr3t-pw@127.0.0.1:${port}` }),
    });
    expect(j.code).toBe(8);
    expect(JSON.parse(j.stdout).error.message).toContain(`proxy http://127.0.0.1:${port}`);
    expect(j.stdout + j.stderr).not.toContain('s3cr3t-pw');
  });

  it('a proxy that refuses the tunnel gives exit 8 naming the proxy; a money operation is known not sent', async () => {
    const r = await sb.run(['cards', 'recharge', card, '--amount', '100', '--retries', '0'], {
      env: https({ HTTPS_PROXY: refusing.url, CARDCTL_CA_FILE: pki.caFile }),
    });
    expect(r.code).toBe(8);
    expect(r.stderr).toContain(`the proxy ${refusing.url} refused the tunnel to ${HOST}:443 (403`);
  });
});

describe("curl's proxy rules", () => {
  const target = (u: string) => new URL(u);
  it("picks the scheme's variable, lowercase first, then all_proxy", () => {
    expect(
      proxyFor(target('https://a.example'), { HTTPS_PROXY: 'http://up:1', https_proxy: 'http://low:2' }),
    ).toMatchObject({ proxy: { variable: 'https_proxy' } });
    expect(proxyFor(target('http://a.example'), { HTTP_PROXY: 'http://up:1' })).toMatchObject({
      proxy: { variable: 'HTTP_PROXY' },
    });
    expect(proxyFor(target('http://a.example'), { HTTPS_PROXY: 'http://up:1' }).proxy).toBeNull();
    expect(proxyFor(target('https://a.example'), { ALL_PROXY: 'http://all:3' })).toMatchObject({
      proxy: { variable: 'ALL_PROXY' },
    });
    expect(
      proxyFor(target('https://a.example'), { HTTPS_PROXY: 'http://p:1', no_proxy: 'b.example', NO_PROXY: 'a.example' })
        .proxy,
    ).not.toBeNull(); // no_proxy wins over NO_PROXY
  });

  it('reads a proxy without scheme as http and without port as 1080; refuses other schemes', () => {
    expect(parseProxyUrl('proxy.local').href).toBe('http://proxy.local:1080/');
    expect(parseProxyUrl('proxy.local:3128').port).toBe('3128');
    expect(() => parseProxyUrl('socks5://p:1')).toThrow(/only http/);
  });

  it('matches NO_PROXY entries as curl does', () => {
    const yes: Array<[string, string]> = [
      ['api.example.com', '*'],
      ['api.example.com', 'example.com'],
      ['api.example.com', '.example.com'],
      ['example.com', '.example.com'],
      ['API.Example.com', 'example.COM'],
      ['api.example.com.', 'example.com'],
      ['a.b', 'x, a.b'],
      ['a.b', 'x a.b'],
      ['10.1.2.3', '10.0.0.0/8'],
      ['10.1.2.3', '10.1.2.3'],
      ['[::1]', '::1'],
      ['[fd00::5]', 'fd00::/8'],
    ];
    const no: Array<[string, string]> = [
      ['badexample.com', 'example.com'],
      ['example.com', 'api.example.com'],
      ['api.example.com', 'example.com:443'],
      ['a.b', ''],
      ['10.1.2.3', '10.1.2.4'],
      ['10.1.2.3', '11.0.0.0/8'],
      ['10.1.2.3', '10.1'],
      ['a.b', '*.b'],
    ];
    for (const [host, list] of yes) expect(noProxyMatches(host, list), `${host} in "${list}"`).toBe(true);
    for (const [host, list] of no) expect(noProxyMatches(host, list), `${host} in "${list}"`).toBe(false);
  });
});
