/**
 * Ctrl-C, SIGTERM and SIGHUP become an abort signal that long loops check between batches, so
 * they stop at a consistent point, save progress and say how to continue. The signal's reason
 * is the name of the signal that arrived (see interruptedBy). A second one aborts the linked
 * force signal (see interrupt-force.ts): the grace period ends at once.
 *
 * SIGHUP is a closed terminal or SSH session: the output has nowhere to go, so writes to it are
 * let fail quietly, and how the run ended is appended to a log file beside the staging file.
 */
import { appendFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MigrateError } from '../../errors.js';
import { linkForce } from '../../util/interrupt-force.js';
import { redact } from '../../util/redact.js';

export interface InterruptWatch {
  readonly signal: AbortSignal;
  dispose(): void;
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** A closed terminal answers writes with EIO (or EPIPE): nothing to do about it but go on. */
function ignoreOutputErrors(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);
}

export function watchInterrupts(): InterruptWatch {
  const controller = new AbortController();
  const force = new AbortController();
  linkForce(controller.signal, force.signal);
  const handler = (signal: NodeJS.Signals): void => {
    if (signal === 'SIGHUP') ignoreOutputErrors();
    if (!controller.signal.aborted) controller.abort(signal);
    else if (!force.signal.aborted) force.abort(signal);
  };
  for (const name of SIGNALS) process.on(name, handler);
  return {
    signal: controller.signal,
    dispose() {
      for (const name of SIGNALS) process.off(name, handler);
    },
  };
}

/** The log file beside a staging file: `<staging>.log`. */
export function stagingLogPath(staging: string): string {
  return `${resolve(staging)}.log`;
}

/**
 * Appends how a command stopped by a signal ended to `logFile`: the error and its hints (the
 * resume command), or that it finished. The terminal may be gone; this line stays.
 */
export function logInterruptedEnd(logFile: string, command: string, signal: AbortSignal, error: unknown): void {
  const by = typeof signal.reason === 'string' ? signal.reason : 'a signal';
  const lines =
    error === undefined
      ? [`migrate ${command}, interrupted by ${by}, finished anyway.`]
      : error instanceof MigrateError
        ? [`migrate ${command} stopped: ${error.message}`, ...error.hints]
        : [`migrate ${command} failed after ${by}: ${(error as Error)?.message ?? String(error)}`];
  try {
    appendFileSync(logFile, redact(`${new Date().toISOString()} ${lines.join('\n  ')}\n`));
  } catch {
    // Nowhere to write: the staging file's own records still hold every checkpoint.
  }
}
