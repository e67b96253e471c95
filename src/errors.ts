/**
 * The few error classes the tool throws. Each carries the process exit code; only `main.ts`
 * turns them into `process.exit`. Expected outcomes (a rejected row, a 429) are values, not
 * exceptions: these are for conditions that end a command.
 */

/** Exit codes, documented in docs/exit-codes.md. */
export const ExitCode = {
  ok: 0,
  internal: 1,
  usage: 2,
  input: 3,
  auth: 4,
  deliveryStopped: 5,
  refused: 6,
  staging: 7,
  remote: 8,
  eventsMissing: 9,
  preflight: 10,
  interrupted: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export class MigrateError extends Error {
  readonly exitCode: ExitCodeValue;
  /** Extra lines printed after the message (hints, the resume command). */
  readonly hints: readonly string[];

  constructor(message: string, exitCode: ExitCodeValue, hints: readonly string[] = []) {
    super(message);
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.hints = hints;
  }
}

/** Bad command-line arguments or a bad config file. */
export class UsageError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.usage, hints);
  }
}

/** A source file that cannot be read as asked (missing, a directory, binary, no header). */
export class InputError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.input, hints);
  }
}

/** The server refused our credentials (401/403). */
export class AuthError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.auth, hints);
  }
}

/** Delivery stopped before the end (retries exhausted); the run can be resumed. */
export class DeliveryStoppedError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.deliveryStopped, hints);
  }
}

/** A safety rule refused the command (production before test, a project's host changed). */
export class RefusedError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.refused, hints);
  }
}

/** The staging file is unusable: locked by another process, newer schema, not a staging file. */
export class StagingError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.staging, hints);
  }
}

/** A remote API answered with an error that is not about credentials (404, 400, 5xx). */
export class RemoteError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.remote, hints);
  }
}

/** `verify` found events PostHog accepted and does not hold (the report is printed before it). */
export class EventsMissingError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.eventsMissing, hints);
  }
}

/** The user pressed Ctrl-C or the process got SIGTERM; progress was saved. */
export class InterruptedError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.interrupted, hints);
  }
}

/** `migrate doctor`, or a preflight (import's, export-source's disk check), found a problem; nothing was sent or staged. */
export class PreflightError extends MigrateError {
  constructor(message: string, hints: readonly string[] = []) {
    super(message, ExitCode.preflight, hints);
  }
}
