import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real servers and some real processes; a generous per-test bound, never a real sleep.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Forks: tests run the built program in-process, which changes the working directory (not allowed in threads).
    pool: 'forks',
    maxWorkers: 4,
    // The built program (dist/) is loaded by Node itself, as bin/migrate.js loads it, not transformed again.
    server: { deps: { external: [/\/dist\//] } },
  },
});
