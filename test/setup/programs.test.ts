// `npm test` on a machine that has only Node and npm (README, Quick start): a test that needs a
// program the machine lacks is skipped and named at the end, one line per program, and the run
// passes; in CI (.ci/run sets CARDCTL_REQUIRE_PROGRAMS=1) the same missing program fails the run.
// scripts/test.mjs runs the value-completion tests and the PostgreSQL harness's with this machine's
// PATH less zsh, fish, jq and PostgreSQL's programs, and no /usr/lib/postgresql (CARDCTL_TEST_PG_ROOT).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const bin = mkdtempSync(join(tmpdir(), 'cardctl-bare-path-'));
symlinkSync(process.execPath, join(bin, 'node'));
// this machine's PATH without the optional programs: every other program, linked into one folder
for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    continue;
  }
  for (const name of names)
    if (!['zsh', 'fish', 'jq', 'postgres', 'initdb', 'psql', 'pg_ctl'].includes(name) && !existsSync(join(bin, name)))
      symlinkSync(join(dir, name), join(bin, name));
}
afterAll(() => rmSync(bin, { recursive: true, force: true }));

function npmTest(extra: Record<string, string>): Promise<{ code: number; out: string }> {
  // CARDCTL_TEST_PG_ROOT: where test/helpers/postgres-cluster.ts looks instead of /usr/lib/postgresql (no version there)
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: bin, CARDCTL_TEST_PG_ROOT: bin, NODE_LINES: 'none', ...extra };
  delete env.CARDCTL_TEST_SKIPS;
  if (!('CARDCTL_REQUIRE_PROGRAMS' in extra)) delete env.CARDCTL_REQUIRE_PROGRAMS;
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [join(ROOT, 'scripts', 'test.mjs'), 'test/completions/dynamic.test.ts', 'test/setup/postgres-harness.test.ts'],
      {
        cwd: ROOT,
        env,
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

describe('tests that need a program this machine lacks', () => {
  it('are skipped, named at the end one line per program, and the run passes', async () => {
    const r = await npmTest({});
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(
      'skipped: 3 tests need zsh, which is not installed (test/completions/dynamic.test.ts); install zsh to run them',
    );
    expect(r.out).toContain(
      'skipped: 3 tests need fish, which is not installed (test/completions/dynamic.test.ts); install fish to run them',
    );
    expect(r.out).toMatch(
      /^skipped: \d+ tests? need postgres, which is not installed \(test\/setup\/postgres-harness\.test\.ts\); install postgres to run them/m,
    );
    expect(r.out.match(/^skipped: .* need postgres/gm)).toHaveLength(1);
    expect(r.out).not.toMatch(/need bash/);
  });

  it('fail the run in CI (CARDCTL_REQUIRE_PROGRAMS=1), saying how to install them', async () => {
    const r = await npmTest({ CARDCTL_REQUIRE_PROGRAMS: '1' });
    expect(r.code).toBe(1);
    expect(r.out).toContain('zsh is not installed, and the completion tests run the real shell: install it');
    expect(r.out).toContain(
      'PostgreSQL is not installed (no initdb, postgres and psql in /usr/lib/postgresql/N/bin or on PATH), and the shared journal tests run a real server: install it (Debian/Ubuntu: apt-get install postgresql; .ci/run does).',
    );
    expect(r.out).not.toMatch(/^skipped:/m);
  });
});
