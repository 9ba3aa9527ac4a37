// `-p` on the mock-facing commands (issue 11, item 5): a profile saved by `mock start
// --save-profiles` knows its mock, so `mock state -p mock-test` and `webhooks trigger -p mock-test`
// find it; a profile whose address has no running mock gets an error that says how the mock
// commands find a mock. `webhooks listen --mock` finds the mock of its profile (-p, or
// CARDCTL_PROFILE) even when a newer mock runs, and `webhooks trigger` emits in the mode of the
// profile that found the mock.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, makeSandbox, ROOT, type CliOptions } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

const sb = makeSandbox();
/** The built CLI in this process (test/helpers/in-process.ts), in the sandbox. */
const runIn = (args: string[], options?: CliOptions) => inProcessRunner(sb)(args, options);
const children: ChildProcessWithoutNullStreams[] = [];
let banner: { base_url: string; control_url: string };
/** started after the first, without profiles: the newest running mock */
let newer: { base_url: string; control_url: string };

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...sb.env, NO_COLOR: '1', ...extra };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && !(k in sb.env) && !(k in extra)) delete env[k];
  return env;
}

async function startMockProcess(args: string[]): Promise<{ base_url: string; control_url: string }> {
  const child = spawn(process.execPath, [BIN, 'mock', 'start', '--port', '0', '--json', ...args], {
    cwd: ROOT,
    env: childEnv(),
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]!));
    });
    child.on('exit', (code) => reject(new Error(`mock exited with ${code}`)));
  });
}

beforeAll(async () => {
  banner = await startMockProcess(['--save-profiles', '--seed', '61']);
  newer = await startMockProcess(['--seed', '62']);
}, 30_000);
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((r) => child.on('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  sb.cleanup();
});

/** `webhooks listen --mock --max-events 1 --json ...` in the background: its first stdout line, and its end. */
function listen(args: string[], extraEnv: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, 'webhooks', 'listen', '--mock', '--max-events', '1', '--json', ...args], {
    cwd: ROOT,
    env: childEnv(extraEnv),
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  const ready = new Promise<{ listening: string; endpoint_id: string }>((resolve, reject) => {
    child.stdout.on('data', () => {
      if (stdout.includes('\n')) resolve(JSON.parse(stdout.split('\n')[0]!));
    });
    void exited.then((code) => reject(new Error(`listen exited with ${code} before listening: ${stderr}`)));
  });
  return { ready, exited, out: () => ({ stdout, stderr }) };
}

describe('-p on the mock-facing commands', () => {
  it('mock state -p mock-test finds the mock the profile points at', async () => {
    const r = await runIn(['mock', 'state', '-p', 'mock-test', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveProperty('customers');
  });

  it('webhooks trigger -p mock-test emits on that mock', async () => {
    const r = await runIn(['webhooks', 'trigger', 'card.issued', '-p', 'mock-test', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ type: 'card.issued' });
  });

  it('a profile whose address has no running mock: the error says how the mock commands find a mock', async () => {
    const add = await runIn(
      [
        'profiles',
        'add',
        'elsewhere',
        '--key-id',
        '01JD2Q7N8V3K4M5P6R7S8T9V0W',
        '--mode',
        'test',
        '--base-url',
        'http://127.0.0.1:9/api/v1',
        '--secret-stdin',
      ],
      {
        input: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXh4eHg=\n',
      },
    );
    expect(add.code, add.stderr).toBe(0);
    const r = await runIn(['mock', 'faults', '-p', 'elsewhere']);
    expect(r.code).toBe(8);
    expect(r.stderr).toContain('profile elsewhere points at http://127.0.0.1:9, but no running mock');
    expect(r.stderr).toContain('mock start --save-profiles');
    const none = await runIn(['mock', 'state', '-p', 'nope']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no profile named nope');
  });
});

describe('webhooks trigger takes the mode of the profile that found the mock', () => {
  it('-p mock-live emits a live event on that mock; --mode overrides; CARDCTL_PROFILE counts too; with neither, test', async () => {
    const emitted = async (args: string[], env: Record<string, string> = {}) => {
      const r = await runIn(['webhooks', 'trigger', 'card.issued', '--json', ...args], { env });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { id: string; mode: string };
    };
    const live = await emitted(['-p', 'mock-live']);
    expect(live.mode).toBe('live');
    const onFirst = await runIn(['mock', 'events', '-p', 'mock-live', '--json']);
    expect(JSON.parse(onFirst.stdout).data).toContainEqual(expect.objectContaining({ id: live.id, mode: 'live' }));
    expect((await emitted(['-p', 'mock-live', '--mode', 'test'])).mode).toBe('test');
    expect((await emitted(['-p', 'mock-test'])).mode).toBe('test');
    expect((await emitted([], { CARDCTL_PROFILE: 'mock-live' })).mode).toBe('live');
    expect((await emitted([])).mode).toBe('test'); // the newest mock, no profile: test
  });
});

describe('webhooks listen --mock with a profile, while a newer mock runs', () => {
  for (const [how, args, env] of [
    ['-p mock-test', ['-p', 'mock-test'], {}],
    ['CARDCTL_PROFILE=mock-test', [], { CARDCTL_PROFILE: 'mock-test' }],
  ] as Array<[string, string[], Record<string, string>]>) {
    it(`${how}: registers on the mock the profile points at, not the newest, and verifies its delivery`, async () => {
      const l = listen(args, env);
      const ready = await l.ready;
      const mine = await runIn(['mock', 'webhook-endpoints', '-p', 'mock-test', '--json']);
      expect(JSON.parse(mine.stdout).data.map((e: { id: string }) => e.id)).toContain(ready.endpoint_id);
      const newest = await runIn(['mock', 'webhook-endpoints', '--json']); // no -p: the newest mock
      expect(newest.stderr).toContain(newer.base_url);
      expect(JSON.parse(newest.stdout).data).toEqual([]);
      const trig = await runIn(['webhooks', 'trigger', 'card.issued', '-p', 'mock-test', '--json']);
      expect(trig.code, trig.stderr).toBe(0);
      expect(await l.exited, l.out().stderr).toBe(0);
      expect(l.out().stderr).toContain(`on the mock at ${banner.control_url} as webhook endpoint ${ready.endpoint_id}`);
      const delivery = JSON.parse(l.out().stdout.trim().split('\n')[1]!);
      expect(delivery).toMatchObject({ valid: true, type: 'card.issued', data: JSON.parse(trig.stdout).data });
    });
  }

  it('a profile with no running mock at its address: a clear error before listening, naming the profile (or CARDCTL_PROFILE)', async () => {
    const add = await runIn(
      [
        'profiles',
        'add',
        'gone',
        '--key-id',
        '01JD2Q7N8V3K4M5P6R7S8T9V0X',
        '--mode',
        'test',
        '--base-url',
        'http://127.0.0.1:9/api/v1',
        '--secret-stdin',
        '--webhook-secret-stdin',
      ],
      { input: 'c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXh4eHg=\nwhsec_gone0123456789abcdef0123456789\n' },
    );
    expect(add.code, add.stderr).toBe(0);
    const byFlag = await runIn(['webhooks', 'listen', '--mock', '-p', 'gone']);
    expect(byFlag.code).toBe(8);
    expect(byFlag.stderr).toContain('profile gone points at http://127.0.0.1:9, but no running mock');
    expect(byFlag.stderr).not.toContain('Listening on');
    const byEnv = await runIn(['webhooks', 'listen', '--mock', '--json'], { env: { CARDCTL_PROFILE: 'gone' } });
    expect(byEnv.code).toBe(8);
    expect(JSON.parse(byEnv.stdout).error).toMatchObject({ code: 'no_mock_for_profile' });
    expect(JSON.parse(byEnv.stdout).error.message).toContain(
      'CARDCTL_PROFILE names profile gone, which points at http://127.0.0.1:9',
    );
    expect(JSON.parse(byEnv.stdout).error.hint).toContain('Unset CARDCTL_PROFILE'); // what to do next: its own field
    const remove = await runIn(['profiles', 'remove', 'gone']);
    expect(remove.code, remove.stderr).toBe(0);
  });
});
