/** What an import run returns: its counters and the project's state after it; or, for a run that did not finish, the error that carries them. */
import type { DeliveryStats } from '../delivery/delivery-run.js';
import { MigrateError } from '../errors.js';

/** A run's counters (see DeliveryStats) with the project's state after it. */
export interface RunSummary extends Omit<DeliveryStats, 'startedMs' | 'pace'> {
  project: string;
  host: string;
  outcome: 'done' | 'interrupted' | 'stopped';
  elapsedMs: number;
  eventsPerSec: number;
  /** Project-wide after the run. */
  projectDelivered: number;
  projectDeadLetters: number;
  pending: number;
  totalStaged: number;
  sample: number | null;
  /** Re-assertions staged (within totalStaged): users-file `$set`s sent again after the events (see reassertions.ts). */
  reassertions: number;
  /** --people-last: events were sent before person and group updates. */
  peopleLast: boolean;
}

/** A finished run: its summary, and the command to suggest next (production after a test), if any. */
export interface RunResult {
  summary: RunSummary;
  next?: string;
}

/**
 * A run that ended before its end (interrupted, or stopped by the server): what it achieved,
 * and why it stopped, with the exit code, message and hints of `reason` (an InterruptedError,
 * AuthError or DeliveryStoppedError). Everything the server accepted is recorded; the run can
 * be resumed.
 */
export class UnfinishedRunError extends MigrateError {
  constructor(
    readonly summary: RunSummary,
    readonly reason: MigrateError,
  ) {
    super(reason.message, reason.exitCode, reason.hints);
  }
}
