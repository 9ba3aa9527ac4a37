// The environment the build gives the tools it runs. The oclif dev tool checks the registry for a
// newer version of itself and prints "oclif update available" on every build: that says nothing
// about cardctl and hides real warnings, so the check is off (its own documented switch).
export const toolEnv = (base = process.env) => ({ ...base, OCLIF_SKIP_NEW_VERSION_CHECK: 'true' });
