// Where a case report goes: the command's result (readable, or one JSON value with --json), a JUnit XML file
// with --junit, and under GitHub Actions (GITHUB_ACTIONS=true) `::error` annotations on stderr and
// a summary table appended to $GITHUB_STEP_SUMMARY. The runner
// takes workflow commands from both streams of a step (actions/runner ScriptHandler.cs and
// OutputManager.cs; docs/ci.md, "Why stderr is enough"), and stderr keeps stdout one JSON value.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { usageError } from '../errors.js';
import type { CaseSuite } from '../output/case-report.js';
import type { Result } from '../output/render.js';
import type { OutStream } from '../io.js';

export interface CaseOutputOptions {
  /** --junit FILE */
  junit?: string;
  env: NodeJS.ProcessEnv;
  /** where the annotations go (src/io.ts): they are written before the report is printed */
  stderr: NodeJS.WritableStream;
  /** the readable form, when it is more than the case list */
  text?: (chalk: import('chalk').ChalkInstance) => string;
  /** the exit code the report ends with */
  exitCode: number;
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

/**
 * Writes the JUnit file and the annotations, and returns the report as the command's result
 * (src/output/render.ts): one JSON value with --json, the readable form otherwise.
 */
export async function caseReport(report: CaseSuite, opts: CaseOutputOptions): Promise<Result> {
  const { stderr } = opts;
  const [{ formatCaseList, formatJunit, githubAnnotations, githubStepSummary }, { outcome, result }] =
    await Promise.all([import('../output/case-report.js'), import('../output/render.js')]);
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
  if (opts.env.GITHUB_ACTIONS === 'true') {
    stderr.write(githubAnnotations(report));
    const summary = opts.env.GITHUB_STEP_SUMMARY;
    if (summary) {
      try {
        appendFileSync(summary, githubStepSummary(report));
      } catch (err) {
        // the job goes on: the annotations and the exit code still say what failed
        stderr.write(
          `Error: cannot append the summary to GITHUB_STEP_SUMMARY: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
        );
      }
    }
  }
  const text = async (out: OutStream): Promise<string> => {
    const { chalkFor } = await import('../output/color.js');
    const chalk = await chalkFor(out);
    return opts.text ? opts.text(chalk) : formatCaseList(report, chalk);
  };
  return outcome(result(report, text), { exitCode: opts.exitCode });
}
