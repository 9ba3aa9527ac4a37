// Issue 30: a command writes only to the streams it is given (src/io.ts), never to the process's:
// the built command class runs in-process (as the fast path builds it, on the lite oclif) with
// in-memory streams, `--json` and `--jq` included, and nothing reaches process.stdout or stderr.
// This is the seam an in-process test runner uses.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { memoryStream as memory } from '../helpers/memory-io.js';

interface Runnable {
  id: string | undefined;
  preparsed: { args: Record<string, unknown>; flags: Record<string, unknown>; argv: string[] } | undefined;
  useIo(io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Runnable;
  _run(): Promise<unknown>;
}

let dir: string;
let payload: string;
const SECRET = 'whsec_in-process-test-secret-0123456789abcdef';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cardctl-io-'));
  payload = join(dir, 'payload.json');
  writeFileSync(payload, '{"id":"evt_1"}');
  (globalThis as Record<symbol, unknown>)[Symbol.for('cardctl.fastPath')] = true; // built on the lite oclif, as the fast path does
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function runInProcess(
  id: string,
  flags: Record<string, unknown>,
  args: Record<string, unknown> = {},
): Promise<{ stdout: string; stderr: string; wrote: number }> {
  const { default: Command } = (await import(join(ROOT, 'dist', 'commands', ...id.split(':')) + '.js')) as {
    default: new (argv: string[], config: unknown) => Runnable;
  };
  const out = memory();
  const err = memory();
  const stdoutSpy = vi.spyOn(process.stdout, 'write');
  const stderrSpy = vi.spyOn(process.stderr, 'write');
  const env = process.env.CARDCTL_WEBHOOK_SECRET;
  process.env.CARDCTL_WEBHOOK_SECRET = SECRET;
  try {
    const command = new Command([], undefined).useIo({ stdout: out.stream, stderr: err.stream });
    command.id = id;
    command.preparsed = { args, flags: { json: false, 'no-input': false, ...flags }, argv: [] };
    await command._run();
    return { stdout: out.text(), stderr: err.text(), wrote: stdoutSpy.mock.calls.length + stderrSpy.mock.calls.length };
  } finally {
    stdoutSpy.mockRestore();
    stderrSpy.mockRestore();
    if (env === undefined) delete process.env.CARDCTL_WEBHOOK_SECRET;
    else process.env.CARDCTL_WEBHOOK_SECRET = env;
  }
}

describe('a command run in-process with its own streams', () => {
  it("text, --json and --jq go to the streams given, nothing to the process's", async () => {
    const text = await runInProcess('webhooks:sign', { payload, timestamp: '1700000000' });
    expect(text.stdout).toMatch(/^t=1700000000, v1=[0-9a-f]{64}\n$/);
    expect(text.wrote).toBe(0);
    const json = await runInProcess('webhooks:sign', { payload, timestamp: '1700000000', json: true });
    expect(JSON.parse(json.stdout)).toMatchObject({ header: text.stdout.trim(), timestamp: 1700000000 });
    expect(json.wrote).toBe(0);
    const jq = await runInProcess('webhooks:sign', { payload, timestamp: '1700000000', jq: '.timestamp' });
    expect(jq.stdout).toBe('1700000000\n');
    expect(jq.wrote).toBe(0);
  });

  it('a returned result (src/output/render.ts) and an error are printed to the streams given', async () => {
    const completion = await runInProcess('completion', { jq: '.shell' }, { shell: 'bash' });
    expect(completion.stdout).toBe('bash\n');
    expect(completion.wrote).toBe(0);
    const exitCode = process.exitCode;
    const refused = await runInProcess('webhooks:sign', {
      payload: join(dir, 'missing.json'),
      timestamp: '1700000000',
    });
    process.exitCode = exitCode;
    expect(refused.stderr).toContain('cannot read --payload');
    expect(refused.stdout).toBe('');
    expect(refused.wrote).toBe(0);
  });
});
