// Issue 21 item 4: a CI job never waits on a prompt. With `--no-input`, or CI=true (set by GitHub
// Actions, GitLab and most CI services), cardctl behaves as if there were no terminal: where it
// would ask, it fails at once saying which flag to pass. BaseCommand calls `forbidPrompts()` with
// each command's `--no-input`.
let noInputFlag = false;

/**
 * Whether the command about to run has `--no-input` (BaseCommand, once per command): with it, no
 * prompt for the rest of the command. Set per command, not only ever turned on: a process runs one
 * command, and a program that runs several in one process (test/helpers/in-process.ts) gives each
 * its own.
 */
export function forbidPrompts(forbidden = true): void {
  noInputFlag = forbidden;
}

export function promptsForbidden(env: NodeJS.ProcessEnv = process.env): boolean {
  if (noInputFlag) return true;
  const ci = (env.CI ?? '').toLowerCase();
  return ci === 'true' || ci === '1';
}

/** Why nobody is asked, for a refusal: "--no-input is given", "CI is set", else "there is no terminal to ask on". */
export function whyNoPrompt(env: NodeJS.ProcessEnv = process.env): string {
  if (noInputFlag) return '--no-input is given';
  return promptsForbidden(env) ? 'CI is set' : 'there is no terminal to ask on';
}
