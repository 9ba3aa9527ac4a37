// Issue 30: what a command's text looks like depends on the stdout it is GIVEN (src/io.ts), never
// on the process's: a table fits the width of the terminal handed in, and is left whole for a
// stream that is not a terminal, whatever process.stdout is; colour likewise. The built `profiles list` runs
// in-process (as the fast path builds it) with in-memory streams that say they are a 60-column
// terminal, then that they are a pipe.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/cli.js';
import { memoryIo } from '../helpers/memory-io.js';

let dir: string;
const saved = { ...process.env };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cardctl-term-'));
  const env = { CARDCTL_CONFIG_DIR: join(dir, 'config') };
  const add = await runCli(
    [
      'profiles',
      'add',
      'a-profile-with-a-rather-long-name-for-a-narrow-terminal',
      '--key-id',
      '01JD2Q7N8V3K4M5P6R7S8T9V0W',
      '--mode',
      'test',
      '--base-url',
      'https://sandbox.example.com/api/v1',
      '--secret-stdin',
    ],
    { env, input: Buffer.alloc(32, 7).toString('base64') },
  );
  expect(add.code).toBe(0);
  process.env.CARDCTL_CONFIG_DIR = env.CARDCTL_CONFIG_DIR;
  process.env.NO_COLOR = '1'; // plain columns: the widest give way with …
  (globalThis as Record<symbol, unknown>)[Symbol.for('cardctl.fastPath')] = true;
});
afterAll(() => {
  for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
  Object.assign(process.env, saved);
  rmSync(dir, { recursive: true, force: true });
});

async function profilesList(terminal: { isTTY: boolean; columns?: number }): Promise<string> {
  return runProfiles('list', {}, terminal);
}

async function runProfiles(
  name: 'list' | 'show',
  args: Record<string, string>,
  terminal: { isTTY: boolean; columns?: number },
): Promise<string> {
  const { default: Command } = (await import(join(ROOT, 'dist', 'commands', 'profiles', `${name}.js`))) as {
    default: new (
      argv: string[],
      config: unknown,
    ) => {
      id?: string;
      preparsed?: unknown;
      useIo(io: unknown): { _run(): Promise<unknown> };
    };
  };
  const { io, out } = memoryIo(terminal);
  const command = new Command([], undefined);
  command.id = `profiles:${name}`;
  command.preparsed = { args, flags: { json: false, 'no-input': false }, argv: [] };
  await command.useIo(io)._run();
  return out();
}

describe('the terminal a command is given', () => {
  it('a 60-column terminal: every line fits and the widest value is shortened with …', async () => {
    const out = await profilesList({ isTTY: true, columns: 60 });
    const lines = out.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    expect(out).toContain('…');
  });

  it('a pipe: the same table whole, one line per row, whatever process.stdout is', async () => {
    const out = await profilesList({ isTTY: false });
    expect(out).toContain('a-profile-with-a-rather-long-name-for-a-narrow-terminal');
    expect(out).toContain('https://sandbox.example.com/api/v1');
    expect(out).not.toContain('…');
  });

  it('colour follows the stdout given: bold keys on a terminal, plain text to a pipe', async () => {
    const { NO_COLOR, FORCE_COLOR, TERM } = process.env;
    delete process.env.NO_COLOR;
    delete process.env.FORCE_COLOR;
    process.env.TERM = 'xterm-256color';
    try {
      const name = 'a-profile-with-a-rather-long-name-for-a-narrow-terminal';
      const terminal = await runProfiles('show', { name }, { isTTY: true, columns: 120 });
      expect(terminal).toContain('\u001b[1m');
      const pipe = await runProfiles('show', { name }, { isTTY: false });
      expect(pipe).toContain(name);
      expect(pipe).not.toContain('\u001b');
    } finally {
      Object.assign(process.env, { NO_COLOR, FORCE_COLOR, TERM });
      for (const [k, v] of Object.entries({ NO_COLOR, FORCE_COLOR, TERM })) if (v === undefined) delete process.env[k];
    }
  });
});
