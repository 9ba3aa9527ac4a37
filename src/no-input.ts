// Issue 21 item 4: a CI job never waits on a prompt. With `--no-input`, or CI=true (set by GitHub
// Actions, GitLab and most CI services), cardctl behaves as if there were no terminal: where it
// would ask, it fails at once saying which flag to pass. BaseCommand calls `forbidPrompts()` when
// the command line has `--no-input`.
let noInputFlag = false;

/** `--no-input` was given: no prompt for the rest of this process. */
export function forbidPrompts(): void {
  noInputFlag = true;
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
