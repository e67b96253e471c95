import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real processes; a generous per-test bound, never a real sleep.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most integration time is spent waiting on CLI subprocesses; more files in flight overlap it.
    maxWorkers: 4,
  },
});
