/**
 * Cutting the verified range into time windows of whole UTC days, so each query stays within
 * what PostHog's query endpoint allows: a bounded number of events scanned per query (its run
 * time is limited) and rows per answer. Pure.
 */
import type { Window } from './hogql-text.js';
import { DAY_MS } from './utc-day.js';

export interface DayTotal {
  /** Days since 1970-01-01, UTC. */
  day: number;
  /** Events staged that day (all kinds). */
  events: number;
}

/**
 * Consecutive runs of days (in day order) holding at most `maxEvents` staged events each, as
 * time windows; a day with more events than that is a window of its own. Days between two
 * listed days fall in the window of the later one, so the windows cover the range without gaps.
 */
export function dayWindows(days: readonly DayTotal[], maxEvents: number): Window[] {
  const windows: Window[] = [];
  let start: number | undefined;
  let last = 0;
  let events = 0;
  for (const d of days) {
    if (start !== undefined && events + d.events > maxEvents) {
      windows.push({ fromMs: start * DAY_MS, toMs: (last + 1) * DAY_MS });
      start = undefined;
    }
    if (start === undefined) {
      start = windows.length === 0 ? d.day : last + 1;
      events = 0;
    }
    events += d.events;
    last = d.day;
  }
  if (start !== undefined) windows.push({ fromMs: start * DAY_MS, toMs: (last + 1) * DAY_MS });
  return windows;
}
