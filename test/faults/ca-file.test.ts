// Issue 22, item 4: a CA file is read with a size limit and its PEM parsed when given.
// `--ca-file /dev/zero` read without limit (3.2 GB in 6 s); a block with invalid base64 was
// accepted and failed later with a hint to use --ca-file (it was given).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
beforeAll(() => {
  sb = makeSandbox();
});
afterAll(() => sb?.cleanup());

const env = (): Record<string, string> => ({
  CARDCTL_BASE_URL: 'http://127.0.0.1:9/api/v1',
  CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  CARDCTL_API_SECRET: Buffer.alloc(32, 5).toString('base64'),
  CARDCTL_MODE: 'test',
});

describe('--ca-file', () => {
  it('/dev/zero: exit 2, "larger than", never a hang', async () => {
    const r = await sb.run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--ca-file', '/dev/zero'], {
      env: env(),
      timeoutMs: 20_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('/dev/zero');
    expect(r.stderr).toContain('larger than 8 MiB');
  });

  it('a PEM block with invalid base64: exit 2 naming the certificate and line, not a later TLS hint', async () => {
    const file = join(sb.dir, 'bad.pem');
    writeFileSync(file, '# company CA\n-----BEGIN CERTIFICATE-----\nMIIB!!notbase64$$\n-----END CERTIFICATE-----\n');
    const r = await sb.run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--ca-file', file], {
      env: env(),
      timeoutMs: 20_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${file} (from --ca-file): certificate 1 (line 2): its base64 is invalid`);
  });

  it('valid base64 that is no certificate: exit 2', async () => {
    const file = join(sb.dir, 'notcert.pem');
    writeFileSync(
      file,
      `-----BEGIN CERTIFICATE-----\n${Buffer.from('hello world, not DER').toString('base64')}\n-----END CERTIFICATE-----\n`,
    );
    const r = await sb.run(['cards', 'get', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--ca-file', file], {
      env: env(),
      timeoutMs: 20_000,
    });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain('it is not an X.509 certificate');
  });
});
