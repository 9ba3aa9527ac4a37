// A refused TLS certificate says what is wrong with it (issue 36): another host name, expired,
// not valid yet, or signed by a CA this machine does not trust; only the last suggests
// --ca-file (the others happen with the CA trusted). A real TLS front over the mock, with
// certificates made by openssl (test/helpers/proxy.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import type { MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { makeDatedCert, makePki, startTlsFront, type TestPki } from '../helpers/proxy.js';

let mock: MockHandle;
let sb: Sandbox;
let dir = '';
let pki: TestPki;
const fronts: Array<{ port: number; close(): Promise<void> }> = [];
const ports: Record<'otherName' | 'expired' | 'notYet' | 'good', number> = {
  otherName: 0,
  expired: 0,
  notYet: 0,
  good: 0,
};

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 38, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  dir = mkdtempSync(join(tmpdir(), 'cardctl-tls-'));
  pki = makePki(dir, 'api.cardctl.invalid'); // a certificate for another name than localhost
  const expired = makeDatedCert(dir, 'localhost', '20200101000000Z', '20200102000000Z');
  const notYet = makeDatedCert(dir, 'localhost', '20990101000000Z', '20990102000000Z');
  const good = makeDatedCert(dir, 'localhost', '20200101000000Z', '20990102000000Z');
  for (const [name, cert] of [
    ['otherName', pki],
    ['expired', { ...pki, ...expired }],
    ['notYet', { ...pki, ...notYet }],
    ['good', { ...pki, ...good }],
  ] as const) {
    const front = await startTlsFront(cert, mock.port);
    fronts.push(front);
    ports[name] = front.port;
  }
});
afterAll(async () => {
  for (const f of fronts) await f.close();
  await mock?.close();
  sb?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const get = (port: number, caFile: boolean) =>
  sb.run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--retries', '0'], {
    env: {
      CARDCTL_API_KEY: mock.keys.test.keyId,
      CARDCTL_API_SECRET: mock.keys.test.secret,
      CARDCTL_MODE: 'test',
      CARDCTL_BASE_URL: `https://localhost:${port}/api/v1`,
      ...(caFile ? { CARDCTL_CA_FILE: pki.caFile } : {}),
    },
  });

describe('TLS hints say what is wrong', () => {
  it('a certificate for another host name: says so, no --ca-file advice', async () => {
    const r = await get(ports.otherName, true);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('its TLS certificate is for another host name');
    expect(r.stderr).not.toContain('--ca-file');
  });

  it('an expired certificate: says so and names the clock, no --ca-file advice', async () => {
    const r = await get(ports.expired, true);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('its TLS certificate has expired (CERT_HAS_EXPIRED)');
    expect(r.stderr).not.toContain('--ca-file');
  });

  it('a certificate not valid yet: says so and names the clock', async () => {
    const r = await get(ports.notYet, true);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('its TLS certificate is not valid yet (CERT_NOT_YET_VALID)');
    expect(r.stderr).toContain('clock');
    expect(r.stderr).not.toContain('--ca-file');
  });

  it('an untrusted CA: only then --ca-file; with the CA file the same server answers', async () => {
    const r = await get(ports.good, false);
    expect(r.code, r.stderr).toBe(8);
    expect(r.stderr).toContain('its TLS certificate is not trusted');
    expect(r.stderr).toContain('--ca-file FILE');
    const trusted = await get(ports.good, true);
    expect(trusted.code, trusted.stderr).toBe(4); // the API's own 404 for an id that names nothing
  });
});
