/** The pace of an import as people read it: in the progress line, the run's summary and `status`. */
import type { PaceHold } from '../delivery/pace-controller.js';
import { count, plural, seconds } from '../util/format.js';

const HELD_BY: Record<PaceHold, string> = {
  starting: "finding the server's pace",
  probing: 'probing for more room',
  ceiling: 'held at --max-rate',
  throttled: "held by the server's 429s",
  unavailable: "held by the server's 503s",
  slow: "held by the server's slow answers",
  sender: 'held by this machine',
};

/** "pace 2,870 ev/s, held by the server's 429s"; undefined when nothing paces the run. */
export function paceText(pace: { perSec: number; hold: PaceHold }): string | undefined {
  if (!Number.isFinite(pace.perSec)) return undefined;
  return `pace ${count(Math.round(pace.perSec))} ev/s, ${HELD_BY[pace.hold]}`;
}

/** What a run's pace came to. */
export interface PaceFigures {
  /** Events delivered per second over the run. */
  eventsPerSec: number;
  requests: number;
  /** Requests refused for load (429, 503 with Retry-After) or not answered in time. */
  refused: number;
  /** Time chunks spent waiting to retry, summed over chunks, in ms. */
  retryWaitMs: number;
}

/** "average pace 2,850 events/s; 3 of 457 requests refused for load (0.7%); 4.5 s waiting to retry". */
export function paceSummaryText(f: PaceFigures): string {
  const share = f.requests === 0 ? 0 : (f.refused * 100) / f.requests;
  const refused = f.refused === 0 ? 'no request refused for load' : `${count(f.refused)} of ${plural(f.requests, 'request')} refused for load (${share.toFixed(1)}%)`;
  const waited = f.retryWaitMs === 0 ? 'no time waiting to retry' : `${seconds(f.retryWaitMs)} waiting to retry`;
  return `average pace ${count(f.eventsPerSec)} events/s; ${refused}; ${waited}`;
}
