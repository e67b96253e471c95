/**
 * The comparison `verify` reports: per UTC day (and event name) staged, delivered, dead
 * letters and landed; the days where PostHog holds fewer events than it accepted, first; and
 * the summary line's figures. Pure.
 */
import type { DayCount } from '../staging/day-counts.js';
import { rowKey, type LandedCounts } from './landed-counts.js';
import { dayFromNumber } from './utc-day.js';

export interface VerifyRow {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** With --by-event. */
  event?: string;
  staged: number;
  delivered: number;
  deadLetters: number;
  /** Distinct uuids of this staging file PostHog holds. */
  landed: number;
  /** delivered - landed when PostHog holds fewer than it accepted, else 0. */
  missing: number;
}

export interface VerifyTotals {
  staged: number;
  delivered: number;
  deadLetters: number;
  landed: number;
  /** Staged and neither delivered nor dead-lettered. */
  pending: number;
}

export interface VerifySummary {
  /** Days in the comparison. */
  days: number;
  /** Days with at least one row short. */
  shortDays: number;
  /** Events missing, over all rows. */
  missing: number;
  complete: boolean;
  totals: VerifyTotals;
}

/** Staging counts and landed counts side by side; landed rows on days with nothing staged are kept (nothing is missing there). */
export function compareRows(counts: readonly DayCount[], landed: LandedCounts): VerifyRow[] {
  const rows: VerifyRow[] = [];
  const seen = new Set<string>();
  for (const c of counts) {
    const key = rowKey(c.day, c.event);
    seen.add(key);
    const got = landed.get(key) ?? 0;
    rows.push({
      day: dayFromNumber(c.day),
      ...(c.event !== undefined && { event: c.event }),
      staged: c.staged,
      delivered: c.delivered,
      deadLetters: c.deadLetters,
      landed: got,
      missing: Math.max(0, c.delivered - got),
    });
  }
  for (const [key, got] of landed) {
    if (seen.has(key)) continue;
    const [day, event] = key.split('\t');
    rows.push({ day: dayFromNumber(Number(day)), ...(event !== undefined && { event }), staged: 0, delivered: 0, deadLetters: 0, landed: got, missing: 0 });
  }
  return rows;
}

const byDayThenEvent = (a: VerifyRow, b: VerifyRow): number => (a.day < b.day ? -1 : a.day > b.day ? 1 : (a.event ?? '') < (b.event ?? '') ? -1 : (a.event ?? '') > (b.event ?? '') ? 1 : 0);

/** Rows short of events first (by day), then the others (by day). */
export function orderRows(rows: readonly VerifyRow[]): VerifyRow[] {
  const short = rows.filter((r) => r.missing > 0).sort(byDayThenEvent);
  const whole = rows.filter((r) => r.missing === 0).sort(byDayThenEvent);
  return [...short, ...whole];
}

export function summarize(rows: readonly VerifyRow[]): VerifySummary {
  const totals: VerifyTotals = { staged: 0, delivered: 0, deadLetters: 0, landed: 0, pending: 0 };
  const days = new Set<string>();
  const shortDays = new Set<string>();
  let missing = 0;
  for (const r of rows) {
    days.add(r.day);
    if (r.missing > 0) shortDays.add(r.day);
    missing += r.missing;
    totals.staged += r.staged;
    totals.delivered += r.delivered;
    totals.deadLetters += r.deadLetters;
    totals.landed += r.landed;
  }
  totals.pending = totals.staged - totals.delivered - totals.deadLetters;
  return { days: days.size, shortDays: shortDays.size, missing, complete: missing === 0, totals };
}

/** Rows per day, whatever the grouping: what the chart draws. */
export function perDay(rows: readonly VerifyRow[]): VerifyRow[] {
  const days = new Map<string, VerifyRow>();
  for (const r of rows) {
    const d = days.get(r.day) ?? { day: r.day, staged: 0, delivered: 0, deadLetters: 0, landed: 0, missing: 0 };
    d.staged += r.staged;
    d.delivered += r.delivered;
    d.deadLetters += r.deadLetters;
    d.landed += r.landed;
    d.missing += r.missing;
    days.set(r.day, d);
  }
  return [...days.values()].sort(byDayThenEvent);
}
