import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end tests spawn the built CLI and real servers; give them room on shared machines.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two workers on the CI's 2 cores: most of a test's time is spent waiting on the CLI and mock
    // processes it starts, so one worker left a core idle (a run under load: 49 min with one, 19 with two).
    maxWorkers: 2,
    // kills every child process a test started, after the test (or its file), also on failure
    setupFiles: ['test/setup/children.ts'],
    // the CLI's code cache (bin/run.js) in a temporary folder, never the user's ~/.cache/cardctl
    env: { CARDCTL_CACHE_DIR: join(tmpdir(), 'cardctl-test-code-cache') },
  },
});
