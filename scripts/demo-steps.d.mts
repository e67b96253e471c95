/** Types for demo-steps.mjs, so the demo's test (written in TypeScript) can run its steps. */
export const cli: string;

export interface DemoOptions {
  /** The directory the demo works in (staging files, configs, the sandbox's store). */
  dir: string;
  /** Runs `migrate <args>` with `env` added to its environment; rejects unless it exits 0. */
  run(args: string[], env?: Record<string, string>): Promise<void>;
  /** Prints a line. */
  say(line: string): void;
  /** Writes the verify report into `dir` (kept with it) rather than a directory of its own. */
  keep?: boolean;
  /** Added to the sandbox process's environment. */
  sandboxEnv?: Record<string, string>;
}

/** Runs the demo; resolves with the verify report's path. */
export function runDemo(options: DemoOptions): Promise<string>;
