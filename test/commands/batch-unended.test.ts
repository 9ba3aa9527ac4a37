// A regular batch file whose last row has no line end (many exports end so) is still accepted,
// but before its first row is sent the batch says so on stderr, naming the row: a file cut short
// in transit ends mid-row too (issue 36). A pipe's unended last row stays refused
// (test/commands/batch-keys.test.ts). The built CLI against the mock, real files.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, cardBalance, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 41, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
  };
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('a regular file whose last row has no line end', () => {
  it('CSV: accepted, every row sent once, and the note naming the row comes before the first row is sent', async () => {
    const [a, b] = [await activeCard(mock, { amount: 100 }), await activeCard(mock, { amount: 100 })];
    const path = join(sb.dir, 'export.csv');
    writeFileSync(path, `card_id,amount\n${a.id},5\n${b.id},7`);
    const r = await sb.run(['cards', 'recharge', '--batch', path, '--concurrency', '1', '--verbose'], { env });
    expect(r.code, r.stderr).toBe(0);
    const note = r.stderr.indexOf(`Note: the last row of ${path} (row 2, line 3: "${b.id},7") has no line end.`);
    expect(note, r.stderr).toBeGreaterThanOrEqual(0);
    expect(note).toBeLessThan(r.stderr.indexOf('> attempt 1'));
    expect([await cardBalance(mock, a.id), await cardBalance(mock, b.id)]).toEqual([105, 107]);
  });

  it('NDJSON: the same note; a file that ends with a line end gets none', async () => {
    const card = await activeCard(mock, { amount: 100 });
    const path = join(sb.dir, 'export.ndjson');
    writeFileSync(path, `{"card_id":"${card.id}","amount":3}\r\n{"card_id":"${card.id}","amount":4}`);
    const r = await sb.run(['cards', 'recharge', '--batch', path, '--json'], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `the last row of ${path} (row 2, line 2: "{\\"card_id\\":\\"${card.id}\\",\\"amount\\":4}") has no line end`,
    );
    expect(await cardBalance(mock, card.id)).toBe(107);

    const ended = join(sb.dir, 'ended.csv');
    writeFileSync(ended, `card_id,amount\n${card.id},1\n`);
    const whole = await sb.run(['cards', 'recharge', '--batch', ended], { env });
    expect(whole.code, whole.stderr).toBe(0);
    expect(whole.stderr).not.toContain('no line end');
  });
});
