import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Most tests wait on a loopback server, a backoff or a child process, not on the CPU: three files at a time
    // fill two cores (vitest's default here would be one file at a time).
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 30_000,
    // After each test file: what it left in the system temp folder is removed.
    setupFiles: ['test/helpers/cleanUp.ts'],
  },
});
