// `-p` on the mock-facing commands (issue 11, item 5): a profile saved by `mock start
// --save-profiles` knows its mock, so `mock state -p mock-test` and `webhooks trigger -p mock-test`
// find it; a profile whose address has no running mock gets an error that says how the mock
// commands find a mock.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, makeSandbox, ROOT } from '../helpers/cli.js';

const sb = makeSandbox();
let child: ChildProcessWithoutNullStreams | undefined;
let banner: { base_url: string; control_url: string };

beforeAll(async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, ...sb.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && !(k in sb.env)) delete env[k];
  child = spawn(process.execPath, [BIN, 'mock', 'start', '--port', '0', '--json', '--save-profiles', '--seed', '61'], { cwd: ROOT, env });
  banner = await new Promise((resolve, reject) => {
    let text = '';
    child!.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]!));
    });
    child!.on('exit', (code) => reject(new Error(`mock exited with ${code}`)));
  });
}, 30_000);
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.on('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  sb.cleanup();
});

describe('-p on the mock-facing commands', () => {
  it('mock state -p mock-test finds the mock the profile points at', async () => {
    const r = await sb.run(['mock', 'state', '-p', 'mock-test', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('customers');
  });

  it('webhooks trigger -p mock-test emits on that mock', async () => {
    const r = await sb.run(['webhooks', 'trigger', 'card.issued', '-p', 'mock-test', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'card.issued' });
  });

  it('a profile whose address has no running mock: the error says how the mock commands find a mock', async () => {
    const add = await sb.run(['profiles', 'add', 'elsewhere', '--key-id', '01JD2Q7N8V3K4M5P6R7S8T9V0W', '--mode', 'test', '--base-url', 'http://127.0.0.1:9/api/v1', '--secret-stdin'], {
      input: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXh4eHg=\n',
    });
    expect(add.code, add.stderr).toBe(0);
    const r = await sb.run(['mock', 'faults', '-p', 'elsewhere']);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('profile elsewhere points at http://127.0.0.1:9, but no running mock');
    expect(r.stderr).toContain('mock start --save-profiles');
    const none = await sb.run(['mock', 'state', '-p', 'nope']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no profile named nope');
  });
});
