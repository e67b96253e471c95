/**
 * Rows a read rejected as `future_timestamp`: their times were more than 23 hours after that
 * run's "now". Time moves on, and a later run lets them in; so a source whose latest read rejected
 * such rows is not taken for unchanged once the earliest of them is within the run's reach (see
 * unchanged-reads.ts): it is read again, its staged rows counted as already staged. A placeholder
 * far ahead (2099-01-01) does not make every run read its source again.
 */
import { FUTURE_TIMESTAMP_ALLOWANCE_MS } from '../posthog/limits.js';
import type { StagingStore } from './staging-store.js';

/** A time without a zone is judged at its wall-clock reading, which its zone moves by up to 18 hours (events/timestamp.ts). */
const ZONE_SLACK_MS = 18 * 60 * 60 * 1000;

/** A test of whether a read rejected rows as future_timestamp that a run at `nowMs` may stage. */
export function futureRejectsDue(store: StagingStore, nowMs: number): (readId: number) => boolean {
  // The reject's message starts with the time it judged, as ISO text (events/timestamp.ts, timeBoundsProblem).
  const earliest = store.db.prepare(`SELECT min(substr(message, 1, instr(message, ' ') - 1)) FROM rejects WHERE read_id = ? AND reason = 'future_timestamp'`).pluck();
  return (readId) => {
    const iso = earliest.get(readId) as string | null;
    if (iso === null) return false;
    const ms = Date.parse(iso);
    return Number.isNaN(ms) || ms - ZONE_SLACK_MS <= nowMs + FUTURE_TIMESTAMP_ALLOWANCE_MS;
  };
}
