import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A bound for a test that hangs, not a speed check: on a busy machine (two cores shared by
    // many) a test of a few seconds can take minutes, and must not fail for it. Never a real sleep.
    testTimeout: 300_000,
    hookTimeout: 300_000,
    // Forks: tests run the built program in-process, which changes the working directory (not allowed in threads).
    pool: 'forks',
    // Test files of one worker share its loaded modules: each file no longer loads the program
    // again (the unit tests took 66 s of CPU isolated, 21 s shared). Tests keep no state between
    // files: each makes its own temp dirs, stores and servers.
    isolate: false,
    setupFiles: ['test/helpers/per-file-setup.ts'],
    // A directory shared by the run's test files (the staged sample, test/helpers/staging.ts).
    globalSetup: ['test/helpers/global-setup.ts'],
    // runCli runs the program in the worker's own process, so a worker is mostly busy on the CPU.
    // Each worker loads the program and the sources once (isolate: false): two workers on two
    // cores load them once less than three and spent 6 to 12% less CPU on the same files.
    maxWorkers: 2,
    // The built program (dist/) is loaded by Node itself, as bin/migrate.js loads it, not transformed again.
    server: { deps: { external: [/\/dist\//] } },
  },
});
