// A money operation whose outcome is unknown (its answer was lost) is sent again while the API
// cannot be reached. That send reached nothing, so it tells nothing about the operation: the
// command must say "unknown" (exit 7, replay later), never "the service could not be reached"
// (exit 8), which a script reads as "not applied" and may answer with a NEW key: a second charge.
// The built CLI against the real mock, stopped between the sends (its port then refuses).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, fault, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type CliResult, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const run = (args: string[]) => sb.run(args, { env });
const json = (r: CliResult) => JSON.parse(r.stdout);

let card: { id: string };
beforeAll(async () => {
  mock = (await startMock({ port: 0, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_MODE: 'test',
  };
  card = await activeCard(mock, { amount: 500 });
  // the first send of `lost-answer` is applied, and its answer lost (connection dropped)
  await fault(mock, 'recharge', 'drop');
  const first = await run([
    'cards',
    'recharge',
    card.id,
    '--amount',
    '100',
    '--idempotency-key',
    'lost-answer',
    '--retries',
    '0',
  ]);
  expect(first.code, first.stderr).toBe(7);
  // a success, for contrast: known, so a later unreachable send of it is just unreachable
  const known = await run(['cards', 'recharge', card.id, '--amount', '5', '--idempotency-key', 'known-success']);
  expect(known.code, known.stderr).toBe(0);
  await mock.close(); // from here on the API refuses connections
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('an unknown money operation sent again while the API cannot be reached', () => {
  it('the same command exits 7: the outcome stays unknown, with the replay to run later', async () => {
    const again = await run([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '100',
      '--idempotency-key',
      'lost-answer',
      '--retries',
      '0',
    ]);
    expect(again.code, again.stderr).toBe(7);
    expect(again.stderr).toMatch(/cannot reach .*An earlier attempt may have gone through/);
    expect(again.stderr).toMatch(/replay it .*--idempotency-key lost-answer/);
    const json7 = await run([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '100',
      '--idempotency-key',
      'lost-answer',
      '--retries',
      '0',
      '--json',
    ]);
    expect(json7.code).toBe(7);
  });

  it('`ops replay` exits 7 too, and the operation stays listed as unresolved', async () => {
    const list = json(await run(['ops', 'list', '--all', '--json'])).data as Array<{
      id: string;
      idempotency_key: string;
    }>;
    const first = list.find((e) => e.idempotency_key === 'lost-answer')!;
    const replay = await run(['ops', 'replay', first.id]);
    expect(replay.code, replay.stderr).toBe(7);
    const unresolved = json(await run(['ops', 'list', '--unresolved', '--all', '--json'])).data as Array<{
      idempotency_key: string;
    }>;
    expect(unresolved.map((e) => e.idempotency_key)).toContain('lost-answer');
  });

  it('a key never sent, or one whose success is known, is simply unreachable (exit 8)', async () => {
    const fresh = await run([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '100',
      '--idempotency-key',
      'never-sent',
      '--retries',
      '0',
    ]);
    expect(fresh.code, fresh.stderr).toBe(8);
    expect(fresh.stderr).not.toContain('may have gone through');
    const known = await run([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '5',
      '--idempotency-key',
      'known-success',
      '--retries',
      '0',
    ]);
    expect(known.code, known.stderr).toBe(8);
    const unresolved = json(await run(['ops', 'list', '--unresolved', '--all', '--json'])).data as Array<{
      idempotency_key: string;
    }>;
    expect(unresolved.map((e) => e.idempotency_key)).not.toContain('never-sent');
    expect(unresolved.map((e) => e.idempotency_key)).not.toContain('known-success');
  });
});
