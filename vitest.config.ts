import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end tests spawn the built CLI and real servers; give them room on shared machines.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // kills every child process a test started, after the test (or its file), also on failure
    setupFiles: ['test/setup/children.ts'],
  },
});
