// The demo runner's background steps (`cardctl ... &`, then `wait $!`), on a stand-in CLI so
// they are fast: readiness, the check at `wait`, a child that dies early, secrets, and cleanup.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DemoCheckError, Runner, StepFailed, keyValues, tableRows } from '../../src/demo/runner.js';

const SECRET = 'the-secret-value-AAAAAAAAAAAAAAAAAAAAAAAA';

// argv: serve CODE  -> "ready", then exits CODE once the file "go" exists
//       early CODE  -> exits CODE at once
//       leak        -> prints the secret, then "ready", then exits 0
//       hang        -> "ready", then runs until killed
const FAKE = `
import { existsSync } from 'node:fs';
const [mode, code] = process.argv.slice(2);
if (mode === 'early') process.exit(Number(code));
if (mode === 'leak') process.stdout.write(${JSON.stringify(SECRET)} + '\\n');
process.stdout.write('ready\\n');
process.stderr.write('waiting for go\\n');
if (mode === 'leak') process.exit(0);
setInterval(() => {
  if (mode === 'serve' && existsSync('go')) {
    process.stdout.write('done\\n');
    process.exit(Number(code));
  }
}, 20);
`;

describe('demo runner, background steps', () => {
  let dir: string;
  let out: string;
  const runner = (): Runner => {
    out = '';
    return new Runner({
      node: process.execPath,
      bin: join(dir, 'fake.mjs'),
      cwd: dir,
      env: process.env,
      write: (t) => void (out += t),
      chalk: new Chalk({ level: 0 }),
      secrets: [SECRET],
      timeoutMs: 10_000,
    });
  };
  const ready = ({ stdout }: { stdout: string }): boolean => stdout.includes('ready');

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cardctl-demo-runner-'));
    writeFileSync(join(dir, 'fake.mjs'), FAKE);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('goes on once ready, then `wait` prints the rest, checks the exit code and the check', async () => {
    rmSync(join(dir, 'go'), { force: true });
    const r = runner();
    const seen: string[] = [];
    const job = await r.start({
      name: 'job',
      title: 'a job',
      argv: ['serve', '0'],
      ready,
      check: (run) => void seen.push(run.stdout),
    });
    expect(out).toContain('$ cardctl serve 0 &\nready\nwaiting for go\n');
    expect(out).toContain('✓ running in the background');
    expect(r.records[0]).toMatchObject({ name: 'job', command: 'cardctl serve 0 &', ok: true, exit_code: null });
    await r.step({
      name: 'go',
      title: 'meanwhile',
      argv: ['early', '0'],
      check: () => writeFileSync(join(dir, 'go'), ''),
    });
    const run = await r.wait(job, { name: 'job, done', title: 'collect it' });
    expect(run.code).toBe(0);
    expect(seen).toEqual(['ready\ndone\n']);
    // `wait` shows only what was not shown yet
    expect(out.slice(out.indexOf('$ wait $!'))).toMatch(/^\$ wait \$!\ndone\n✓ exit 0/);
    expect(r.records.map((x) => [x.name, x.command, x.exit_code, x.ok])).toEqual([
      ['job', 'cardctl serve 0 &', 0, true],
      ['go', 'cardctl early 0', 0, true],
      ['job, done', 'wait $!', 0, true],
    ]);
  });

  it('fails `wait` on an unexpected exit code, naming the wait step', async () => {
    rmSync(join(dir, 'go'), { force: true });
    const r = runner();
    const job = await r.start({ name: 'job', title: 'a job', argv: ['serve', '3'], ready });
    writeFileSync(join(dir, 'go'), '');
    await expect(r.wait(job, { name: 'job, done', title: 'collect it' })).rejects.toMatchObject({
      step: 'job, done',
      message: 'exit code 3, expected 0',
    });
    expect(r.records.at(-1)).toMatchObject({ ok: false, exit_code: 3 });
  });

  it('fails the start when the command ends before it is ready', async () => {
    const r = runner();
    const err = await r.start({ name: 'job', title: 'a job', argv: ['early', '4'], ready }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StepFailed);
    expect((err as StepFailed).message).toBe('exited with code 4 before it was ready');
    expect(r.records[0]).toMatchObject({ ok: false, exit_code: 4 });
  });

  it('cuts a secret out of background output and fails the step', async () => {
    const r = runner();
    await expect(r.start({ name: 'job', title: 'a job', argv: ['leak'], ready })).rejects.toMatchObject({
      message: 'a secret appeared in the output',
    });
    expect(out).not.toContain(SECRET);
    expect(out).toContain('[SECRET REMOVED]');
  });

  it('stopAll ends what still runs (after a failed step)', async () => {
    const r = runner();
    const job = await r.start({ name: 'job', title: 'a job', argv: ['hang'], ready });
    r.stopAll();
    const started = Date.now();
    // killed at once (no exit code: counted as 1), long before the 10 s limit
    await expect(r.wait(job, { name: 'job, done', title: 'collect it' })).rejects.toMatchObject({
      message: 'exit code 1, expected 0',
    });
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('demo runner, reading outputs', () => {
  it('keyValues reads a `key  value` block', () => {
    expect(keyValues('id             01ABC\nstatus         active\nbalance_minor  7500\nmemo           -\n')).toEqual({
      id: '01ABC',
      status: 'active',
      balance_minor: '7500',
      memo: '-',
    });
    expect(() => keyValues('Error: nothing\n')).toThrow(DemoCheckError);
  });

  it('tableRows reads a table by column name', () => {
    const table = 'ID    TYPE           STATUS\n01A   authorization  pending\n01B   capture        completed\n';
    expect(tableRows(table)).toEqual([
      { ID: '01A', TYPE: 'authorization', STATUS: 'pending' },
      { ID: '01B', TYPE: 'capture', STATUS: 'completed' },
    ]);
    expect(tableRows('')).toEqual([]);
  });
});
