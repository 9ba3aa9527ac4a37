// Where a case report goes: stdout (readable, or one JSON value with --json), a JUnit XML file
// with --junit, and GitHub Actions annotations on stderr when GITHUB_ACTIONS=true. The runner
// takes workflow commands from both streams of a step (actions/runner ScriptHandler.cs and
// OutputManager.cs; docs/ci.md, "Why stderr is enough"), and stderr keeps stdout one JSON value.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { usageError } from '../errors.js';
import type { CaseSuite } from '../output/case-report.js';

export interface CaseOutputOptions {
  json: boolean;
  /** --junit FILE */
  junit?: string;
  env: NodeJS.ProcessEnv;
  /** the command's streams (src/io.ts) */
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
  /** the readable form, when it is more than the case list */
  text?: (chalk: import('chalk').ChalkInstance) => string;
}

/** Refuses a --junit path that cannot be written, before anything is sent. */
export function checkJunitPath(file: string | undefined): void {
  if (file === undefined) return;
  if (file === '' || file.endsWith('/'))
    throw usageError(`--junit needs a file name, not "${file}".`, 'For example --junit reports/cardctl.xml.');
  try {
    mkdirSync(dirname(resolve(file)), { recursive: true });
  } catch (err) {
    throw usageError(
      `--junit ${file}: cannot create its folder (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}).`,
      'Pick a writable path.',
    );
  }
}

export async function emitCaseReport(report: CaseSuite, opts: CaseOutputOptions): Promise<void> {
  const { stdout, stderr } = opts;
  const { formatCaseList, formatJunit, githubAnnotations } = await import('../output/case-report.js');
  if (opts.junit !== undefined) {
    try {
      mkdirSync(dirname(resolve(opts.junit)), { recursive: true });
      writeFileSync(opts.junit, formatJunit(report));
    } catch (err) {
      stderr.write(
        `Error: cannot write the JUnit report ${opts.junit}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
      );
    }
  }
  if (opts.env.GITHUB_ACTIONS === 'true') stderr.write(githubAnnotations(report));
  if (opts.json) {
    stdout.write(JSON.stringify(report, null, 2) + '\n');
  } else {
    const { chalkFor } = await import('../output/color.js');
    const chalk = await chalkFor(stdout);
    stdout.write(opts.text ? opts.text(chalk) : formatCaseList(report, chalk));
  }
}
