// A lock file names its holder by pid and process start (src/client/lock-owner.ts), not by pid
// alone: after a crash, a reboot or a container restart the pid a lock names can be another,
// unrelated process, which made a takeover wait forever, compaction never run and a key refused
// with key_in_use. Here the pid is a real live process (`sleep 300`, stopped in teardown) and the
// built CLI runs against the real mock on port 0 with real files.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { lockPath } from '../../src/client/key-lock.js';
import { processStart, STALE_AFTER_MS, stillHeld } from '../../src/client/lock-owner.js';
import { activeCard, ctl, wallet } from '../helpers/api.js';
import { BIN } from '../helpers/cli.js';
import { json, journalSandboxes, state } from '../helpers/journal-sandbox.js';
import { legacyJournalText, rewriteJournal } from '../helpers/journal.js';

const t = journalSandboxes({ seed: 97, cliTimeoutMs: 60_000 });
const sleepers: ChildProcess[] = [];
afterAll(() => {
  for (const p of sleepers) if (p.exitCode === null) p.kill('SIGKILL');
});

/** A live process that is not cardctl: a pid a stale lock could name after a reboot. */
async function liveStranger(): Promise<ChildProcess & { pid: number }> {
  const p = t.track(spawn('sleep', ['300']));
  sleepers.push(p);
  await new Promise((r) => p.once('spawn', r));
  return p as ChildProcess & { pid: number };
}

/** The process's start as the lock keeps it, read here from /proc independently of the code under test: boot id and field 22 of /proc/PID/stat. */
function startOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const field22 = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  return `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}:${field22}`;
}

const HOUR = 3_600_000;
const recharges = async (card: string): Promise<number> =>
  (await ctl<unknown[]>(t.mock, 'GET', `/_mock/requests?path=/api/v1/cards/${card}/recharge&limit=1000`)).length;

const keyLock = (s: { stateDir: string }, key: string) =>
  lockPath(join(s.stateDir, 'cardctl', 'operations.ndjson'), { keyId: t.env.CARDCTL_API_KEY!, idempotencyKey: key });

describe('the per-key lock', () => {
  const writeLock = (file: string, body: object) => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify(body) + '\n');
  };

  it('naming a live process that is not its holder (another start): stale, taken; the recharge is sent once and the lock let go', async () => {
    const s = t.sandbox();
    const card = await activeCard(t.mock, { amount: 100 });
    const stranger = await liveStranger();
    const file = keyLock(s, 'reused-pid-1');
    writeLock(file, {
      pid: stranger.pid,
      process_start: `${startOf(stranger.pid).split(':')[0]}:1`,
      started: '2026-01-01T00:00:00.000Z',
      idempotency_key: 'reused-pid-1',
    });
    const before = (await wallet(t.mock)).balance_minor;
    const r = await s.cli([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '4',
      '--idempotency-key',
      'reused-pid-1',
      '--json',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await wallet(t.mock)).balance_minor).toBe(before - 4);
    expect(existsSync(file)).toBe(false);
    expect(stranger.exitCode, 'the stranger was left alone').toBe(null);
  });

  it('naming a live process with its very start: respected, key_in_use (exit 9), nothing sent', async () => {
    const s = t.sandbox();
    const card = await activeCard(t.mock, { amount: 100 });
    const holder = await liveStranger();
    const file = keyLock(s, 'held-1');
    writeLock(file, {
      pid: holder.pid,
      process_start: startOf(holder.pid),
      started: '2026-01-01T00:00:00.000Z',
      idempotency_key: 'held-1',
    });
    const sent = await recharges(card.id);
    const r = await s.cli(['cards', 'recharge', card.id, '--amount', '4', '--idempotency-key', 'held-1', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(9);
    expect(json(r).error).toMatchObject({ code: 'key_in_use', idempotency_key: 'held-1' });
    expect(json(r).error.message).toContain(`pid ${holder.pid}`);
    expect(await recharges(card.id)).toBe(sent);
    expect(existsSync(file)).toBe(true);
  });

  it("an older cardctl's lock (a pid, no start): held while that process was already running when the lock was written, stale when it started after", async () => {
    const s = t.sandbox();
    const card = await activeCard(t.mock, { amount: 100 });
    const p = await liveStranger();
    const file = keyLock(s, 'old-format-1');
    writeLock(file, { pid: p.pid, started: new Date().toISOString(), idempotency_key: 'old-format-1' });
    const recharge = ['cards', 'recharge', card.id, '--amount', '3', '--idempotency-key', 'old-format-1', '--json'];
    const refused = await s.cli(recharge);
    expect(refused.code, refused.stdout + refused.stderr).toBe(9);
    // the same lock written an hour before that process started (a reboot since): not its holder
    const hourAgo = new Date(Date.now() - HOUR);
    utimesSync(file, hourAgo, hourAgo);
    const before = (await wallet(t.mock)).balance_minor;
    const sent = await s.cli(recharge);
    expect(sent.code, sent.stdout + sent.stderr).toBe(0);
    expect((await wallet(t.mock)).balance_minor).toBe(before - 3);
  });
});

describe('a holder that is a zombie (ended, never reaped by its parent)', () => {
  /** A real zombie: `sh` starts a child, then becomes `sleep 300`, which never waits for it. */
  async function zombie(): Promise<number> {
    // the child ends after the exec (a child that ended before it could be reaped by sh itself)
    const parent = t.track(spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 300']));
    sleepers.push(parent);
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      parent.once('error', reject);
    });
    for (let i = 0; i < 500; i++) {
      const state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0];
      if (state === 'Z') return pid;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`process ${pid} did not become a zombie`);
  }

  it('counts as released: its key lock is taken, the recharge is sent once (it was exit 9 naming the dead pid)', async () => {
    const s = t.sandbox();
    const card = await activeCard(t.mock, { amount: 100 });
    const pid = await zombie();
    const owner = { pid, process_start: startOf(pid) };
    expect(stillHeld(owner, Date.now())).toBe(false);
    const file = keyLock(s, 'zombie-1');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(
      file,
      `${JSON.stringify({ ...owner, started: new Date().toISOString(), idempotency_key: 'zombie-1' })}\n`,
    );
    const before = (await wallet(t.mock)).balance_minor;
    const r = await s.cli(['cards', 'recharge', card.id, '--amount', '6', '--idempotency-key', 'zombie-1', '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((await wallet(t.mock)).balance_minor).toBe(before - 6);
    expect(existsSync(file)).toBe(false);
  });
});

describe('a holder keeps its lock fresh (what tells a stale lock where a start cannot be read)', () => {
  it('a recharge whose answer takes 13 s touches its key lock while it waits', async () => {
    const s = t.sandbox();
    const card = await activeCard(t.mock, { amount: 100 });
    await ctl(t.mock, 'POST', '/faults', { operation: 'recharge', kind: 'slow', ms: 13_000, count: 1 });
    const file = lockPath(join(s.stateDir, 'cardctl', 'operations.ndjson'), {
      keyId: t.env.CARDCTL_API_KEY!,
      idempotencyKey: 'slow-touch-1',
    });
    const running = s.cli([
      'cards',
      'recharge',
      card.id,
      '--amount',
      '2',
      '--idempotency-key',
      'slow-touch-1',
      '--json',
    ]);
    for (let i = 0; i < 500 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 20));
    const hourAgo = Date.now() - HOUR;
    utimesSync(file, new Date(hourAgo), new Date(hourAgo)); // as if untouched for an hour
    const touched = () => existsSync(file) && statSync(file).mtimeMs > hourAgo + HOUR / 2;
    for (let i = 0; i < 100 && !touched(); i++) await new Promise((r) => setTimeout(r, 200));
    expect(touched(), 'touched again while the request was on its way').toBe(true);
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(file)).toBe(false);
  });
});

describe('reading a process start, and where it cannot be read', () => {
  it("field 22 of /proc/PID/stat after a command name holding ') ' and the boot's id and time", () => {
    const s = t.sandbox();
    const proc = join(s.dir, 'proc');
    mkdirSync(join(proc, '4321'), { recursive: true });
    mkdirSync(join(proc, 'sys', 'kernel', 'random'), { recursive: true });
    writeFileSync(join(proc, 'stat'), 'cpu  1 2 3\nbtime 1764000000\nprocesses 9\n');
    writeFileSync(join(proc, 'sys', 'kernel', 'random', 'boot_id'), 'b00t-1d\n');
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3)); // fields 3.. hold their own number
    fields[22 - 3] = '424242';
    writeFileSync(join(proc, '4321', 'stat'), `4321 (a) b (c) ${fields.join(' ')}\n`);
    expect(processStart(4321, proc)).toEqual({ token: 'b00t-1d:424242', atMs: 1764000000 * 1000 + 4_242_420 });
    expect(processStart(4322, proc)).toBeUndefined();
  });

  it('without /proc: a live pid holds its lock while the lock was touched within 10 minutes; a gone pid never does', async () => {
    const p = await liveStranger();
    const now = Date.now();
    const noProc = { proc: join(t.sandbox().dir, 'no-proc'), nowMs: now };
    expect(STALE_AFTER_MS).toBe(600_000);
    expect(stillHeld({ pid: p.pid, process_start: startOf(p.pid) }, now - 60_000, noProc)).toBe(true);
    expect(stillHeld({ pid: p.pid }, now - STALE_AFTER_MS - 1, noProc)).toBe(false);
    p.kill('SIGKILL');
    await new Promise((r) => p.once('exit', r));
    expect(stillHeld({ pid: p.pid }, now, noProc)).toBe(false);
  });
});
