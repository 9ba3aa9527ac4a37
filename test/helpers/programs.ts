// Tests that drive a program besides node (bash, zsh, fish for the completion tests, jq for the
// docs' examples). On a machine without it (`npm ci && npm test` on a fresh clone that has only
// node and npm), such a test is skipped at run time, `it.runIf(needs('zsh'))`, and the skip is
// recorded in CARDCTL_TEST_SKIPS (a file scripts/test.mjs gives every worker), which the run
// prints at its end, one line per program. CI sets CARDCTL_REQUIRE_PROGRAMS=1 (.ci/run installs
// them): there a missing program is not skipped, the test runs and fails saying how to install it.
import { appendFileSync, existsSync } from 'node:fs';
import { delimiter, join, relative } from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './cli.js';
import { findPostgres } from './postgres-cluster.js';

const found = new Map<string, boolean>();

/** Whether `program` is an executable file in a folder of PATH. */
export function has(program: string, path = process.env.PATH ?? ''): boolean {
  const key = `${program}\u0000${path}`;
  if (!found.has(key))
    found.set(
      key,
      path.split(delimiter).some((dir) => dir !== '' && existsSync(join(dir, program))),
    );
  return found.get(key)!;
}

/** CI's setting: every test runs, a missing program fails its tests (.ci/run). */
export const programsRequired = (): boolean => process.env.CARDCTL_REQUIRE_PROGRAMS === '1';

/**
 * For `it.runIf(needs('zsh'))`: true when the test can run (the program is there, or CI requires
 * it); false records one skipped test of this file for the end-of-run summary. `found` is how a
 * helper that looks elsewhere than PATH answers (test/helpers/postgres.ts: /usr/lib/postgresql).
 */
export function needs(program: string, found = has(program)): boolean {
  if (found || programsRequired()) return true;
  const report = process.env.CARDCTL_TEST_SKIPS;
  const file = expect.getState().testPath;
  if (report) appendFileSync(report, `${program}\t${file ? relative(ROOT, file) : '?'}\n`);
  return false;
}

/**
 * For `describe.runIf(needsPostgres())`: PostgreSQL's binaries are looked for in
 * /usr/lib/postgresql/N/bin before PATH (test/helpers/postgres-cluster.ts); its skips are named
 * `postgres` at the end of `npm test`, and under CARDCTL_REQUIRE_PROGRAMS=1 startPostgres fails
 * saying how to install it.
 */
export const needsPostgres = (): boolean => needs('postgres', findPostgres() !== undefined);
