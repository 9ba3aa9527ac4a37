// `--jq`'s caches in the user's cache folder (src/output/jq-engine.ts): jq-web's glue with V8's
// code cache, and the marks of expressions jq compiled once (their later runs skip the check).
// (A path such as `.id` runs without jq, src/output/jq-paths.ts: these use expressions jq runs.) What a user sees: the same output with and without
// them, a bad expression still refused (never marked), nothing written with CARDCTL_NO_CODE_CACHE.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { activeCard, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let card: { id: string };
const cache = mkdtempSync(join(tmpdir(), 'cardctl-jq-cache-'));
const files = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? (e as unknown as { path: string }).path, e.name).slice(dir.length + 1));

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 3, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  card = await activeCard(mock, { amount: 1200 });
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
  rmSync(cache, { recursive: true, force: true });
});
const run = (args: string[], extra: Record<string, string> = {}) =>
  sb.run(args, {
    env: {
      CARDCTL_BASE_URL: mock.baseUrl,
      CARDCTL_API_KEY: mock.keys.test.keyId,
      CARDCTL_API_SECRET: mock.keys.test.secret,
      CARDCTL_MODE: 'test',
      CARDCTL_CACHE_DIR: cache,
      ...extra,
    },
  });

describe('--jq caches', () => {
  it('the first run writes them, the next runs print the same from them', async () => {
    const first = await run(['cards', 'get', card.id, '--jq', '.balance_minor | tostring']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('1200\n');
    const written = files(cache);
    expect(written.filter((f) => f.startsWith('jq-checked/'))).toHaveLength(1);
    expect(written.some((f) => /^jq-web-.*\.cache$/.test(f))).toBe(true);
    for (let i = 0; i < 2; i++) {
      const again = await run(['cards', 'get', card.id, '--jq', '.balance_minor | tostring']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe('1200\n');
    }
    expect(files(cache).sort()).toEqual(written.sort()); // nothing rewritten: every cache was accepted
  });

  it('a bad expression is refused every time, before anything is sent, and never marked', async () => {
    const marks = files(cache).filter((f) => f.startsWith('jq-checked/')).length;
    for (let i = 0; i < 2; i++) {
      const r = await run(['cards', 'get', card.id, '--jq', '.balance_minor | tostring |']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--jq: the expression does not compile/);
    }
    expect(files(cache).filter((f) => f.startsWith('jq-checked/'))).toHaveLength(marks);
  });

  it('CARDCTL_NO_CODE_CACHE=1 writes none of them and prints the same', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'cardctl-jq-nocache-'));
    try {
      const r = await run(['cards', 'get', card.id, '--jq', '.id | ascii_downcase'], {
        CARDCTL_CACHE_DIR: empty,
        CARDCTL_NO_CODE_CACHE: '1',
      });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${card.id.toLowerCase()}\n`);
      expect(files(empty)).toEqual([]);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
