// A batch whose API cannot be reached (nothing listens on the port): every row is refused before
// anything leaves, and the summary says so, and says nothing was charged. It said "a journal that
// could not be written or read" before, sending the user to look for a fault that was not there.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
let closedPort: number;

beforeAll(async () => {
  sb = makeSandbox();
  // a port that was just free: nothing listens on it once the server is closed
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
});
afterAll(() => sb?.cleanup());

describe('a batch with the API unreachable', () => {
  it('names the unreachable API as why the rows were never sent, not the journal; exit 8', async () => {
    const file = join(sb.dir, 'recharges.csv');
    writeFileSync(file, 'card_id,amount\n01JD2Q7N8V3K4M5P6R7S8T9V0X,100\n01JD2Q7N8V3K4M5P6R7S8T9V0Y,200\n');
    const r = await sb.run(['cards', 'recharge', '--batch', file, '--yes', '--retries', '0'], {
      env: {
        CARDCTL_BASE_URL: `http://127.0.0.1:${closedPort}/api/v1`,
        CARDCTL_API_KEY: '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        CARDCTL_API_SECRET: Buffer.alloc(32, 3).toString('base64'),
        CARDCTL_MODE: 'test',
      },
    });
    expect(r.code).toBe(8);
    expect(r.stdout).toMatch(/^1 +error +- .*cannot reach/m);
    expect(r.stderr).toContain('2 rows: 0 ok, 2 refused, 0 unknown.');
    expect(r.stderr).toContain(
      'Never sent: rows 1, 2: the API could not be reached (each line says why), so nothing was charged for them.',
    );
    expect(r.stderr).not.toContain('journal that could not be written or read');
  });
});
