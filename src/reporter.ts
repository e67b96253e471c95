/**
 * How a use case tells the person running it what is going on, without knowing about a
 * terminal: the shell implements it (a spinner or plain lines on stderr), tests and scripts
 * pass the silent one. Results are never reported here: use cases return them.
 */
export interface Reporter {
  /** The current state of a long task, e.g. "12,000 rows (48,000 rows/s)"; cheap to call often, may be shown or skipped. */
  progress(text: string): void;
  /** A line worth seeing while the task runs (a retry, a recovered earlier read); hidden by --quiet and --json. */
  notice(text: string): void;
  /** A line that must be seen whatever the options (the server is throttling us). */
  warn(text: string): void;
}

export const silentReporter: Reporter = { progress() {}, notice() {}, warn() {} };
