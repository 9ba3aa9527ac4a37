// `cardctl doctor` against the mock: each check passes, warns or fails for the cause a user
// would meet, with the exit code of the first failure, and running it changes nothing.
// In this process (test/helpers/in-process.ts); the moved clock and the journal's money operations
// as child processes.
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { approvedCustomer, ctl, type MockHandle } from '../helpers/api.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { inProcessRunner } from '../helpers/in-process.js';

let mock: MockHandle;
let sb: Sandbox;
const envFor = (keyId: string, secret: string, mode: 'test' | 'live', baseUrl = mock.baseUrl) => ({
  CARDCTL_API_KEY: keyId,
  CARDCTL_API_SECRET: secret,
  CARDCTL_MODE: mode,
  CARDCTL_BASE_URL: baseUrl,
});
interface Report {
  ok: boolean;
  checks: Array<{ name: string; status: string; detail: string; hint?: string }>;
}
/**
 * `doctor --json` in this process (test/helpers/in-process.ts), or as a child process: a clock
 * moved by a NODE_OPTIONS preload needs a process of its own.
 */
async function doctor(
  env: Record<string, string>,
  how: 'in-process' | 'child' = 'in-process',
): Promise<{ code: number; report: Report; stderr: string }> {
  const r =
    how === 'child'
      ? await sb.run(['doctor', '--json'], { env })
      : await inProcessRunner(sb)(['doctor', '--json'], { env });
  return { code: r.code, report: JSON.parse(r.stdout) as Report, stderr: r.stderr };
}
const status = (report: Report) => Object.fromEntries(report.checks.map((c) => [c.name, c.status]));
const check = (report: Report, name: string) => report.checks.find((c) => c.name === name)!;

beforeAll(async () => {
  mock = (await startMock({ port: 0, seed: 21, providerLatencyMs: 0 })) as unknown as MockHandle;
  sb = makeSandbox();
});
afterAll(async () => {
  await mock?.close();
  sb?.cleanup();
});

describe('cardctl doctor', () => {
  it('all green for a full key: exit 0, every check ok, the mode and the six scopes named', async () => {
    const { code, report } = await doctor(envFor(mock.keys.test.keyId, mock.keys.test.secret, 'test'));
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(status(report)).toEqual({
      credentials: 'ok',
      network: 'ok',
      journal: 'ok',
      reach: 'ok',
      clock: 'ok',
      key: 'ok',
      mode: 'ok',
      scopes: 'ok',
    });
    expect(check(report, 'mode').detail).toContain('a test key');
    expect(check(report, 'scopes').detail).toContain('all six');
    const human = await inProcessRunner(sb)(['doctor'], {
      env: envFor(mock.keys.test.keyId, mock.keys.test.secret, 'test'),
    });
    expect(human.stdout).toMatch(/^✓ scopes\s+all six/m);
    expect(human.stdout).not.toContain(mock.keys.test.secret);
  });

  it('changes nothing, even with a live key: the mock holds the same customers, cards, addresses and idempotency keys', async () => {
    const { clock: _a, events: _b, ...before } = (await ctl(mock, 'GET', '/state')) as Record<string, unknown>;
    const { code, report } = await doctor(envFor(mock.keys.live.keyId, mock.keys.live.secret, 'live'));
    expect(code).toBe(0);
    expect(check(report, 'mode').detail).toContain('a live key');
    const { clock: _c, events: _d, ...after } = (await ctl(mock, 'GET', '/state')) as Record<string, unknown>;
    expect(after).toEqual(before);
  });

  it("credentials whose mode is not the key's fail the mode check (exit 2) and say how to fix it", async () => {
    const { code, report } = await doctor(envFor(mock.keys.live.keyId, mock.keys.live.secret, 'test'));
    expect(code).toBe(2);
    expect(check(report, 'mode')).toMatchObject({ status: 'fail' });
    expect(check(report, 'mode').detail).toContain('the environment says test but the key is a live key');
    expect(check(report, 'mode').hint).toContain('set CARDCTL_MODE=live');
  });

  it('a key with some scopes: a warning naming the missing ones, exit 0', async () => {
    const key = (await ctl(mock, 'POST', '/keys', { mode: 'test', scopes: ['cards.read', 'deposits.write'] })) as {
      key_id: string;
      secret: string;
    };
    const { code, report } = await doctor(envFor(key.key_id, key.secret, 'test'));
    expect(code).toBe(0);
    expect(check(report, 'scopes')).toMatchObject({ status: 'warn' });
    expect(check(report, 'scopes').detail).toBe(
      'held: cards.read deposits.write; missing: customers.read customers.write cards.write deposits.read',
    );
    expect(check(report, 'mode').status).toBe('ok'); // told by the deposits.write probe
  });

  it('a wrong secret fails the key check (exit 3) and skips what depends on it', async () => {
    const { code, report } = await doctor(envFor(mock.keys.test.keyId, Buffer.alloc(32, 7).toString('base64'), 'test'));
    expect(code).toBe(3);
    expect(check(report, 'key').detail).toContain('invalid_signature');
    expect(status(report)).toMatchObject({ reach: 'ok', clock: 'ok', key: 'fail', mode: 'skipped', scopes: 'skipped' });
  });

  it('a revoked key fails the key check with invalid_api_key', async () => {
    const key = (await ctl(mock, 'POST', '/keys', { mode: 'test' })) as { key_id: string; secret: string };
    await ctl(mock, 'POST', `/keys/${key.key_id}/revoke`);
    const { code, report } = await doctor(envFor(key.key_id, key.secret, 'test'));
    expect(code).toBe(3);
    expect(check(report, 'key').detail).toContain('invalid_api_key');
  });

  it('a local clock 400 s ahead fails the clock check (exit 3) and says by how much', async () => {
    const preload = join(sb.dir, 'clock-ahead.mjs');
    writeFileSync(preload, 'const real = Date.now; Date.now = () => real() + 400_000;\n');
    const { code, report } = await doctor(
      {
        ...envFor(mock.keys.test.keyId, mock.keys.test.secret, 'test'),
        NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`,
      },
      'child',
    );
    expect(code).toBe(3);
    expect(check(report, 'clock').status).toBe('fail');
    expect(check(report, 'clock').detail).toMatch(/local clock is (399|400|401) s ahead of the server/);
  });

  it('an unreachable base URL fails reach (exit 8); a missing profile fails credentials (exit 2)', async () => {
    const unreachable = await doctor(
      envFor(mock.keys.test.keyId, mock.keys.test.secret, 'test', 'http://127.0.0.1:9/api/v1'),
    );
    expect(unreachable.code).toBe(8);
    expect(status(unreachable.report)).toMatchObject({
      credentials: 'ok',
      reach: 'fail',
      clock: 'skipped',
      key: 'skipped',
    });
    const r = await inProcessRunner(sb)(['doctor', '-p', 'nope', '--json']);
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as Report;
    expect(check(report, 'credentials').detail).toContain('no profile named nope');
  });

  it('a server that accepts and never answers fails reach once (exit 8), without waiting for the other probes', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => void sockets.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const env = {
        ...envFor(mock.keys.test.keyId, mock.keys.test.secret, 'test', `http://127.0.0.1:${port}/api/v1`),
        CARDCTL_TIMEOUT_MS: '300',
      };
      const { code, report } = await doctor(env);
      expect(code).toBe(8);
      expect(check(report, 'reach').detail).toContain('in time');
      expect(status(report)).toMatchObject({ reach: 'fail', clock: 'skipped', key: 'skipped', scopes: 'skipped' });
      expect(sockets).toHaveLength(1); // one probe, not six
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => silent.close(r));
    }
  });

  it('warns about money operations whose outcome is unknown in the journal', async () => {
    const env = envFor(mock.keys.test.keyId, mock.keys.test.secret, 'test');
    const customer = await approvedCustomer(mock);
    await ctl(mock, 'POST', '/faults', { operation: 'issue', kind: 'async_202', count: 1 });
    const issued = await sb.run(['cards', 'issue', '--customer', customer.id, '--amount', '100'], { env });
    expect(issued.code).toBe(7);
    const { code, report } = await doctor(env);
    expect(code).toBe(0);
    expect(check(report, 'journal')).toMatchObject({ status: 'warn' });
    expect(check(report, 'journal').detail).toContain('1 money operation with an unknown outcome');
    expect(check(report, 'journal').hint).toContain('cardctl ops replay');
    // the journal's size, operations and unresolved ones, from file sizes and markers
    expect(check(report, 'journal').detail).toMatch(
      /\/journal\.db \(local SQLite journal, \d+ operations?, [1-9]\d* unresolved, [\d.]+ (B|KiB|MiB)\)/,
    );
  });

  it('an unknown outcome sent to a mock that is gone: doctor counts it as information only; `ops resolve` clears it, appending', async () => {
    const own = makeSandbox();
    const gone = (await startMock({ port: 0, seed: 22, providerLatencyMs: 0 })) as unknown as MockHandle;
    try {
      const goneEnv = envFor(gone.keys.test.keyId, gone.keys.test.secret, 'test', gone.baseUrl);
      const customer = await approvedCustomer(gone);
      await ctl(gone, 'POST', '/faults', { operation: 'issue', kind: 'async_202', count: 1 });
      expect(
        (
          await own.run(
            ['cards', 'issue', '--customer', customer.id, '--amount', '100', '--idempotency-key', 'gone-1'],
            { env: goneEnv },
          )
        ).code,
      ).toBe(7);
      await gone.close();
      const replay = await own.run(['ops', 'replay', 'gone-1'], { env: goneEnv });
      expect(replay.code).toBe(7); // the mock is gone: it cannot be replayed, and the outcome stays unknown

      // doctor with the credentials in use (another mock): the gone one's entry is not theirs
      const env = envFor(mock.keys.test.keyId, mock.keys.test.secret, 'test');
      const before = await own.run(['doctor', '--json'], { env });
      expect(check(JSON.parse(before.stdout), 'journal')).toMatchObject({ status: 'ok' });
      expect(check(JSON.parse(before.stdout), 'journal').detail).toContain(
        '1 money operation with an unknown outcome sent with other credentials',
      );
      // with the gone mock's credentials it is theirs: a warning that names ops resolve
      const theirs = JSON.parse((await own.run(['doctor', '--json'], { env: goneEnv })).stdout) as Report;
      expect(check(theirs, 'journal')).toMatchObject({ status: 'warn' });
      expect(check(theirs, 'journal').hint).toContain('cardctl ops resolve');

      const id = (
        JSON.parse((await own.run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout).data as Array<{
          id: string;
        }>
      )[0]!.id;
      const resolved = await own.run([
        'ops',
        'resolve',
        id,
        '--outcome',
        'failed',
        '--note',
        'no such card in the portal',
      ]);
      expect(resolved.code, resolved.stderr).toBe(0);
      expect(resolved.stderr).toContain(`Recorded: ${id} failed`);
      expect(JSON.parse((await own.run(['ops', 'list', '--unresolved', '--all', '--json'])).stdout).data).toEqual([]);
      const shown = JSON.parse((await own.run(['ops', 'show', id, '--json'])).stdout);
      expect(shown.resolution).toMatchObject({ outcome: 'failed', note: 'no such card in the portal' });
      expect(shown.outcomes.map((o: { type: string }) => o.type)).toEqual(['outcome', 'outcome', 'resolution']); // appended: the 202 and the failed replay stay
      expect((await own.run(['ops', 'show', id])).stdout).toContain('no such card in the portal');
      const after = JSON.parse((await own.run(['doctor', '--json'], { env: goneEnv })).stdout) as Report;
      expect(check(after, 'journal')).toMatchObject({ status: 'ok' });

      // bad input is refused: an outcome that is not one of the two, an id the journal does not hold
      expect((await own.run(['ops', 'resolve', id, '--outcome', 'maybe'])).code).toBe(2);
      expect((await own.run(['ops', 'resolve', 'nope', '--outcome', 'failed'])).code).toBe(4);
    } finally {
      await gone.close().catch(() => undefined);
      own.cleanup();
    }
  });
});
