// Issue 22, item 4: every file a flag names is read with a size limit (8 MiB, as the CA file):
// /dev/zero or a huge sparse file is exit 2 naming the flag, the file and the limit, at once,
// with nothing sent. Stdin (`-`) has the same limit.
import { closeSync, ftruncateSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
let sparse: string;
let payload: string;
beforeAll(() => {
  sb = makeSandbox();
  // 4 GiB that take no disk space
  sparse = join(sb.dir, 'huge.bin');
  const fd = openSync(sparse, 'w');
  ftruncateSync(fd, 4 * 1024 ** 3);
  closeSync(fd);
  payload = join(sb.dir, 'event.json');
  writeFileSync(payload, '{"type":"card.issued"}');
});
afterAll(() => sb?.cleanup());

// nothing listens on port 9: a request that was sent would be exit 8, not 2
const env = (): Record<string, string> => ({
  CARDCTL_BASE_URL: 'http://127.0.0.1:9/api/v1',
  CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
  CARDCTL_API_SECRET: Buffer.alloc(32, 5).toString('base64'),
  CARDCTL_WEBHOOK_SECRET: 'whsec_input-files-test',
  CARDCTL_MODE: 'test',
});

const CASES: Array<{ flag: string; args: (file: string) => string[] }> = [
  { flag: '--request', args: (f) => ['sign', 'diagnose', '--request', f] },
  { flag: '--data', args: (f) => ['sign', '--method', 'POST', '--path', '/api/v1/cards', '--data', `@${f}`] },
  { flag: '--data', args: (f) => ['request', 'POST', '/customers', '--data', `@${f}`] },
  { flag: '--payload', args: (f) => ['webhooks', 'sign', '--payload', f] },
  { flag: '--payload', args: (f) => ['webhooks', 'verify', '--header', 't=1,v1=00', '--payload', f] },
  { flag: '--from', args: (f) => ['customers', 'create', '--from', f] },
  {
    flag: '--id-front-image',
    args: (f) => ['customers', 'update', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--id-front-image', `@${f}`],
  },
];

describe('a file a flag names is read up to 8 MiB', () => {
  for (const { flag, args } of CASES) {
    for (const which of ['/dev/zero', 'a 4 GiB sparse file']) {
      it(`${args('FILE').slice(0, 2).join(' ')} ${flag} ${which}: exit 2 naming the flag, the file and the limit`, async () => {
        const file = which === '/dev/zero' ? '/dev/zero' : sparse;
        const r = await sb.run(args(file), { env: env(), timeoutMs: 30_000 });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain(`${flag} ${file} is larger than 8 MiB`);
      });
    }
  }

  it('the same limit on stdin (`-`)', async () => {
    const big = Buffer.alloc(8 * 1024 * 1024 + 1, 0x20);
    for (const [args, flag] of [
      [['sign', 'diagnose', '--request', '-'], '--request'],
      [['sign', '--method', 'POST', '--path', '/api/v1/cards', '--data', '-'], '--data'],
      [['request', 'POST', '/customers', '--data', '-'], '--data'],
      [['webhooks', 'sign', '--payload', '-'], '--payload'],
      [['customers', 'create', '--from', '-'], '--from'],
    ] as Array<[string[], string]>) {
      const r = await sb.run(args, { env: env(), input: big, timeoutMs: 30_000 });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(`${flag} stdin is larger than 8 MiB`);
    }
  });

  it('a file under the limit is read as before', async () => {
    const r = await sb.run(['webhooks', 'sign', '--payload', payload, '--timestamp', '1763800000'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^t=1763800000, ?v1=[0-9a-f]{64}$/m);
  });
});
