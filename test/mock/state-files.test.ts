// The files behind --state: a new folder is private whatever the umask, temporary files never
// follow a planted symlink, and a file that is not a whole mock state is refused with one clear
// message (naming it, saying what to do) and left untouched.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startMock } from '../../src/mock/index.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { approvedCustomer, expectOk, issueCard } from '../helpers/api.js';

const dir = mkdtempSync(join(tmpdir(), 'cardctl-state-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `cardctl mock start --state FILE` run until its banner (then stopped) or its refusal. */
let runs = 0;
function startCli(stateFile: string, umask = '022'): { status: number | null; stdout: string; stderr: string } {
  const out = join(dir, `run-${++runs}.out`);
  const errFile = join(dir, `run-${runs}.err`);
  // --port 0 and a SIGTERM as soon as the banner is out: the shell waits for it
  const script =
    `umask ${umask}; "${process.execPath}" "${BIN}" mock start --port 0 --json --state "${stateFile}" > "${out}" 2> "${errFile}" & pid=$!; ` +
    `for i in $(seq 1 200); do if [ -s "${out}" ] || ! kill -0 $pid 2>/dev/null; then break; fi; sleep 0.1; done; kill $pid 2>/dev/null; wait $pid`;
  const r = spawnSync('sh', ['-c', script], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', CARDCTL_CONFIG_DIR: join(dir, 'config') },
    timeout: 40_000,
  });
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  return { status: r.status, stdout: read(out), stderr: read(errFile) };
}

describe('--state files', () => {
  it('a temporary file never follows a symlink planted where it would be created', async () => {
    const folder = join(dir, 'planted');
    mkdirSync(join(folder, 'state.json.snapshots'), { recursive: true, mode: 0o700 });
    const stateFile = join(folder, 'state.json');
    const snapshotFile = join(folder, 'state.json.snapshots', 'after-issue.json');
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'do not touch');
    // a compaction past 1 KiB of journal: new bases are written through temporary files too
    const mock = await startMock({ port: 0, stateFile, providerLatencyMs: 0, compactAfterBytes: 1024 });
    try {
      // the next temporary names of this process (pid.counter), for the base and a snapshot: symlinks to the victim
      for (let n = 1; n <= 60; n++) {
        symlinkSync(victim, `${stateFile}.${process.pid}.${n}.tmp`);
        symlinkSync(victim, `${snapshotFile}.${process.pid}.${n}.tmp`);
      }
      const customer = await approvedCustomer(mock);
      for (let i = 0; i < 6; i++) expectOk(await issueCard(mock, { customerId: customer.id, amount: 500 }), 201);
      await mock.saveSnapshot('after-issue');
    } finally {
      await mock.close();
    }
    expect(readFileSync(victim, 'utf8')).toBe('do not touch');
    expect(lstatSync(stateFile).isFile()).toBe(true);
    expect(lstatSync(snapshotFile).isFile()).toBe(true);
    // format 2: a header line, then the checksummed state record (docs/mock-state.md)
    const [header, record] = readFileSync(stateFile, 'utf8').split('\n');
    expect(JSON.parse(header!)).toEqual({ format: 'cardctl-mock-state', version: 2 });
    expect(JSON.parse(record!.slice(9)).version).toBe(1);
    // and the state saved through them loads
    const again = await startMock({ port: 0, stateFile });
    try {
      expect(Object.keys(again.listSnapshots())).toHaveLength(1);
    } finally {
      await again.close();
    }
  });

  it('a new folder is created 0700 and the file 0600, also under umask 000', () => {
    const stateFile = join(dir, 'fresh', 'deeper', 'state.json');
    const r = startCli(stateFile, '000');
    expect(r.stdout, r.stderr).toMatch(/"base_url"/);
    expect(statSync(join(dir, 'fresh')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'fresh', 'deeper')).mode & 0o777).toBe(0o700);
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
  });

  it('a truncated file and a valid JSON file of the wrong shape are refused, each naming the file, and stay as they were', () => {
    const good = join(dir, 'good', 'state.json');
    expect(startCli(good).stdout).toMatch(/"base_url"/);
    const whole = readFileSync(good, 'utf8');
    const cases = {
      truncated: whole.slice(0, Math.floor(whole.length / 2)),
      'wrong shape': JSON.stringify({ version: 1, seed: 3, merchants: {}, keys: {}, wallets: {} }),
      'another JSON': JSON.stringify([{ id: 1 }]),
    };
    for (const [name, content] of Object.entries(cases)) {
      const file = join(dir, name.replace(' ', '-'), 'state.json');
      mkdirSync(join(file, '..'), { recursive: true });
      writeFileSync(file, content);
      const r = startCli(file);
      // --json: the refusal is a JSON error on stdout
      const text = r.stdout + r.stderr;
      expect(r.status, `${name}: ${text}`).not.toBe(0);
      expect(text).not.toMatch(/"base_url"/);
      expect(text).toContain(file);
      expect(text).toMatch(/move it away or delete it to start afresh|Nothing was changed: the files are as they were/);
      expect(text).not.toMatch(/\n\s+at /); // no stack trace
      expect(readFileSync(file, 'utf8'), `${name} was overwritten`).toBe(content);
    }
  });
});
