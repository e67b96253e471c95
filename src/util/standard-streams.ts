/**
 * The standard streams a run of the CLI reads and writes. A real run has the process's own; a
 * test runs the program in-process with its own streams for each run (see src/cli/run-program.ts),
 * so runs that overlap in one process each keep their output. Kept here, not in src/cli, because
 * standard input is also a source (`-`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface StandardStreams {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

const injected = new AsyncLocalStorage<StandardStreams>();

/** The streams of the run in progress: the process's own unless the run was given others. */
export function standardStreams(): StandardStreams {
  return injected.getStore() ?? { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
}

/** Runs `work` (and everything it starts) with `streams` as its standard streams. */
export function withStandardStreams<T>(streams: StandardStreams, work: () => T): T {
  return injected.run(streams, work);
}
