// Webhook endpoint rules (spec "Endpoint requirements"; PRODUCT.md: loopback accepted): every URL
// goes through POST /_mock/webhook-endpoints of a real mock on port 0, with its expected verdict.
// Addresses follow the IANA IPv4 and IPv6 Special-Purpose Address Registries ("Globally Reachable").
// Host names: `localhost` and `*.invalid` go to the system resolver (no outside network needed);
// names under `.example` (reserved, never in the real DNS) are answered by a stand-in zone below.
import { promises as dns } from 'node:dns';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { ResolvedAddress } from '../../src/mock/endpoint-url.js';
import { control, ctl, type MockHandle } from '../helpers/api.js';

const PUBLIC_V4 = '93.184.215.14';
const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });
const ZONE: Record<string, ResolvedAddress[]> = {
  'private.example': [v4('10.0.0.5')],
  'loop.example': [v4('127.0.0.1')],
  'mixed.example': [v4(PUBLIC_V4), v4('10.0.0.1')],
  'v6private.example': [v6('fd00::1')],
  'mapped.example': [v6('::ffff:10.0.0.1')],
  'metadata.example': [v4('169.254.169.254')],
  'public6.example': [v6('2606:4700:4700::1111')],
  'empty.example': [],
};
let lookups: string[] = [];
let rebound = 0;
async function zoneLookup(host: string): Promise<ResolvedAddress[]> {
  lookups.push(host);
  if (host === 'rebind.example') return [v4(rebound++ === 0 ? PUBLIC_V4 : '127.0.0.1')];
  if (host.endsWith('.public.example')) return [v4(PUBLIC_V4)];
  if (Object.hasOwn(ZONE, host)) return ZONE[host]!;
  return dns.lookup(host, { all: true });
}

let mock: MockHandle;
beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 31, providerLatencyMs: 0, lookup: zoneLookup })) as unknown as MockHandle;
});
afterAll(async () => mock?.close());

/** true: accepted (201), stored as the URL itself or as `stored`; a RegExp: refused (422), the url message matches. */
type Verdict = true | RegExp;
const OK: Verdict = true;
const REFUSED_ADDRESS = /not globally reachable/;

const label63 = 'a'.repeat(63);
const CASES: Array<[url: string, verdict: Verdict, stored?: string]> = [
  // IPv4 special-purpose blocks (not globally reachable)
  ['https://0.0.0.0/', /0\.0\.0\.0\/8/],
  ['https://0.1.2.3/', /0\.0\.0\.0\/8/],
  ['https://10.0.0.1/', /10\.0\.0\.0\/8/],
  ['https://10.255.255.255/x', /10\.0\.0\.0\/8/],
  ['https://100.64.0.1/', /100\.64\.0\.0\/10/],
  ['https://100.127.255.254/', /100\.64\.0\.0\/10/],
  ['https://169.254.169.254/latest', /169\.254\.0\.0\/16/],
  ['https://172.16.0.1/', /172\.16\.0\.0\/12/],
  ['https://172.31.255.255/', /172\.16\.0\.0\/12/],
  ['https://192.0.0.1/', /192\.0\.0\.0\/24/],
  ['https://192.0.0.170/', /192\.0\.0\.0\/24/],
  ['https://192.0.2.1/', /192\.0\.2\.0\/24/],
  ['https://192.88.99.1/', /192\.88\.99\.0\/24/],
  ['https://192.168.1.1/', /192\.168\.0\.0\/16/],
  ['https://198.18.0.1/', /198\.18\.0\.0\/15/],
  ['https://198.19.255.255/', /198\.18\.0\.0\/15/],
  ['https://198.51.100.7/', /198\.51\.100\.0\/24/],
  ['https://203.0.113.9/', /203\.0\.113\.0\/24/],
  ['https://224.0.0.1/', /multicast/],
  ['https://239.255.255.250/', /multicast/],
  ['https://240.0.0.1/', /240\.0\.0\.0\/4/],
  ['https://255.255.255.255/', /limited broadcast/],
  // the same addresses written as WHATWG URL parsing reads them (decimal, octal, hex, short forms)
  ['https://167772161/', /10\.0\.0\.1 is in 10\.0\.0\.0\/8/],
  ['https://0xa000001/', /10\.0\.0\.1 is in/],
  ['https://012.0.0.1/', /10\.0\.0\.1 is in/],
  ['https://10.1/', /10\.0\.0\.1 is in/],
  ['https://0xA9.0xFE.0xA9.0xFE/', /169\.254\.169\.254 is in/],
  ['https://3232235777/', /192\.168\.1\.1 is in/],
  ['https://0/', /0\.0\.0\.0 is in/],
  // IPv4 that is globally reachable (including the registry's exceptions inside 192.0.0.0/24)
  [`https://${PUBLIC_V4}/hooks`, OK],
  ['https://8.8.8.8:443/x', OK, 'https://8.8.8.8/x'],
  ['https://11.0.0.1/', OK],
  ['https://100.63.255.255/', OK],
  ['https://100.128.0.1/', OK],
  ['https://172.15.255.255/', OK],
  ['https://172.32.0.1/', OK],
  ['https://192.0.0.9/', OK],
  ['https://192.0.0.10/', OK],
  ['https://192.31.196.1/', OK],
  ['https://192.175.48.1/', OK],
  ['https://198.17.255.255/', OK],
  ['https://198.20.0.1/', OK],
  ['https://223.255.255.255/', OK],
  // IPv6 special-purpose blocks
  ['https://[::]/', /::\/128/],
  ['https://[::a00:1]/', /::\/96/],
  ['https://[::10.0.0.1]/', /::\/96/],
  ['https://[::1.2.3.4]/', /::\/96/],
  ['https://[::ffff:10.0.0.1]/', /::ffff:0:0\/96/],
  ['https://[::ffff:8.8.8.8]/', /::ffff:0:0\/96/],
  ['https://[::ffff:0:a00:1]/', /outside 2000::\/3/],
  ['https://[64:ff9b::a00:1]/', /64:ff9b::\/96.*10\.0\.0\.1/],
  ['https://[64:ff9b::7f00:1]/', /64:ff9b::\/96.*127\.0\.0\.1/],
  ['https://[64:ff9b:1::1]/', /64:ff9b:1::\/48/],
  ['https://[100::1]/', /100::\/64/],
  ['https://[2001::1]/', /Teredo/],
  ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/', /Teredo/],
  ['https://[2001:1::4]/', /2001::\/23/],
  ['https://[2001:2::1]/', /benchmarking/],
  ['https://[2001:10::1]/', /ORCHID/],
  ['https://[2001:db8::1]/', /2001:db8::\/32/],
  ['https://[2002:a00:1::1]/', /2002::\/16.*10\.0\.0\.1/],
  ['https://[2002:c0a8:101::1]/', /2002::\/16.*192\.168\.1\.1/],
  ['https://[3fff::1]/', /3fff::\/20/],
  ['https://[3fff:fff::1]/', /3fff::\/20/],
  ['https://[5f00::1]/', /5f00::\/16/],
  ['https://[fc00::1]/', /fc00::\/7/],
  ['https://[fd12:3456::1]/', /fc00::\/7/],
  ['https://[fe80::1]/', /fe80::\/10/],
  ['https://[febf::1]/', /fe80::\/10/],
  ['https://[fec0::1]/', /fec0::\/10/],
  ['https://[ff02::1]/', /multicast/],
  ['https://[ff0e::1]/', /multicast/],
  ['https://[4000::1]/', /outside 2000::\/3/],
  ['https://[fe80::1%25eth0]/', /absolute URL/],
  // IPv6 that is globally reachable
  ['https://[2606:4700:4700::1111]/', OK],
  ['https://[2a00:1450:4001:800::200e]/x', OK],
  ['https://[2620:4f:8000::1]/', OK],
  ['https://[2001:1::1]/', OK],
  ['https://[2001:3::1]/', OK],
  ['https://[2001:4:112::1]/', OK],
  ['https://[2001:20::1]/', OK],
  ['https://[64:ff9b::808:808]/', OK],
  ['https://[2002:808:808::1]/', OK],
  // loopback hosts: http or https, any port (the mock is a local tool)
  ['http://127.0.0.1:9/x', OK],
  ['https://127.1.2.3:8443/', OK],
  ['http://[::1]:9/x', OK],
  ['http://[::ffff:127.0.0.1]:9/', OK, 'http://[::ffff:7f00:1]:9/'],
  ['http://0x7f.1:8080/', OK, 'http://127.0.0.1:8080/'],
  ['http://2130706433:8080/', OK, 'http://127.0.0.1:8080/'],
  ['http://localhost:3000/hook', OK],
  ['http://LOCALHOST:8080/a/../b?x=1#f', OK, 'http://localhost:8080/b?x=1#f'],
  // scheme, port, userinfo
  [`http://${PUBLIC_V4}/`, /https/],
  [`https://${PUBLIC_V4}:8443/`, /port 443/],
  [`https://user:pass@${PUBLIC_V4}/`, /user name or password/],
  ['http://u@127.0.0.1:9/x', /user name or password/],
  [`ftp://${PUBLIC_V4}/`, /https/],
  ['javascript:alert(1)', /https/],
  ['not a url', /absolute URL/],
  ['', /required/],
  // control characters: never stored, whatever the URL parser would strip
  [`https://${PUBLIC_V4}/\r\nX-Injected: 1`, /control characters/],
  ['https://93.184\n.215.14/', /control characters/],
  [`https://${PUBLIC_V4}/a\tb`, /control characters/],
  [`https://${PUBLIC_V4}/\u0000`, /control characters/],
  [`https://${PUBLIC_V4}/\u0085`, /control characters/],
  [`https://${PUBLIC_V4}/\u2028`, /control characters/],
  // host name spelling
  [`https://${'a'.repeat(300)}.public.example/`, /label of 300 characters/],
  [`https://${'a'.repeat(64)}.public.example/`, /label of 64 characters/],
  [`https://${label63}.public.example/`, OK],
  [`https://${Array(5).fill('b'.repeat(60)).join('.')}.public.example/`, /at most 253/],
  ['https://a..public.example/', /empty label/],
  ['https://a*b.public.example/', /character a DNS name cannot/],
  // host names: resolved at registration, every address must be globally reachable
  ['https://good.public.example/', OK],
  ['https://GOOD.Public.Example:443/path?q=1#frag', OK, 'https://good.public.example/path?q=1#frag'],
  ['https://bücher.public.example/', OK, 'https://xn--bcher-kva.public.example/'],
  ['https://public6.example/', OK],
  ['https://nothing-here.invalid/', /does not resolve/],
  ['https://empty.example/', /does not resolve/],
  ['https://private.example/', /resolves to 10\.0\.0\.5 is in 10\.0\.0\.0\/8/],
  ['https://loop.example/', /resolves to 127\.0\.0\.1 is in 127\.0\.0\.0\/8/],
  ['https://mixed.example/', /resolves to 10\.0\.0\.1/],
  ['https://v6private.example/', /resolves to fd00::1/],
  ['https://mapped.example/', /resolves to ::ffff:10\.0\.0\.1/],
  ['https://metadata.example/', /resolves to 169\.254\.169\.254/],
  ['https://intranet/x', /public host/],
  ['https://printer.local/', /public host/],
  ['https://app.internal/', /public host/],
  ['https://sub.localhost/', /public host/],
  ['http://good.public.example/', /https/],
];

describe('webhook endpoint registration: one verdict per URL', () => {
  it(`holds at least 90 URLs`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(90);
  });

  it('each URL gets its verdict; an accepted one is stored and listed in its normalized form', async () => {
    const failures: string[] = [];
    const accepted: Array<{ id: string; url: string }> = [];
    for (const [url, verdict, stored] of CASES) {
      const res = await control(mock, 'POST', '/webhook-endpoints', { url });
      const got =
        res.status === 201 ? 'accepted' : `${res.status} ${JSON.stringify(res.body?.errors?.url ?? res.body)}`;
      if (verdict === true) {
        if (res.status !== 201) failures.push(`${JSON.stringify(url)} should be accepted, got ${got}`);
        else if (res.body.data.url !== (stored ?? url))
          failures.push(`${JSON.stringify(url)} stored as ${res.body.data.url}, expected ${stored ?? url}`);
        else accepted.push({ id: res.body.data.id, url: res.body.data.url });
      } else if (res.status !== 422 || !verdict.test(JSON.stringify(res.body?.errors?.url))) {
        failures.push(`${JSON.stringify(url)} should be refused (${verdict}), got ${got}`);
      }
    }
    expect(failures).toEqual([]);
    const listed = (await ctl(mock, 'GET', '/webhook-endpoints')) as Array<{ id: string; url: string }>;
    expect(listed.map((e) => ({ id: e.id, url: e.url }))).toEqual(accepted);
    // nothing listed carries a control character
    for (const e of listed) expect(e.url).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
    for (const e of listed) await ctl(mock, 'DELETE', `/webhook-endpoints/${e.id}`);
  });

  it('a refusal names the address and says what to do, without echoing the URL', async () => {
    const res = await control(mock, 'POST', '/webhook-endpoints', { url: 'https://private.example/\u2028SECRET-PATH' });
    expect(res.status).toBe(422);
    const res2 = await control(mock, 'POST', '/webhook-endpoints', { url: 'https://private.example/SECRET-PATH' });
    expect(res2.status).toBe(422);
    const message = res2.body.errors.url[0] as string;
    expect(message).toMatch(REFUSED_ADDRESS);
    expect(message).toMatch(/use a public host/);
    expect(message).not.toContain('SECRET-PATH');
  });
});

describe('webhook delivery checks the address again, after resolving, and connects to that address', () => {
  it('a name that resolved to a public address at registration and to loopback at delivery gets no request', async () => {
    rebound = 0;
    const ep = await ctl(mock, 'POST', '/webhook-endpoints', { url: 'https://rebind.example/hooks' });
    try {
      lookups = [];
      await ctl(mock, 'POST', '/events', {
        type: 'withdrawal.failed',
        data: { withdrawal_id: '01JD2QA1B2C3D4E5F6G7H8J9KM', amount_minor: 10 },
      });
      let attempt: { status: number | null; error: string | null } | undefined;
      for (let i = 0; i < 200 && !attempt; i++) {
        const log = (await ctl(mock, 'GET', '/webhook-deliveries')) as Array<{
          endpoint_id: string;
          attempts: Array<{ status: number | null; error: string | null }>;
        }>;
        attempt = log.find((d) => d.endpoint_id === ep.id)?.attempts[0];
        if (!attempt) await new Promise((r) => setTimeout(r, 25));
      }
      expect(lookups).toContain('rebind.example'); // resolved again at delivery
      expect(attempt).toMatchObject({ status: null });
      expect(attempt!.error).toMatch(/resolves to 127\.0\.0\.1 is in 127\.0\.0\.0\/8/);
    } finally {
      await ctl(mock, 'DELETE', `/webhook-endpoints/${ep.id}`);
    }
  });

  it('localhost is delivered to, at the loopback address it resolved to', async () => {
    const got: string[] = [];
    const server = http.createServer((req, res) => {
      got.push(`${req.method} ${req.url} ${req.headers.host}`);
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const ep = await ctl(mock, 'POST', '/webhook-endpoints', { url: `http://localhost:${port}/hooks` });
    try {
      await ctl(mock, 'POST', '/events', {
        type: 'withdrawal.failed',
        data: { withdrawal_id: '01JD2QA1B2C3D4E5F6G7H8J9KM', amount_minor: 10 },
      });
      for (let i = 0; i < 200 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
      expect(got).toEqual([`POST /hooks localhost:${port}`]);
    } finally {
      await ctl(mock, 'DELETE', `/webhook-endpoints/${ep.id}`);
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
