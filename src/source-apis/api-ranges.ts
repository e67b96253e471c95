/**
 * Days and hours of the source APIs, and the windows `--start` / `--end` name: parsed, checked,
 * capped to what has settled, cut into request ranges and split again. Days are counted from
 * the epoch (day 0 is 1970-01-01), hours likewise; each range is inclusive at both ends, as
 * both APIs take it. Pure.
 */
import { UsageError } from '../errors.js';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** An inclusive range of days or hours, as numbers counted from the epoch. */
export interface Span {
  first: number;
  last: number;
}

/** What a window asked for, after capping, and what it was capped from (for the notice). */
export interface Window extends Span {
  /** The `--end` given, when it was later than the last settled day or hour. */
  cappedFrom?: string;
}

/**
 * How long a day or hour is left to settle before it is fetched: a range done is never fetched
 * again, so one still receiving events (late uploads, an export delay of hours) must wait.
 */
export const SETTLE_MS = DAY_MS;

function validDate(y: number, m: number, d: number): number | undefined {
  const ms = Date.UTC(y, m - 1, d);
  const date = new Date(ms);
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d ? ms : undefined;
}

/** A day (`YYYY-MM-DD`) as its number; undefined when it is not one. */
export function parseDay(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (match === null) return undefined;
  const ms = validDate(Number(match[1]), Number(match[2]), Number(match[3]));
  return ms === undefined ? undefined : ms / DAY_MS;
}

export function formatDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/**
 * An hour as its number: `YYYY-MM-DDTHH` or Amplitude's `YYYYMMDDTHH`; a plain day means its
 * first hour as a start and its last as an end. Undefined when it is none of these.
 */
export function parseHour(text: string, edge: 'start' | 'end'): number | undefined {
  const trimmed = text.trim();
  const day = parseDay(trimmed);
  if (day !== undefined) return day * 24 + (edge === 'start' ? 0 : 23);
  const match = /^(\d{4})-?(\d{2})-?(\d{2})T(\d{2})$/.exec(trimmed);
  if (match === null || Number(match[4]) > 23) return undefined;
  const ms = validDate(Number(match[1]), Number(match[2]), Number(match[3]));
  return ms === undefined ? undefined : ms / HOUR_MS + Number(match[4]);
}

/** Amplitude's form of an hour: `YYYYMMDDTHH`. */
export function formatHour(hour: number): string {
  const iso = new Date(hour * HOUR_MS).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}`;
}

/** The last day every time zone has finished at least SETTLE_MS ago. */
export function lastSettledDay(nowMs: number): number {
  return Math.floor((nowMs - SETTLE_MS) / DAY_MS) - 1;
}

/** The last hour that ended at least SETTLE_MS ago. */
export function lastSettledHour(nowMs: number): number {
  return Math.floor((nowMs - SETTLE_MS) / HOUR_MS) - 1;
}

interface WindowRules {
  unit: 'day' | 'hour';
  parse(text: string, edge: 'start' | 'end'): number | undefined;
  format(n: number): string;
  expected: string;
  lastSettled(nowMs: number): number;
}

const DAYS: WindowRules = { unit: 'day', parse: (text) => parseDay(text), format: formatDay, expected: 'YYYY-MM-DD', lastSettled: lastSettledDay };
const HOURS: WindowRules = { unit: 'hour', parse: parseHour, format: formatHour, expected: 'YYYY-MM-DDTHH (or YYYYMMDDTHH, or a day)', lastSettled: lastSettledHour };

function parseWindow(rules: WindowRules, start: string | undefined, end: string | undefined, nowMs: number): Window {
  if (start === undefined || end === undefined) throw new UsageError(`--start and --end are required: the first and last ${rules.unit} to fetch (${rules.expected})`);
  const first = rules.parse(start, 'start');
  const notOne = `not ${rules.unit === 'hour' ? 'an' : 'a'} ${rules.unit}; expected ${rules.expected}`;
  if (first === undefined) throw new UsageError(`--start ${start}: ${notOne}`);
  const asked = rules.parse(end, 'end');
  if (asked === undefined) throw new UsageError(`--end ${end}: ${notOne}`);
  if (asked < first) throw new UsageError(`--end ${end} is before --start ${start}`);
  const settled = rules.lastSettled(nowMs);
  if (first > settled) {
    throw new UsageError(`--start ${start}: nothing to fetch yet; the last ${rules.unit} settled long enough to be fetched is ${rules.format(settled)}`, [
      'A range that ended less than a day ago may still be receiving events, and a range fetched is never fetched again.',
    ]);
  }
  return asked > settled ? { first, last: settled, cappedFrom: end } : { first, last: asked };
}

/** `--start` / `--end` as days (Mixpanel), capped at the last settled day. */
export function dayWindow(start: string | undefined, end: string | undefined, nowMs: number): Window {
  return parseWindow(DAYS, start, end, nowMs);
}

/** `--start` / `--end` as hours (Amplitude), capped at the last settled hour. */
export function hourWindow(start: string | undefined, end: string | undefined, nowMs: number): Window {
  return parseWindow(HOURS, start, end, nowMs);
}

/** The parts of `window` no span of `covered` holds, in order. */
export function gaps(window: Span, covered: readonly Span[]): Span[] {
  const sorted = [...covered].sort((a, b) => a.first - b.first);
  const out: Span[] = [];
  let next = window.first;
  for (const span of sorted) {
    if (span.last < next) continue;
    if (span.first > window.last) break;
    if (span.first > next) out.push({ first: next, last: span.first - 1 });
    next = Math.max(next, span.last + 1);
  }
  if (next <= window.last) out.push({ first: next, last: window.last });
  return out;
}

/**
 * `span` cut where the edges of `window` fall inside it: the part before the window, the part
 * within it, the part after; `[span]` when it lies wholly inside or outside the window.
 */
export function cutAtWindow(span: Span, window: Span): Span[] {
  if (span.last < window.first || span.first > window.last) return [span];
  const out: Span[] = [];
  if (span.first < window.first) out.push({ first: span.first, last: window.first - 1 });
  out.push({ first: Math.max(span.first, window.first), last: Math.min(span.last, window.last) });
  if (span.last > window.last) out.push({ first: window.last + 1, last: span.last });
  return out;
}

/** How many units of `span` lie in `window`. */
export function overlapLength(span: Span, window: Span): number {
  return Math.max(0, Math.min(span.last, window.last) - Math.max(span.first, window.first) + 1);
}

/** `gap` cut into consecutive spans of at most `size`. */
export function cut(gap: Span, size: number): Span[] {
  const out: Span[] = [];
  for (let first = gap.first; first <= gap.last; first += size) out.push({ first, last: Math.min(gap.last, first + size - 1) });
  return out;
}

/** A span of two or more units in two halves (the first the larger). */
export function halves(span: Span): [Span, Span] {
  const middle = span.first + Math.ceil((span.last - span.first + 1) / 2) - 1;
  return [
    { first: span.first, last: middle },
    { first: middle + 1, last: span.last },
  ];
}

export function spanLength(span: Span): number {
  return span.last - span.first + 1;
}

/**
 * Hours one request should cover so its answer stays near `targetBytes`, from the bytes per
 * hour seen so far; between 1 and `maxHours`.
 */
export function hoursForTarget(bytesPerHour: number, targetBytes: number, maxHours: number): number {
  if (bytesPerHour <= 0) return maxHours;
  return Math.max(1, Math.min(maxHours, Math.floor(targetBytes / bytesPerHour)));
}
