// A batch rerun that the journal answers whole sends nothing, so it needs neither the API nor a
// confirmation: on a machine that does not know the key's mode (key-modes.json gone, as with a
// journal copied from another machine), with the API out of reach, the rerun answers every row
// from the journal and exits 0 without --yes. It asked the API for the mode first and, unable to
// learn it, took the key for live and refused without --yes. A rerun that would send a row still
// asks: it is refused before its first row, nothing sent.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, ctl, newKey, type KeyPair, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let key: KeyPair;
let closedPort: number;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 33, providerLatencyMs: 0 })) as unknown as MockHandle;
  key = await newKey(mock, { mode: 'test' });
  sb = makeSandbox();
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

const env = (baseUrl: string): Record<string, string> => ({
  CARDCTL_API_KEY: key.keyId,
  CARDCTL_API_SECRET: key.secret,
  CARDCTL_BASE_URL: baseUrl,
  CARDCTL_MODE: 'test',
});
const recharges = async (): Promise<number> =>
  ((await ctl(mock, 'GET', `/requests?plane=api&key=${key.keyId}&limit=1000`)) as Array<{ path: string }>).filter((r) =>
    r.path.endsWith('/recharge'),
  ).length;

describe('a rerun the journal answers whole, offline, on a machine that does not know the key', () => {
  it('answers every row from the journal without --yes; a row still to send is refused before anything leaves', async () => {
    const card = await activeCard(mock, { key });
    const rows = join(sb.dir, 'topups.csv');
    writeFileSync(rows, `card_id,amount\n${card.id},100\n${card.id},250\n`);
    const first = await sb.run(['cards', 'recharge', '--batch', rows, '--no-input', '--allow-duplicates'], {
      env: env(mock.baseUrl),
    });
    expect(first.code, first.stderr).toBe(0);
    expect(await recharges()).toBe(2);

    const modes = join(sb.stateDir, 'cardctl', 'key-modes.json');
    expect(existsSync(modes)).toBe(true);
    rmSync(modes); // the key's mode is not known on this machine any more
    const offline = env(`http://127.0.0.1:${closedPort}/api/v1`);
    const rerun = await sb.run(['cards', 'recharge', '--batch', rows, '--no-input', '--allow-duplicates'], {
      env: offline,
    });
    expect(rerun.code, rerun.stderr).toBe(0);
    expect(rerun.stderr).toContain('2 rows already done: answered from the journal, not sent again.');
    expect(rerun.stdout.match(/from the journal: already done, not sent again/g)).toHaveLength(2);
    expect(await recharges()).toBe(2);

    // one row more: it would be sent, so the mode is asked, cannot be learned, and counts as live
    writeFileSync(rows, `card_id,amount\n${card.id},100\n${card.id},250\n${card.id},300\n`);
    const more = await sb.run(['cards', 'recharge', '--batch', rows, '--no-input', '--allow-duplicates'], {
      env: offline,
    });
    expect(more.code).toBe(2);
    expect(more.stderr).toMatch(/--yes/);
    expect(more.stdout).toBe('');
    expect(await recharges()).toBe(2);
  });
});
