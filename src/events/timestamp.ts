/**
 * Timestamp parsing and the bounds of a plausible time. Accepts ISO 8601 with a zone, epoch
 * seconds or milliseconds, and (only with an explicit IANA zone) local wall-clock times.
 * Guesses nothing: a time without a zone and no `--timezone` is a problem, not UTC.
 */
import { problem, type RowProblem } from './reject-reasons.js';
import type { ZoneConverter } from './time-zone.js';
import { FUTURE_TIMESTAMP_ALLOWANCE_MS } from '../posthog/limits.js';

/**
 * `wallMs`, the wall-clock reading of a time written without a zone, as if it were UTC. On a
 * success it says that the instant came from the zone given, so another zone would have given
 * another instant; on a failure (no zone given), it lets a placeholder such as 1900-01-01 be
 * reported as one and not as a missing zone. `subMsUs`: the microseconds past `ms` (1-999),
 * present only when the source wrote them; PostHog keeps microseconds (DateTime64(6)), so a
 * source's digits are kept to there and no further.
 */
export type TimestampResult = { ok: true; ms: number; subMsUs?: number; wallMs?: number } | { ok: false; problem: RowProblem; wallMs?: number };

/**
 * Times before this are placeholders, not events: epoch 0 (a null turned into a number, a `0`
 * cell) and 1900-01-01 (a spreadsheet's empty date). Changed with --min-time.
 */
export const DEFAULT_MIN_TIME_MS = Date.UTC(2000, 0, 1);
/** The widest UTC offset accepted; a time without a zone is this far from UTC at most. */
const MAX_OFFSET_MS = 18 * 60 * 60 * 1000;

export interface TimeBounds {
  /** Times before this (UTC ms) are rejected as implausible_timestamp. */
  minTimeMs: number;
  /** "Now" (UTC ms): times more than FUTURE_TIMESTAMP_ALLOWANCE_MS after it are rejected as future_timestamp (PostHog would move them to their arrival time). */
  nowMs: number;
}

/** The day or instant of a bound as written in messages: the day alone when it is midnight UTC. */
export function formatBound(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso;
}

/** A problem when `ms` is before --min-time or too far in the future; undefined when plausible. */
export function timeBoundsProblem(ms: number, field: string, bounds: TimeBounds): RowProblem | undefined {
  if (ms < bounds.minTimeMs) {
    return problem(
      'implausible_timestamp',
      field,
      `${new Date(ms).toISOString()} is before ${formatBound(bounds.minTimeMs)} (--min-time): a placeholder such as 0 or 1900-01-01? If it is real, pass --min-time <earlier date>`,
    );
  }
  if (ms > bounds.nowMs + FUTURE_TIMESTAMP_ALLOWANCE_MS) {
    return problem('future_timestamp', field, `${new Date(ms).toISOString()} is more than 23 hours in the future (PostHog would replace it with the time it arrives)`);
  }
  return undefined;
}

/**
 * The bounds problem of a time without a zone, when every zone would put it out of bounds (a
 * 1900-01-01 placeholder is implausible whatever its zone); otherwise the missing zone stays the problem.
 */
export function zonelessBoundsProblem(result: TimestampResult, field: string, bounds: TimeBounds): RowProblem | undefined {
  if (result.ok || result.wallMs === undefined) return undefined;
  const earliest = result.wallMs - MAX_OFFSET_MS;
  const latest = result.wallMs + MAX_OFFSET_MS;
  return latest < bounds.minTimeMs || earliest > bounds.nowMs + FUTURE_TIMESTAMP_ALLOWANCE_MS ? timeBoundsProblem(result.wallMs, field, bounds) : undefined;
}

/** Epoch values above this are milliseconds (the rule Mixpanel's exports follow). */
const EPOCH_MS_THRESHOLD = 1e10;
/** Epoch values above this are neither seconds nor milliseconds of a plausible date. */
const EPOCH_MAX = 1e14;

const ISO_PATTERN = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?\s*(Z|z|UTC|GMT|[+-]\d{2}(?::?\d{2})?)?$/;
const EPOCH_PATTERN = /^\d+(?:\.\d+)?$/;
const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function fail(field: string, reason: 'bad_timestamp' | 'timestamp_without_zone', message: string): TimestampResult {
  return { ok: false, problem: problem(reason, field, message) };
}

function fromEpoch(value: number, field: string, text: string): TimestampResult {
  if (!Number.isFinite(value) || value < 0) return fail(field, 'bad_timestamp', `"${text}" is not a valid epoch time`);
  if (value >= EPOCH_MAX) {
    return fail(field, 'bad_timestamp', `"${text}" is too large for epoch seconds or milliseconds (microseconds?)`);
  }
  const ms = Math.floor(value > EPOCH_MS_THRESHOLD ? value : value * 1000);
  const exact = EPOCH_PATTERN.test(text) ? epochDigits(text, value > EPOCH_MS_THRESHOLD) : undefined;
  // Past the microsecond, a float can round up into the next millisecond where the digits do not
  // (1714557600.0009999): the millisecond stays the one earlier versions staged, so the row's
  // derived uuid is the same, and its microseconds are then 0 (the time moves by under 1 µs).
  if (exact?.ok && exact.ms === ms) return exact;
  return { ok: true, ms };
}

/**
 * Epoch digits read as decimal text, not through a float, so `1714557600.123456` keeps its
 * microseconds exactly; digits past the microsecond are dropped (truncated, as the millisecond
 * always was).
 */
function epochDigits(text: string, isMs: boolean): TimestampResult {
  const dot = text.indexOf('.');
  const whole = dot < 0 ? text : text.slice(0, dot);
  const fraction = dot < 0 ? '' : text.slice(dot + 1);
  const digits = isMs ? fraction.padEnd(3, '0').slice(0, 3) : fraction.padEnd(6, '0').slice(0, 6);
  const ms = isMs ? Number(whole) : Number(whole) * 1000 + Number(digits.slice(0, 3));
  return withSubMs(ms, Number(isMs ? digits : digits.slice(3, 6)));
}

function withSubMs(ms: number, subMsUs: number): TimestampResult {
  return subMsUs === 0 ? { ok: true, ms } : { ok: true, ms, subMsUs };
}

/** The microseconds past the millisecond of a fraction of a second's digits (the 4th to 6th; more are dropped). */
function subMsOfFraction(frac: string): number {
  return frac.length <= 3 ? 0 : Number(frac.slice(3, 6).padEnd(3, '0'));
}

function offsetMinutes(zone: string): number {
  if (zone === 'Z' || zone === 'z' || zone === 'UTC' || zone === 'GMT') return 0;
  const sign = zone[0] === '-' ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
  return sign * (hours * 60 + minutes);
}

function fromIso(match: RegExpExecArray, field: string, text: string, zone: ZoneConverter | undefined): TimestampResult {
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', tz] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (!isRealTime(year, month, day, hour, minute, second)) return fail(field, 'bad_timestamp', `"${text}" is not a real date and time`);
  const millis = Number((frac + '00').slice(0, 3));
  const wallMs = utcMs(year, month, day, hour, minute, second, millis);
  if (tz !== undefined) {
    const offset = offsetMinutes(tz);
    if (Math.abs(offset) > 18 * 60) return fail(field, 'bad_timestamp', `"${text}" has an impossible UTC offset`);
    return withSubMs(wallMs - offset * 60_000, subMsOfFraction(frac));
  }
  if (zone === undefined) {
    return { ok: false, problem: problem('timestamp_without_zone', field, `"${text}" has no time zone; add one to the data or pass --timezone <IANA name>`), wallMs };
  }
  const utc = zone.toUtc(wallMs);
  if (utc === undefined) {
    return {
      ok: false,
      problem: problem('nonexistent_local_time', field, `"${text}" does not exist in ${zone.name} (clocks jumped forward)`),
    };
  }
  const subMsUs = subMsOfFraction(frac);
  return subMsUs === 0 ? { ok: true, ms: utc, wallMs } : { ok: true, ms: utc, subMsUs, wallMs };
}

/**
 * Date.UTC for a wall-clock time, years 0-99 included: Date.UTC reads those as 1900-1999, which
 * would move a (strange, but written) year 0050 by nineteen centuries without a word.
 */
function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number, millis: number): number {
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  if (year >= 100) return ms;
  const date = new Date(ms);
  date.setUTCFullYear(year, month - 1, day);
  return date.getTime();
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/** True when the fields name a real calendar day and time of day (no leap seconds). */
function isRealTime(year: number, month: number, day: number, hour: number, minute: number, second: number): boolean {
  if (month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]! || (month === 2 && day === 29 && !isLeapYear(year))) return false;
  return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59;
}

/** Two decimal digits at `at`, or -1. */
function twoDigits(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : -1;
}

/**
 * The common exact form `YYYY-MM-DDTHH:MM:SS[.fraction]Z` read without a regular expression
 * (most exports write nothing else). Undefined for anything else, which then takes the general
 * path: this one only agrees with it, faster.
 */
export function parseIsoZulu(text: string): number | undefined {
  const n = text.length;
  if (n < 20 || text.charCodeAt(n - 1) !== 90 /* Z */) return undefined;
  if (text[4] !== '-' || text[7] !== '-' || text[10] !== 'T' || text[13] !== ':' || text[16] !== ':') return undefined;
  const century = twoDigits(text, 0);
  const yy = twoDigits(text, 2);
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  const hour = twoDigits(text, 11);
  const minute = twoDigits(text, 14);
  const second = twoDigits(text, 17);
  const year = century * 100 + yy;
  if (century < 0 || yy < 0 || !isRealTime(year, month, day, hour, minute, second)) return undefined;
  let millis = 0;
  if (n > 20) {
    if (text[19] !== '.' && text[19] !== ',') return undefined;
    if (n === 21) return undefined;
    for (let i = 20; i < n - 1; i++) {
      const digit = text.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) return undefined;
      if (i < 23) millis = millis * 10 + digit;
    }
    for (let i = Math.min(n - 1, 23); i < 23; i++) millis *= 10;
  }
  return utcMs(year, month, day, hour, minute, second, millis);
}

/**
 * Parses one timestamp value. `field` names the source field for the problem message.
 * Numbers and digit strings are epoch seconds, or milliseconds above 1e10.
 */
export function parseTimestamp(value: unknown, field: string, zone?: ZoneConverter): TimestampResult {
  if (typeof value === 'number' || typeof value === 'bigint') return fromEpoch(Number(value), field, String(value));
  if (typeof value !== 'string') return fail(field, 'bad_timestamp', `expected a string or a number, got ${typeof value}`);
  const fast = parseIsoZulu(value);
  if (fast !== undefined) return value.length <= 24 ? { ok: true, ms: fast } : withSubMs(fast, subMsOfFraction(value.slice(20, -1)));
  const text = value.trim();
  if (EPOCH_PATTERN.test(text)) return fromEpoch(Number(text), field, text);
  const match = ISO_PATTERN.exec(text);
  if (match === null) return fail(field, 'bad_timestamp', `"${text.slice(0, 80)}" is not ISO 8601 or epoch time`);
  return fromIso(match, field, text, zone);
}

/**
 * Renders a time as the ISO UTC form we send: `2024-01-02T03:04:05.678Z`, or with six digits
 * (`.678901Z`) when it has microseconds past the millisecond.
 */
export function formatTimestamp(ms: number, subMsUs = 0): string {
  const iso = new Date(ms).toISOString();
  return subMsUs === 0 ? iso : `${iso.slice(0, -1)}${String(subMsUs).padStart(3, '0')}Z`;
}
