// Snapshots for test suites: `cardctl mock snapshot save|restore|list` against `mock start
// --state` (files beside the state file, kept across a restart), names that cannot form a path,
// and the library's startMock({ snapshot }) and handle methods.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BIN, makeSandbox, ROOT } from '../helpers/cli.js';
import {
  apiCall,
  approvedCustomer,
  control,
  expectOk,
  handleFromBanner,
  issueCard,
  wallet,
  type MockHandle,
} from '../helpers/api.js';
import { startMock } from '../../src/mock/index.js';

const sandbox = makeSandbox();
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});
afterAll(() => sandbox.cleanup());

async function startCliMock(stateFile: string): Promise<{ child: ChildProcessWithoutNullStreams; mock: MockHandle }> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...sandbox.env, NO_COLOR: '1' };
  for (const k of Object.keys(env)) if (k.startsWith('CARDCTL_') && !(k in sandbox.env)) delete env[k];
  const child = spawn(process.execPath, [BIN, 'mock', 'start', '--port', '0', '--json', '--state', stateFile], {
    cwd: ROOT,
    env,
  });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.on('exit', (code) => reject(new Error(`mock exited with ${code}; stderr: ${err}`)));
  });
  return { child, mock: handleFromBanner(JSON.parse(line)) };
}

const stop = (child: ChildProcessWithoutNullStreams) =>
  new Promise((r) => {
    if (child.exitCode !== null) return r(null);
    child.once('exit', r);
    child.kill('SIGTERM');
  });

describe('cardctl mock snapshot', () => {
  it('save, change things, restore: the saved state is back; the snapshot is a file beside --state and survives a restart', async () => {
    const stateFile = join(sandbox.dir, 'mockstate', 'state.json');
    let { child, mock } = await startCliMock(stateFile);
    const customer = await approvedCustomer(mock);
    const card = expectOk(await issueCard(mock, { customerId: customer.id, amount: 1000 }), 201);
    const saved = await sandbox.run(['mock', 'snapshot', 'save', 'prepared', '--json']);
    expect(saved.code, saved.stderr).toBe(0);
    expect(JSON.parse(saved.stdout)).toMatchObject({ name: 'prepared' });
    const walletThen = await wallet(mock);

    // a test changes things: another card, a recharge
    expectOk(await issueCard(mock, { customerId: customer.id, amount: 300 }), 201);
    expectOk(
      await apiCall(mock, {
        method: 'POST',
        path: `/cards/${card.id}/recharge`,
        body: { amount: 50 },
        idempotencyKey: 'snap-recharge-1',
      }),
    );
    expect(await wallet(mock)).not.toEqual(walletThen);

    const restored = await sandbox.run(['mock', 'snapshot', 'restore', 'prepared']);
    expect(restored.code, restored.stderr).toBe(0);
    expect(await wallet(mock)).toEqual(walletThen);
    expect(expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` })).balance_minor).toBe(1000);
    // the idempotency memory is the snapshot's too: the same key runs again
    expect(
      expectOk(
        await apiCall(mock, {
          method: 'POST',
          path: `/cards/${card.id}/recharge`,
          body: { amount: 50 },
          idempotencyKey: 'snap-recharge-1',
        }),
      ).balance_minor,
    ).toBe(1050);

    expect(readdirSync(join(sandbox.dir, 'mockstate', 'state.json.snapshots'))).toEqual(['prepared.json']);
    await stop(child);
    ({ child, mock } = await startCliMock(stateFile));
    const list = await sandbox.run(['mock', 'snapshot', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).data.map((s: { name: string }) => s.name)).toEqual(['prepared']);
    expect((await sandbox.run(['mock', 'snapshot', 'restore', 'prepared'])).code).toBe(0);
    expect(expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` })).balance_minor).toBe(1000);
    await stop(child);
  }, 60_000);

  it('a name that could form a path is refused with what is allowed; an unknown one is 404', async () => {
    const stateFile = join(sandbox.dir, 'names', 'state.json');
    const { child, mock } = await startCliMock(stateFile);
    for (const name of ['../escape', 'a/b', '..', '.hidden', 'x'.repeat(65), '']) {
      const res = await control(mock, 'POST', '/snapshots', { name });
      expect(res.status, name).toBe(422);
      expect(res.body.errors.name[0]).toMatch(/letters, digits, dots, underscores or dashes/);
    }
    const cli = await sandbox.run(['mock', 'snapshot', 'save', '../escape']);
    expect(cli.code).not.toBe(0);
    expect(cli.stderr + cli.stdout).toMatch(/letters, digits, dots, underscores or dashes/);
    expect((await control(mock, 'POST', `/snapshots/${encodeURIComponent('../state')}/restore`)).status).toBe(404);
    expect((await control(mock, 'POST', '/snapshots/never-saved/restore')).status).toBe(404);
    expect(existsSync(join(sandbox.dir, 'escape.json'))).toBe(false);
    expect(existsSync(join(sandbox.dir, 'names', 'escape.json'))).toBe(false);
    await stop(child);
  }, 60_000);
});

describe('snapshots from the library', () => {
  it('handle methods save and restore in memory; startMock({ snapshot }) starts from a snapshot file', async () => {
    const mock = await startMock({ port: 0, providerLatencyMs: 0 });
    try {
      const customer = await approvedCustomer(mock);
      const card = expectOk(await issueCard(mock, { customerId: customer.id, amount: 700 }), 201);
      const info = await mock.saveSnapshot('one-card');
      expect(info).toMatchObject({ name: 'one-card' });
      expectOk(
        await apiCall(mock, {
          method: 'POST',
          path: `/cards/${card.id}/recharge`,
          body: { amount: 5 },
          idempotencyKey: 'lib-1',
        }),
      );
      await mock.restoreSnapshot('one-card');
      expect(expectOk(await apiCall(mock, { method: 'GET', path: `/cards/${card.id}` })).balance_minor).toBe(700);
      expect(mock.listSnapshots().map((s) => s.name)).toEqual(['one-card']);
      await expect(mock.restoreSnapshot('missing')).rejects.toThrow(/no snapshot named "missing"/);
    } finally {
      await mock.close();
    }

    const stateFile = join(sandbox.dir, 'lib', 'state.json');
    const saver = await startMock({ port: 0, stateFile, providerLatencyMs: 0 });
    let cardId = '';
    try {
      const customer = await approvedCustomer(saver);
      cardId = expectOk(await issueCard(saver, { customerId: customer.id, amount: 900 }), 201).id;
      await saver.saveSnapshot('seeded');
    } finally {
      await saver.close();
    }
    const fromSnapshot = await startMock({
      port: 0,
      snapshot: join(sandbox.dir, 'lib', 'state.json.snapshots', 'seeded.json'),
    });
    try {
      expect(expectOk(await apiCall(fromSnapshot, { method: 'GET', path: `/cards/${cardId}` })).balance_minor).toBe(
        900,
      );
    } finally {
      await fromSnapshot.close();
    }
  });
});
