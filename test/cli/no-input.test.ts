// Issue 21 item 4: with CI=true cardctl never prompts, even on a terminal; it fails at once
// naming the flag to pass. `script` gives the child a real pseudo-terminal as stdin.
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, makeSandbox } from '../helpers/cli.js';

const sandbox = makeSandbox();
afterAll(() => sandbox.cleanup());

function onTerminal(args: string, env: Record<string, string>) {
  const quoted = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${args}`;
  return spawnSync('script', ['-qec', quoted, '/dev/null'], { env: { ...process.env, ...sandbox.env, NO_COLOR: '1', ...env }, encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
}

describe('CI=true on a terminal', () => {
  it('profiles add fails at once instead of prompting for the secret, naming --secret-stdin', () => {
    const r = onTerminal('profiles add ci --key-id 01JD2Q7N8V3K4M5P6R7S8T9V0W --mode test', { CI: 'true' });
    expect(r.signal).toBeNull();
    expect(r.status).toBe(2);
    expect(r.stdout).toContain('CI is set');
    expect(r.stdout).toContain('--secret-stdin');
    expect(r.stdout).not.toContain('not shown');
  });
});
