// Issue 21 item 4: a CI job never waits on a prompt. With CI=true (set by GitHub Actions, GitLab
// and most CI services) cardctl behaves as if there were no terminal: where it would ask, it
// fails at once saying which flag to pass.
export function promptsForbidden(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = (env.CI ?? '').toLowerCase();
  return ci === 'true' || ci === '1';
}
