// On a terminal, tables fit its width (issue 11, item 6): through a real pseudo-terminal
// (`script`), a wide list comes out no wider than the terminal, boxed or plain; piped, the
// same list is unchanged (full values, one line per row).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { fitWidths } from '../../src/output/text.js';
import { createCustomer, type MockHandle } from '../helpers/api.js';
import { BIN, makeSandbox, ROOT, type Sandbox } from '../helpers/cli.js';

let mock: MockHandle;
let sb: Sandbox;
let env: Record<string, string>;
const ids: string[] = [];

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 71, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
  env = {
    ...sb.env,
    CARDCTL_BASE_URL: mock.baseUrl,
    CARDCTL_API_KEY: mock.keys.test.keyId,
    CARDCTL_API_SECRET: mock.keys.test.secret,
    CARDCTL_MODE: 'test',
  };
  for (let i = 0; i < 3; i++) ids.push((await createCustomer(mock)).id);
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

/** Runs the CLI with stdout on a pseudo-terminal of `cols` columns; returns what the terminal showed. */
function onTerminal(args: string[], cols: number, extraEnv: Record<string, string | undefined>): Promise<string> {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env, ...extraEnv };
  for (const [k, v] of Object.entries(extraEnv)) if (v === undefined) delete childEnv[k];
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', `stty cols ${cols} rows 40; exec ${quoted} 2>/dev/null`, '/dev/null'], {
      cwd: ROOT,
      env: childEnv,
    });
    let out = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    // decoded as a stream: a box-drawing character (3 bytes) split across two chunks stays whole
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
  });
}

// eslint-disable-next-line no-control-regex
const visibleLines = (s: string): string[] =>
  s
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split(/\r?\n/)
    .map((l) => l.replace(/\r/g, ''))
    .filter((l) => l.trim() !== '');

describe('tables on a terminal fit its width', () => {
  it('plain columns (NO_COLOR): no line wider than 70 columns, the header still there', async () => {
    const shown = visibleLines(await onTerminal(['customers', 'list'], 70, { NO_COLOR: '1' }));
    expect(shown[0]).toMatch(/^ID\s/);
    expect(shown.length).toBeGreaterThanOrEqual(4);
    for (const l of shown) expect([...l].length, l).toBeLessThanOrEqual(70);
  });

  it('boxed (colour terminal): no line wider than 70 columns; long values wrap inside their cell', async () => {
    const shown = visibleLines(
      await onTerminal(['customers', 'list'], 70, { NO_COLOR: undefined, FORCE_COLOR: undefined }),
    );
    expect(shown.some((l) => l.includes('┌') || l.includes('│'))).toBe(true);
    for (const l of shown) expect([...l].length, l).toBeLessThanOrEqual(70);
  });

  it('piped output never changes: full values, one line per row', async () => {
    const r = await sb.run(['customers', 'list'], { env });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    for (const id of ids) expect(lines.some((l) => l.startsWith(id))).toBe(true);
    expect(Math.max(...lines.map((l) => l.length))).toBeGreaterThan(70);
  });

  it('widths give way from the widest column, down to a minimum', () => {
    expect(fitWidths([26, 4, 40], [2, 4, 5], 50)).toEqual([23, 4, 23]);
    expect(fitWidths([10, 10], [10, 10], 5)).toEqual([10, 10]);
    expect(fitWidths([3, 3], [1, 1], 10)).toEqual([3, 3]);
  });
});
