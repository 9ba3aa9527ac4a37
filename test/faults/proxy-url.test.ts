// Issue 22, item 7: a malformed proxy URL is a clear error naming the variable, never its
// password, and never the hint for a wrong base URL; a money command says it was not sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
beforeAll(() => {
  sb = makeSandbox();
});
afterAll(() => sb?.cleanup());

const env = (): Record<string, string> => ({
  CARDCTL_BASE_URL: 'http://api.example.invalid/api/v1',
  CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  CARDCTL_API_SECRET: Buffer.alloc(32, 5).toString('base64'),
  CARDCTL_MODE: 'test',
  HTTP_PROXY: 'http://alice:Sup3rSecretPw@bad host:3128',
});

describe('a malformed proxy URL', () => {
  it('a read: exit 2, names HTTP_PROXY, never the password nor the base-URL hint', async () => {
    const r = await sb.run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--retries', '0'], { env: env() });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('HTTP_PROXY is not a usable proxy URL');
    expect(r.stderr).toContain('Fix HTTP_PROXY');
    expect(r.stderr).not.toContain('Sup3rSecretPw');
    expect(r.stderr).not.toContain('CARDCTL_BASE_URL');
  });

  it('a money command: not sent (exit 2, not 7), the password never shown, also with --json', async () => {
    const r = await sb.run(
      [
        'cards',
        'recharge',
        '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        '--amount',
        '100',
        '--idempotency-key',
        'proxy-url-1',
        '--json',
      ],
      { env: env() },
    );
    expect(r.code, r.stdout + r.stderr).toBe(2);
    expect(JSON.parse(r.stdout).error.code).toBe('proxy_url_invalid');
    expect(r.stdout + r.stderr).not.toContain('Sup3rSecretPw');
  });
});
